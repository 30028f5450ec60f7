"""A running bash command's output as it arrives (issue 11, defect 7): `tool_output` events,
throttled and bounded, redacted, never stored, carried by `run --output jsonl`; and the
model's result exactly as before."""

from __future__ import annotations

import asyncio
import json
import time

from raw_tui.protocol import bus as ev
from raw_tui.protocol.redact import REDACTED, Redactor
from raw_tui.session.store import HistoryStore
from raw_tui.tools import live_output
from raw_tui.tools.live_output import LiveOutput
from tests.e2e.headless_kit import config_with, run, stored
from tests.engine.session_kit import make_session

SLOW = "for i in 1 2 3; do echo line$i; sleep 0.4; done"


def bash(*commands: str) -> dict:
    return {"tool_calls": [{"name": "bash", "id": "c1", "arguments": {
        "commands": [{"command": c} for c in commands]}}]}


def timed(h) -> list[tuple[float, ev.Event]]:
    """(when, event) for every event from now on."""
    seen: list[tuple[float, ev.Event]] = []
    h.session.bus.subscribe(lambda e: seen.append((time.monotonic(), e)))
    return seen


def tool_message(h) -> str:
    return next(m.text for m in h.model.requests[1].messages if m.role == "tool")


async def test_bash_output_arrives_while_it_runs_and_the_result_is_unchanged(tmp_path):
    h = make_session(tmp_path, [bash(SLOW, "echo done"), {"text": "ok"}])
    seen = timed(h)
    await h.session.run_turn("go")
    outputs = [(t, e) for t, e in seen if isinstance(e, ev.ToolOutput)]
    result_at = next(t for t, e in seen if isinstance(e, ev.ToolResultEvent))
    live = "".join(e.text for _, e in outputs)
    assert live == f"$ {SLOW}\nline1\nline2\nline3\n$ echo done\ndone\n"
    assert all(e.call_id == "c1" and e.turn_id == h.of(ev.ToolCall)[0].turn_id
               for _, e in outputs)
    # line1 was shown long before the command ended, and nothing follows the result
    first = next(t for t, e in outputs if "line1" in e.text)
    assert result_at - first > 0.6
    assert all(t <= result_at for t, _ in outputs)
    # what the model reads is what it always read
    assert tool_message(h) == f"$ {SLOW}\nline1\nline2\nline3\nexit 0\n\n$ echo done\ndone\nexit 0"


async def test_fast_output_is_coalesced_to_ten_events_a_second_and_bounded(tmp_path):
    # about 1.5 s of a line every 5 ms, then 100 KB at once
    command = ("for i in $(seq 1 300); do echo tick$i; sleep 0.005; done; "
               "head -c 100000 /dev/zero | tr '\\0' a; echo; echo end")
    h = make_session(tmp_path, [bash(command), {"text": "ok"}])
    seen = timed(h)
    await h.session.run_turn("go")
    outputs = [(t, e) for t, e in seen if isinstance(e, ev.ToolOutput)]
    gaps = [b[0] - a[0] for a, b in zip(outputs, outputs[1:])]
    # the last one is sent when the call ends, whenever that is
    assert gaps[:-1] and min(gaps[:-1]) >= live_output.INTERVAL_S * 0.9
    span = outputs[-1][0] - outputs[0][0]
    assert len(outputs) <= span / live_output.INTERVAL_S + 2
    assert all(len(e.text.encode()) <= live_output.MAX_EVENT_BYTES for _, e in outputs)
    assert any(e.cut > 0 for _, e in outputs)  # the 100 KB burst: its tail, and a count
    assert outputs[-1][1].text.endswith("\nend\n")
    # the model's result is the capped output as before
    text = tool_message(h)
    assert text.startswith(f"$ {command}\ntick1\ntick2\n")
    assert "bytes cut ...]" in text and text.endswith("end\nexit 0")
    assert len(text.encode()) <= 8192 + 200


async def test_live_output_is_redacted_even_when_a_secret_is_split():
    redactor = Redactor()
    redactor.register("sk-live-0123456789abcdef")
    sent: list[str] = []
    out = LiveOutput(lambda text, cut: sent.append(text), redactor.stream())
    out("key=sk-live-01234")
    await asyncio.sleep(live_output.INTERVAL_S * 2)
    out("56789abcdef ok\n")
    out.close()
    out("after close\n")
    assert "".join(sent) == f"key={REDACTED} ok\n"
    assert not any("sk-live" in piece for piece in sent)


async def test_output_from_a_worker_thread_reaches_the_loop():
    sent: list[str] = []
    out = LiveOutput(lambda text, cut: sent.append(text))
    await asyncio.to_thread(out, "from a thread\n")
    await asyncio.sleep(0.01)
    out.close()
    assert sent == ["from a thread\n"]


async def test_tool_output_is_not_stored_in_the_history(tmp_path):
    store = HistoryStore(tmp_path / "history.db")
    h = make_session(tmp_path, [bash("echo hi"), {"text": "ok"}], store=store)
    await h.session.run_turn("go")
    assert h.of(ev.ToolOutput)
    kinds = [row for row in store.db.execute(
        "SELECT type FROM events WHERE session_id = ?", (h.session.session_id,))]
    assert ("tool_output",) not in kinds and ("tool_result",) in kinds
    store.close()


def test_headless_jsonl_carries_tool_output_but_the_history_does_not(tmp_path, isolated_home):
    cfg, work = config_with(tmp_path, [], bash("echo one; sleep 0.3; echo two"), {"text": "ok"})
    proc, events = run(cfg, work)
    assert proc.returncode == 0, proc.stderr
    types = [e["type"] for e in events]
    assert "tool_output" in types
    assert types.index("tool_output") < types.index("tool_result")
    live = "".join(e["text"] for e in events if e["type"] == "tool_output")
    assert "one\n" in live and "two\n" in live
    session_id = events[0]["session_id"]
    assert "tool_output" not in {e["type"] for e in stored(session_id)}
    assert json.loads(json.dumps(events[-1]))["type"] == "run_end"
