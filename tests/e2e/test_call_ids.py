"""Every call has a key of its own (docs/decisions.md): the built-in demo replayed
in one session through `raw-tui run --continue` (the scripted model numbers its calls from
`call_1` again), and a provider that reuses `call_0` across turns and within one response:
the JSONL, the saved history and the request bodies sent back never name two calls with
one id."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from tests.e2e.headless_kit import stored
from tests.e2e.provider_kit import Wire, server, wire
from tests.config_kit import raw_tui, write_config

__all__ = ["server", "wire"]  # the fixtures


def demo_run(work: Path, prompt: str, *extra: str) -> list[dict]:
    proc = raw_tui("--cwd", str(work), "run", prompt, "--output", "jsonl", *extra)
    assert proc.returncode in (0, 1), proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def assert_calls_keyed(events: list[dict]) -> None:
    """Each call id names one tool_call, and its result comes in that call's turn."""
    calls = [e for e in events if e["type"] == "tool_call"]
    ids = Counter(e["call_id"] for e in calls)
    assert all(n == 1 for n in ids.values()), ids
    turn_of = {e["call_id"]: e.get("turn_id") for e in calls}
    results = [e for e in events if e["type"] == "tool_result"]
    assert Counter(e["call_id"] for e in results) == ids
    assert all(turn_of[e["call_id"]] == e.get("turn_id") for e in results)


def test_the_demo_replayed_in_one_session_keeps_every_call_apart(tmp_path):
    work = tmp_path / "w"
    work.mkdir()
    first = demo_run(work, "hello")  # stops at the write (no approver headless)
    session = first[0]["session_id"]
    demo_run(work, "go on", "--continue")  # the rest of the script
    again = demo_run(work, "again", "--continue")  # the script from its first line
    assert again[0]["session_id"] == session
    first_ids = [e["call_id"] for e in first if e["type"] == "tool_call"]
    again_ids = [e["call_id"] for e in again if e["type"] == "tool_call"]
    assert first_ids[0] == "call_1"  # a new id is the provider's own
    assert len(again_ids) == len(first_ids) and not set(again_ids) & set(first_ids)
    assert again_ids[0] == "call_1-2"
    events = stored(session)
    assert_calls_keyed(events)


def ids_sent(wire: Wire, body: dict) -> list[str]:
    """The ids of every tool call the request carries, in order."""
    if wire.method == "anthropic-messages":
        return [b["id"] for m in body["messages"] if isinstance(m["content"], list)
                for b in m["content"] if b["type"] == "tool_use"]
    return [c["id"] for m in body["messages"] for c in m.get("tool_calls") or []]


def test_a_provider_reusing_call_0_gets_unique_ids_back(tmp_path, wire, server):
    cfg = tmp_path / "cfg"
    model = {"method": wire.method, "model_id": "test-model", "base_url": server.url}
    if wire.method == "openai-chat-completions":
        model["base_url"] = server.url + "/v1"
    write_config(cfg, {"tools": {"use": ["builtin/read_file"]}}, models={"m": model})
    work = tmp_path / "w"
    work.mkdir()
    (work / "a.txt").write_text("alpha\n")
    (work / "b.txt").write_text("beta\n")
    read_a = ("call_0", "read_file", json.dumps({"path": "a.txt"}))
    read_b = ("call_0", "read_file", json.dumps({"path": "b.txt"}))
    # turn 1: call_0, then text; turn 2: call_0 twice in one response, then text
    server.enqueue(wire.calls([read_a]), wire.text("read a"),
                   wire.calls([read_a, read_b]), wire.text("read both"))

    def run(prompt: str, *extra: str) -> list[dict]:
        proc = raw_tui("--config", str(cfg / "raw.json"), "--cwd", str(work), "run", prompt,
                       "--output", "jsonl", *extra)
        assert proc.returncode == 0, proc.stderr
        return [json.loads(line) for line in proc.stdout.splitlines()]

    one = run("first")
    run("second", "--continue")
    bodies = [r.body for r in server.requests]
    assert len(bodies) == 4
    for body in bodies:
        sent = ids_sent(wire, body)
        assert len(sent) == len(set(sent)), sent  # no id for two calls in one request
        assert sorted(i for i, _ in wire.results(body)) == sorted(sent)
    last = bodies[-1]
    assert ids_sent(wire, last) == ["call_0", "call_0-2", "call_0-3"]
    # each result goes back under the key of its own call: b.txt's under the third
    results = dict(wire.results(last))
    assert "alpha" in str(results["call_0-2"]) and "beta" in str(results["call_0-3"])
    assert_calls_keyed(stored(one[0]["session_id"]))
