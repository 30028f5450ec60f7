"""A history saved before calls had keys of their own (docs/decisions.md) may name
two calls with one id: resumed, the model is still sent one id per call, each result under
the key of its own call, and the session's next calls get keys no saved call has."""

from __future__ import annotations

from raw_tui.protocol import bus as ev
from tests.engine.session_kit import make_session


def old_history() -> list[ev.Event]:
    """Two turns of one provider numbering calls per response, `c0` twice in the second."""
    out: list[ev.Event] = [ev.SessionStart(session_id="s_old", agent="main")]
    for turn, paths in (("t1", ["a.txt"]), ("t2", ["a.txt", "b.txt"])):
        out.append(ev.UserMessage(text=f"read {paths}", turn_id=turn))
        out.append(ev.AssistantText(text="", turn_id=turn))
        for path in paths:
            out.append(ev.ToolCall(call_id="c0", identity="builtin/read_file", name="read_file",
                                   arguments={"path": path}, turn_id=turn))
        for path in paths:
            out.append(ev.ToolResultEvent(call_id="c0", isError=False, turn_id=turn,
                                          content=[{"type": "text", "text": f"text of {path}"}]))
        out.append(ev.AssistantText(text="done", turn_id=turn))
        out.append(ev.RunEnd(status="completed", turn_id=turn))
    return out


async def test_a_resumed_history_with_one_id_for_two_calls_is_sent_with_unique_ids(tmp_path):
    read = {"name": "read_file", "arguments": {"path": "a.txt"}, "id": "c0"}
    h = make_session(tmp_path, [{"tool_calls": [read]}, {"text": "ok"}], history=old_history(),
                     session_id="s_old")
    (tmp_path / "work" / "a.txt").write_text("alpha\n")
    await h.session.run_turn("again")
    messages = h.model.requests[-1].messages
    calls = [c.id for m in messages for c in m.tool_calls]
    assert len(calls) == len(set(calls)) == 4, calls
    assert calls[:3] == ["c0", "c0-2", "c0-3"]
    results = [(m.tool_call_id, m.text) for m in messages if m.role == "tool"]
    assert results[:3] == [("c0", "text of a.txt"), ("c0-2", "text of a.txt"),
                           ("c0-3", "text of b.txt")]
    # the new call is keyed apart from every saved one
    new = [e.call_id for e in h.events if isinstance(e, ev.ToolCall)]
    assert new == ["c0-4"] == calls[3:] and results[3][0] == "c0-4"
