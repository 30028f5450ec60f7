"""A tool's own Python code cannot wedge or end raw-tui: a module that blocks at import is
loaded off the event loop under a deadline (SIGINT and SIGTERM still end `run` and `call`
at once, cleanly), and any exception from tool code, `SystemExit` and `KeyboardInterrupt`
included, is that call's error while the run goes on. Real subprocesses of the command line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.headless_kit import run_end
from tests.config_kit import raw_tui, write_config, write_script, write_tool

TEXT = {"type": "object", "properties": {"text": {"type": "string"}}}
FILES = {"type": "object"}

# Module tops that never finish; each first leaves a mark (the import has begun).
BLOCKING = {
    "spin": "while True:\n    pass\n",
    "sleep": "import time\ntime.sleep(3600)\n",
}


def mark_then(body: str) -> str:
    return ("import os\nopen(os.environ['IMPORT_MARK'], 'a').close()\n" + body +
            "def validate_args(args):\n    return None\n"
            "def describe_effects(args, ctx):\n    return {}\n"
            "def preview(args, ctx):\n    return {'files': []}\n"
            "def handler(args, ctx):\n    return 'ran'\n")


def blocking_config(tmp_path: Path, body: str, *, stage: str) -> tuple[Path, Path]:
    """A tool `stuck` whose module blocks at import; `stage` says which of its functions the
    manifest declares (the first use of the module): handler, validate_args or effects."""
    cfg = tmp_path / "cfg"
    code = mark_then(body)
    if stage == "handler":  # nothing but a handler: the module loads in step 7
        code = code.split("def validate_args")[0] + "def handler(args, ctx):\n    return 'ran'\n"
        write_tool(cfg, "stuck", code, schema=TEXT)
    elif stage == "validate_args":
        code = code.replace("def describe_effects", "def _d").replace("def preview", "def _p")
        write_tool(cfg, "stuck", code, schema=TEXT)
    else:
        code = code.replace("def validate_args", "def _v")
        write_tool(cfg, "stuck", code, schema=TEXT, effects_schema=FILES,
                   condition_sources=["effects"])
    write_script(cfg, {"text": "Trying.", "tool_calls": [
        {"name": "stuck", "arguments": {"text": "x"}}]}, {"text": "Done."})
    write_config(cfg, {"tools": {"use": ["agent/stuck"]}})
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return cfg / "raw.json", work


def start(cfg: Path, work: Path, mark: Path, *command: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "raw_tui.cli", "--config", str(cfg), "--cwd", str(work),
         *command], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "IMPORT_MARK": str(mark)})


def wait_for(path: Path, proc: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            out, err = proc.communicate(timeout=5)
            raise AssertionError(f"the import never began: {proc.returncode} {err}")
        time.sleep(0.02)


def signal_while_importing(cfg, work, tmp_path, sig, *command):
    mark = tmp_path / "importing"
    proc = start(cfg, work, mark, *command)
    try:
        wait_for(mark, proc)
        time.sleep(0.2)  # well inside the import
        sent = time.monotonic()
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=20)
        took = time.monotonic() - sent
    finally:
        proc.kill()
        proc.wait()
    return proc, out, err, took


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
@pytest.mark.parametrize("stage", ["handler", "validate_args", "effects"])
@pytest.mark.parametrize("body", list(BLOCKING), ids=list(BLOCKING))
def test_a_signal_ends_run_while_a_tool_module_blocks_at_import(tmp_path, body, stage, sig):
    cfg, work = blocking_config(tmp_path, BLOCKING[body], stage=stage)
    proc, out, err, took = signal_while_importing(cfg, work, tmp_path, sig,
                                                  "run", "go", "--output", "jsonl")
    assert proc.returncode == 130, err
    assert took < 3, took
    events = [json.loads(line) for line in out.splitlines()]
    assert run_end(events)["status"] == "cancelled"
    assert [e["code"] for e in events if e["type"] == "tool_result"] == ["cancelled"]
    assert "Traceback" not in err


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
@pytest.mark.parametrize("body", list(BLOCKING), ids=list(BLOCKING))
def test_a_signal_ends_call_while_a_tool_module_blocks_at_import(tmp_path, body, sig):
    cfg, work = blocking_config(tmp_path, BLOCKING[body], stage="handler")
    proc, out, err, took = signal_while_importing(cfg, work, tmp_path, sig, "call", "stuck",
                                                  "--args", '{"text": "x"}')
    assert proc.returncode == 130, err
    assert took < 3, took
    report = json.loads(out)
    assert report["result"]["code"] == "cancelled"


def test_a_module_that_never_loads_is_the_call_s_error_after_its_deadline(tmp_path):
    """(each stage's code for it: tests/engine/test_tool_import.py)"""
    code, message = "tool_error", "stuck failed: its module did not load within 5 s"
    cfg, work = blocking_config(tmp_path, BLOCKING["spin"], stage="handler")
    started = time.monotonic()
    proc = raw_tui("--config", str(cfg), "--cwd", str(work), "run", "go", "--output", "jsonl",
                   env={"IMPORT_MARK": str(tmp_path / "importing")}, timeout=60)
    took = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    (result,) = [e for e in events if e["type"] == "tool_result"]
    assert result["code"] == code
    assert result["content"][0]["text"] == message
    assert run_end(events)["status"] == "completed"
    notices = [e["message"] for e in events if e["type"] == "notice"]
    assert any("left running in its thread" in n for n in notices), notices
    assert took < 20


# -- item 4: BaseException from tool code -------------------------------------------------

RAISES = {
    "exit": "import sys\n    sys.exit(4)",
    "interrupt": "raise KeyboardInterrupt",
    "base": "raise BaseException('odd')",
    "generator_exit": "raise GeneratorExit",
}


def raising_tool(cfg: Path, where: str, raises: str, *, is_async: bool = False) -> None:
    funcs = {"validate_args": "def validate_args(args):\n    return None\n",
             "describe_effects": "def describe_effects(args, ctx):\n    return {}\n",
             "preview": "def preview(args, ctx):\n    return {'files': []}\n",
             "handler": "def handler(args, ctx):\n    return 'ran'\n"}
    head = {"validate_args": "def validate_args(args):\n",
            "describe_effects": "def describe_effects(args, ctx):\n",
            "preview": "def preview(args, ctx):\n",
            "handler": ("async " if is_async else "") + "def handler(args, ctx):\n"}[where]
    funcs[where] = head + "    " + raises + "\n"
    write_tool(cfg, "rude", "".join(funcs.values()), schema=TEXT, effects_schema=FILES,
               condition_sources=["effects"])


@pytest.mark.parametrize("raises", list(RAISES))
@pytest.mark.parametrize("is_async", [False, True], ids=["plain", "async"])
def test_run_goes_on_when_a_handler_raises_a_base_exception(tmp_path, raises, is_async):
    cfg = tmp_path / "cfg"
    raising_tool(cfg, "handler", RAISES[raises], is_async=is_async)
    write_script(cfg, {"text": "Trying.", "tool_calls": [
        {"name": "rude", "arguments": {"text": "x"}}]}, {"text": "After it."})
    write_config(cfg, {"tools": {"use": ["agent/rude"]}})
    proc = raw_tui("--config", str(cfg / "raw.json"), "--cwd", str(tmp_path), "run", "go",
                   "--output", "jsonl")
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    (result,) = [e for e in events if e["type"] == "tool_result"]
    assert result["isError"] and result["code"] == "tool_error"
    assert result["content"][0]["text"].startswith("rude failed: ")
    assert run_end(events)["status"] == "completed"
    assert [e["text"] for e in events if e["type"] == "assistant_text"][-1] == "After it."


@pytest.mark.parametrize("raises", list(RAISES))
@pytest.mark.parametrize("where,stage,code", [
    ("validate_args", "validation", "invalid_arguments"),
    ("describe_effects", "effects", "effects_error"),
    ("handler", "handler", "tool_error"),
])
def test_call_reports_a_base_exception_as_the_stage_s_code(tmp_path, raises, where, stage,
                                                           code):
    cfg = tmp_path / "cfg"
    raising_tool(cfg, where, RAISES[raises])
    write_config(cfg, {"tools": {"use": ["agent/rude"]}})
    proc = raw_tui("--config", str(cfg / "raw.json"), "--cwd", str(tmp_path), "call", "rude",
                   "--args", '{"text": "x"}')
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert (report["stage"], report["code"]) == (stage, code)
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("raises", list(RAISES))
def test_a_preview_that_raises_a_base_exception_is_a_note(tmp_path, raises):
    cfg = tmp_path / "cfg"
    raising_tool(cfg, "preview", RAISES[raises])
    write_config(cfg, {"tools": {"use": ["agent/rude"],
                                 "rules": [{"match": "agent/rude", "effect": "ask"}]}})
    proc = raw_tui("--config", str(cfg / "raw.json"), "--cwd", str(tmp_path), "call", "rude",
                   "--args", '{"text": "x"}', "--approve", "yes")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["outcome"] == "ran" and report["result"]["content"][0]["text"] == "ran"
