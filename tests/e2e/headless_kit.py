"""`raw-tui run` as a subprocess with a scripted model, for the tests that read its JSONL
events: a config beside hooks (`config_with`), the run (`run`), what the events hold and what
the history keeps (`stored`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.config_kit import REPO, raw_tui, write_config, write_script

NO_LOG = {"RAW_TUI_HOOK_LOG": ""}  # the log hook does nothing without it


def run(cfg: Path, work: Path, prompt: str = "go", *extra: str, env: dict | None = None,
        output: str = "jsonl"):
    proc = raw_tui("--config", str(cfg), "--cwd", str(work), "run", prompt, "--output", output,
                   *extra, env={**NO_LOG, **(env or {})})
    events = [json.loads(line) for line in proc.stdout.splitlines()] if output == "jsonl" else []
    return proc, events


def kinds(events, skip=("turn_state", "assistant_delta", "tool_output")):
    """The event types in order, without the streamed ones."""
    return [e["type"] for e in events if e["type"] not in skip]


def run_end(events):
    ends = [e for e in events if e["type"] == "run_end"]
    assert len(ends) == 1, ends
    return ends[0]


def stored(session_id: str) -> list[dict]:
    shown = raw_tui("sessions", "show", session_id)
    assert shown.returncode == 0, shown.stderr
    return [json.loads(line) for line in shown.stdout.splitlines()]


def config_with(tmp_path: Path, hooks: list[str], *lines: dict, copy: tuple[str, ...] = (),
                use=("builtin/read_file", "builtin/write_file", "builtin/bash"), rules=(),
                **agent) -> tuple[Path, Path]:
    """A temp config beside copies of the repository's example hooks named in `copy`."""
    cfg = tmp_path / "cfg"
    write_script(cfg, *lines)
    for name in copy:
        shutil.copytree(REPO / "hooks" / name, cfg / "hooks" / name)
    write_config(cfg, {"tools": {"use": list(use), "rules": list(rules)},
                       "hooks": {"use": hooks}, **agent})
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return cfg / "raw.json", work
