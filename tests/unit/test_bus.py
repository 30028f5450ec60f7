"""The event bus: encoding, order, and a failing subscriber that stops nobody."""

from raw_tui.protocol import bus as ev


def test_every_event_encodes_in_one_call_and_decodes_back():
    event = ev.ToolCall(call_id="c", identity="builtin/bash", name="bash",
                        arguments={"commands": [{"command": "ls"}]}, turn_id="t1")
    data = ev.encode(event)
    assert data.startswith(b'{"type":"tool_call"')
    assert ev.decode(data) == event


def test_the_first_subscriber_sees_events_before_the_others():
    bus, seen = ev.Bus(), []
    bus.subscribe(lambda e: seen.append("late"))
    bus.subscribe(lambda e: seen.append("store"), first=True)
    bus.publish(ev.Notice(level="info", message="x"))
    assert seen == ["store", "late"]


def test_a_failing_subscriber_stops_nobody_and_is_reported_once():
    bus, seen = ev.Bus(), []

    def broken(event):
        raise OSError("disk full")

    bus.subscribe(broken, first=True)
    bus.subscribe(seen.append)
    bus.publish(ev.UserMessage(text="a"))
    bus.publish(ev.UserMessage(text="b"))
    texts = [getattr(e, "text", None) or e.message for e in seen]
    assert texts[0] == "a" and "disk full" in texts[1] and texts[2] == "b"
    assert sum(isinstance(e, ev.Notice) for e in seen) == 1
