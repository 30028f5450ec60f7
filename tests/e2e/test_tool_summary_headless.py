"""A call's one-line summary (docs/decisions.md), through `raw-tui run` JSONL:
a tool's own `summarize`, the generic line for a tool without one (or whose summarize
raises, returns no text, or writes lines and controls), never stopping the call."""

from __future__ import annotations

import json

from tests.config_kit import raw_tui, write_config, write_script, write_tool

TOOLS = {
    "own": 'def summarize(args, ctx):\n    return f"own: {args[\'text\']} in {ctx.cwd}"\n',
    "plain": "",
    "raises": "def summarize(args, ctx):\n    raise RuntimeError('no')\n",
    "silent": "def summarize(args, ctx):\n    return 42\n",
    "messy": "def summarize(args, ctx):\n    return 'two\\nlines \\x1b[2J' + 'x' * 500\n",
}
HANDLER = "\ndef handler(args, ctx):\n    return 'ran'\n"


def test_summaries_come_from_the_tool_or_the_engine_and_never_stop_a_call(tmp_path):
    cfg = tmp_path / "cfg"
    for tool_id, code in TOOLS.items():
        write_tool(cfg, tool_id, code + HANDLER)
    write_script(cfg, {"tool_calls": [{"name": tool_id, "arguments": {"text": "hello"}}
                                      for tool_id in TOOLS]},
                 {"tool_calls": [{"name": "read_file", "arguments": {"path": "sub/a.txt"}}]})
    write_config(cfg, {"tools": {"use": [f"agent/{t}" for t in TOOLS] + ["builtin/read_file"]}})
    work = tmp_path / "w"
    (work / "sub").mkdir(parents=True)
    (work / "sub" / "a.txt").write_text("a\n")
    proc = raw_tui("--config", str(cfg / "raw.json"), "--cwd", str(work), "run", "go",
                   "--output", "jsonl")
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    summaries = [e["summary"] for e in events if e["type"] == "tool_call"]
    assert summaries[:4] == [f"own: hello in {work}", "plain hello", "raises hello",
                             "silent hello"]
    messy = summaries[4]
    assert messy.startswith("two lines \\x1b[2J") and len(messy) == 120 and messy[-1] == "…"
    assert summaries[5] == "read_file sub/a.txt"
    results = [e for e in events if e["type"] == "tool_result"]
    assert [r["isError"] for r in results] == [False] * 6
