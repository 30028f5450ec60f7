"""Every hostile input gets one clean line (docs/security.md, "Hostile input"), driven from the outside: the real
command line in a subprocess. Each test failed before its fix with a traceback, a hang, or
a value handed on that the contract refuses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.engine.hooks.hook_kit import write_hook
from tests.config_kit import REPO, raw_tui, write_config, write_tool

DEEP = 5000  # far past Python's recursion limit
NUMBER_TOOL = """
import json
def handler(args, ctx):
    return "got " + repr(args["n"])
"""


def deep_array(depth: int = DEEP) -> str:
    return "[" * depth + "]" * depth


def deep_value(depth: int) -> object:
    value: object = {}
    for _ in range(depth):
        value = {"a": value}
    return value


def one_clean_line(proc: subprocess.CompletedProcess, code: int, *needles: str) -> str:
    """The process exited with `code` and said one line on stderr holding every needle."""
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    lines = proc.stderr.splitlines()
    assert proc.returncode == code, (proc.returncode, proc.stderr[-2000:])
    assert len(lines) == 1, proc.stderr[-2000:]
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def config_with(tmp_path: Path, use: list[str], **agent) -> Path:
    cfg = tmp_path / "cfg"
    write_config(cfg, {"tools": {"use": use, **agent.pop("tools", {})}, **agent})
    return cfg


# -- deep JSON: one decoder, one bound ------------------------------------------------------

def test_a_deep_raw_json_is_a_config_error(tmp_path):
    path = tmp_path / "raw.json"
    path.write_text('{"models": ' + deep_array() + "}")
    proc = raw_tui("--config", str(path), "config", "list")
    one_clean_line(proc, 2, "config error", str(path), "nested more than 64 levels deep")


def test_a_deep_tool_json_is_a_config_error(tmp_path):
    cfg = config_with(tmp_path, ["agent/deep"])
    folder = write_tool(cfg, "deep", "def handler(args, ctx):\n    return 'ok'\n")
    (folder / "tool.json").write_text('{"api_version": 2, "id": ' + deep_array() + "}")
    proc = raw_tui("--config", str(cfg / "raw.json"), "config", "list")
    one_clean_line(proc, 2, "config error", "tool.json", "nested more than 64 levels deep")


def test_a_deep_hook_json_is_a_config_error(tmp_path):
    cfg = tmp_path / "cfg"
    write_hook(cfg, "deep", "print('{}')\n")
    (cfg / "hooks" / "deep" / "hook.json").write_text('{"name": ' + deep_array() + "}")
    write_config(cfg, {"tools": {"use": ["builtin/bash"]}, "hooks": {"use": ["agent/deep"]}})
    proc = raw_tui("--config", str(cfg / "raw.json"), "config", "list")
    one_clean_line(proc, 2, "config error", "hook.json", "nested more than 64 levels deep")


def test_deep_call_args_are_an_argument_error(tmp_path):
    cfg = config_with(tmp_path, ["builtin/read_file"])
    proc = raw_tui("--config", str(cfg / "raw.json"), "call", "read_file", "--args",
                   deep_array())
    one_clean_line(proc, 2, "--args is not JSON", "nested more than 64 levels deep")


def test_a_deep_hooks_test_payload_is_a_config_error(tmp_path):
    cfg = tmp_path / "cfg"
    write_hook(cfg, "notify", "print('{}')\n", events=["Stop"])
    write_config(cfg, {"tools": {"use": ["builtin/bash"]}, "hooks": {"use": ["agent/notify"]}})
    payload = tmp_path / "payload.json"
    payload.write_text('{"run": ' + deep_array() + "}")
    proc = raw_tui("--config", str(cfg / "raw.json"), "hooks", "test", "agent/notify",
                   "--event", "Stop", "--payload", str(payload))
    one_clean_line(proc, 2, "error", str(payload), "nested more than 64 levels deep")


def test_a_hooks_test_payload_that_never_ends_is_a_config_error(tmp_path):
    # `--payload /dev/zero` read until memory ran out; a pipe (`<(jq ...)`) still works
    cfg = tmp_path / "cfg"
    write_hook(cfg, "notify", "print('{}')\n", events=["Stop"])
    write_config(cfg, {"tools": {"use": ["builtin/bash"]}, "hooks": {"use": ["agent/notify"]}})
    proc = raw_tui("--config", str(cfg / "raw.json"), "hooks", "test", "agent/notify",
                   "--event", "Stop", "--payload", "/dev/zero", timeout=30)
    one_clean_line(proc, 2, "error", "/dev/zero", "over the limit")
    piped = raw_tui("--config", str(cfg / "raw.json"), "hooks", "test", "agent/notify",
                    "--event", "Stop", "--payload", "/dev/stdin", input='{"run": {}}')
    assert piped.returncode == 0, piped.stderr


def test_a_deep_scripted_model_line_is_a_config_error(tmp_path):
    cfg = config_with(tmp_path, ["builtin/read_file"])
    (cfg / "script.jsonl").write_text('{"text": "fine"}\n{"tool_calls": ' + deep_array() + "}\n")
    proc = raw_tui("--config", str(cfg / "raw.json"), "run", "hi")
    one_clean_line(proc, 2, "config error", "script.jsonl:2", "nested more than 64 levels")


# -- deep schemas, recursive $ref, hostile entry modules and hook folders ------------------

def test_a_schema_too_deep_for_the_meta_schema_check_is_a_config_error(tmp_path):
    schema: dict = {"type": "string"}
    for _ in range(300):  # legal JSON for Python's parser; the meta-schema check recursed
        schema = {"type": "object", "properties": {"a": schema}}
    cfg = config_with(tmp_path, ["agent/nested"])
    write_tool(cfg, "nested", "def handler(args, ctx):\n    return 'ok'\n", schema=schema)
    proc = raw_tui("--config", str(cfg / "raw.json"), "config", "list")
    one_clean_line(proc, 2, "config error", "tool.json", "input_schema.properties.a")


RECURSIVE_EFFECTS = {"type": "object", "$ref": "#/$defs/node", "$defs": {"node": {
    "type": "object", "additionalProperties": {"$ref": "#/$defs/node"}}}}


@pytest.mark.parametrize("depth,detail", [
    (300, "nested more than 64 levels deep"),  # deep JSON: refused before the schema
    (40, "nested too deeply for the schema"),  # a long chain of $ref on a legal depth
])
def test_an_effects_schema_with_a_recursive_ref_fed_a_deep_value(tmp_path, depth, detail):
    schema = RECURSIVE_EFFECTS
    if depth == 40:  # every level of the value walks 30 refs: legal depth, deep recursion
        defs = {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(30)}
        defs["d30"] = {"type": "object", "additionalProperties": {"$ref": "#/$defs/d0"}}
        schema = {"type": "object", "$defs": defs, "$ref": "#/$defs/d0"}
    code = f"""
def describe_effects(args, ctx):
    value = {{}}
    for _ in range({depth}):
        value = {{"a": value}}
    return value

def handler(args, ctx):
    return "ran"
"""
    cfg = config_with(tmp_path, ["agent/fx"])
    write_tool(cfg, "fx", code, effects_schema=schema)
    proc = raw_tui("--config", str(cfg / "raw.json"), "call", "fx", "--args", "{}")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    assert (report["stage"], report["code"]) == ("effects", "invalid_effects")
    assert detail in report["message"]


@pytest.mark.parametrize("source,detail", [
    ("x = " + "-" * 100_000 + "1\n", "nested too deeply"),  # MemoryError in the parser
    ("x = a" + "[0]" * 20_000 + "\n", "nested too deeply"),  # RecursionError in ast
    ("a = 1;" * 60_000 + "\n", "larger than 256 KiB"),  # seconds and hundreds of MB
], ids=["unary-minus", "subscripts", "large"])
def test_an_entry_module_that_breaks_the_parser_is_a_config_error(tmp_path, source, detail):
    cfg = config_with(tmp_path, ["agent/evil"])
    folder = write_tool(cfg, "evil", "")
    (folder / "tool.py").write_text("def handler(args, ctx):\n    return 'ok'\n" + source)
    proc = raw_tui("--config", str(cfg / "raw.json"), "config", "list")
    one_clean_line(proc, 2, "config error", "entry", detail)


def test_a_hook_folder_nested_1500_deep_is_a_config_error(tmp_path):
    cfg = tmp_path / "cfg"
    folder = write_hook(cfg, "deep", "print('{}')\n")
    fds = [os.open(folder, os.O_RDONLY)]
    try:  # relative steps: the full path would pass PATH_MAX
        for _ in range(1500):
            os.mkdir("d", dir_fd=fds[-1])
            fds.append(os.open("d", os.O_RDONLY, dir_fd=fds[-1]))
        write_config(cfg, {"tools": {"use": ["builtin/bash"]},
                           "hooks": {"use": ["agent/deep"]}})
        proc = raw_tui("--config", str(cfg / "raw.json"), "config", "list")
        one_clean_line(proc, 2, "config error", "folders nested deeper than 16 levels")
    finally:  # bottom up: pytest's recursive clean-up would fail on this depth
        os.close(fds.pop())
        while fds:
            os.rmdir("d", dir_fd=fds[-1])
            os.close(fds.pop())


# -- 1e999 and friends: refused, never inf for the handler and null for the hooks ----------

@pytest.mark.parametrize("args", ['{"n": 1e999}', '{"n": -1e999}', '{"n": Infinity}'])
def test_an_infinite_number_in_call_args_is_refused(tmp_path, args):
    cfg = config_with(tmp_path, ["agent/num"])
    write_tool(cfg, "num", NUMBER_TOOL, schema={"type": "object",
                                                "properties": {"n": {"type": "number"}}})
    proc = raw_tui("--config", str(cfg / "raw.json"), "call", "num", "--args", args)
    one_clean_line(proc, 2, "--args is not JSON")
    assert proc.stdout == ""


def test_an_infinite_number_in_a_scripted_call_never_reaches_the_handler(tmp_path):
    cfg = config_with(tmp_path, ["agent/num"])
    write_tool(cfg, "num", NUMBER_TOOL, schema={"type": "object",
                                                "properties": {"n": {"type": "number"}}})
    (cfg / "script.jsonl").write_text(
        '{"tool_calls": [{"name": "num", "arguments": "{\\"n\\": 1e999}"}]}\n'
        '{"tool_calls": [{"name": "num", "arguments": {"n": 1e999}}]}\n')
    proc = raw_tui("--config", str(cfg / "raw.json"), "run", "hi", "--output", "jsonl")
    one_clean_line(proc, 2, "config error", "script.jsonl:2", "out of range")
    (cfg / "script.jsonl").write_text(
        '{"tool_calls": [{"name": "num", "arguments": "{\\"n\\": 1e999}"}]}\n')
    proc = raw_tui("--config", str(cfg / "raw.json"), "run", "hi", "--output", "jsonl")
    results = [json.loads(line) for line in proc.stdout.splitlines()]
    result = next(e for e in results if e["type"] == "tool_result")
    assert result["isError"] and result["code"] == "invalid_arguments"
    assert "got" not in json.dumps(result)


# -- the history database -------------------------------------------------------------------

def history_path(isolated_home: Path) -> Path:
    return isolated_home / "state" / "raw-tui" / "history.sqlite3"


def break_history(isolated_home: Path, how: str) -> Path:
    path = history_path(isolated_home)
    if how == "corrupt":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"this is not a database\n" * 100)
    else:  # the state folder is a file
        path.parent.parent.mkdir(parents=True, exist_ok=True)
        path.parent.write_text("a file\n")
    return path


@pytest.mark.parametrize("how", ["corrupt", "state_is_a_file"])
@pytest.mark.parametrize("command", [["run", "hi"], ["sessions", "list"],
                                     ["sessions", "show", "s1"], ["--continue"]])
def test_a_broken_history_is_one_line_naming_the_path(tmp_path, isolated_home, how, command):
    cfg = config_with(tmp_path, ["builtin/read_file"])
    path = break_history(isolated_home, how)
    if command == ["--continue"]:  # the UI opens its session with the same store
        command = ["run", "--continue", "hi"]
    proc = raw_tui("--config", str(cfg / "raw.json"), *command)
    one_clean_line(proc, 1, f"raw-tui: history {path}: ")


# -- broken pipes ---------------------------------------------------------------------------

def closed_pipe_run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run the command line with stdout a pipe whose reader is already gone."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([sys.executable, "-m", "raw_tui.cli", *args], cwd=cwd,
                              stdout=write, stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(write)


def saved_session(tmp_path: Path) -> tuple[Path, str]:
    cfg = config_with(tmp_path, ["builtin/read_file"])
    (cfg / "script.jsonl").write_text(json.dumps({"text": "word " * 20000}) + "\n")
    proc = raw_tui("--config", str(cfg / "raw.json"), "run", "hi")
    assert proc.returncode == 0, proc.stderr
    session_id = raw_tui("sessions", "list").stdout.split()[0]
    return cfg, session_id


def test_commands_writing_to_a_closed_pipe_end_quietly(tmp_path):
    cfg, session_id = saved_session(tmp_path)
    commands = [["call", "read_file", "--args", json.dumps({"path": str(cfg / "raw.json")})],
                ["sessions", "list"], ["sessions", "show", session_id],
                ["sessions", "show", session_id, "--output", "text"],
                ["config", "list"], ["config", "list", "--json"]]
    for command in commands:
        proc = closed_pipe_run("--config", str(cfg / "raw.json"), *command)
        assert proc.stderr == "", (command, proc.stderr[-2000:])
        assert proc.returncode == 141, (command, proc.returncode)


def test_head_reads_one_line_and_the_rest_ends_quietly(tmp_path):
    cfg, session_id = saved_session(tmp_path)
    for command in (f"sessions show {session_id}", "sessions list",
                    f"call read_file --args '{{\"path\": \"{cfg / 'script.jsonl'}\"}}'"):
        shell = (f"'{sys.executable}' -m raw_tui.cli --config '{cfg / 'raw.json'}' {command}"
                 " | head -1")
        proc = subprocess.run(["bash", "-c", shell], capture_output=True, text=True,
                              timeout=60, cwd=REPO)
        assert proc.returncode == 0 and len(proc.stdout.splitlines()) == 1, proc
        assert proc.stderr == "", proc.stderr[-2000:]


# -- control characters in text output ------------------------------------------------------

HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x9b31m\r"
ESCAPED = "\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\x0d"


def test_text_output_shows_control_characters_escaped(tmp_path):
    cfg = tmp_path / "cfg"
    write_hook(cfg, "loud", f"print(json.dumps({{'message': {HOSTILE!r}}}))\n"
               f"sys.stderr.write({HOSTILE!r} + '\\n')\n", events=["PreToolUse"])
    write_tool(cfg, "echo", f"def handler(args, ctx):\n    return {HOSTILE!r}\n")
    write_config(cfg, {"tools": {"use": ["agent/echo"]}, "hooks": {"use": ["agent/loud"]}})
    (cfg / "script.jsonl").write_text(
        json.dumps({"text": f"model says {HOSTILE}",
                    "tool_calls": [{"name": "echo", "arguments": {}}]}) + "\n")
    proc = raw_tui("--config", str(cfg / "raw.json"), "run", "hi")
    assert proc.returncode == 0, proc.stderr
    for control in "\x1b\x07\x9b\r":
        assert control not in proc.stdout and control not in proc.stderr
    assert f"model says {ESCAPED}" in proc.stdout  # the model's text
    assert f"echo: ok · {ESCAPED[:-4]}" in proc.stdout  # the tool's output (\r is a space)
    assert f"PreToolUse: continued · {ESCAPED}" in proc.stdout  # the hook's message

    session_id = raw_tui("sessions", "list").stdout.split()[0]
    shown = raw_tui("sessions", "show", session_id, "--output", "text")
    assert "\x1b" not in shown.stdout and f"model says {ESCAPED}" in shown.stdout
    jsonl = raw_tui("sessions", "show", session_id)  # JSON escapes C0 by itself
    assert "\x1b" not in jsonl.stdout and "\\u001b]0;pwned" in jsonl.stdout

    tested = raw_tui("--config", str(cfg / "raw.json"), "hooks", "test", "agent/loud",
                     "--event", "PreToolUse")
    assert "\x1b" not in tested.stdout + tested.stderr
    assert ESCAPED in tested.stderr and ESCAPED in tested.stdout.splitlines()[0]


def test_json_output_shows_c1_controls_escaped(tmp_path):
    # JSON encoders escape C0 but leave DEL and C1 (U+009B is CSI to xterm) raw: every JSON
    # a command prints (run --output jsonl, sessions show, call, hooks test) escapes them
    cfg = tmp_path / "cfg"
    write_hook(cfg, "loud", f"print(json.dumps({{'message': {HOSTILE!r}}}, ensure_ascii=False))\n",
               events=["PreToolUse"])
    write_tool(cfg, "echo", f"def handler(args, ctx):\n    return {HOSTILE!r} + '\\x7f'\n")
    write_config(cfg, {"tools": {"use": ["agent/echo"]}, "hooks": {"use": ["agent/loud"]}})
    (cfg / "script.jsonl").write_text(
        json.dumps({"text": f"model says {HOSTILE}",
                    "tool_calls": [{"name": "echo", "arguments": {}}]}) + "\n")
    config = ("--config", str(cfg / "raw.json"))
    run = raw_tui(*config, "run", "hi", "--output", "jsonl")
    session_id = raw_tui("sessions", "list").stdout.split()[0]
    shown = raw_tui("sessions", "show", session_id)
    called = raw_tui(*config, "call", "echo", "--args", "{}")
    tested = raw_tui(*config, "hooks", "test", "agent/loud", "--event", "PreToolUse")
    for proc in (run, shown, called, tested):
        assert "\x9b" not in proc.stdout and "\x7f" not in proc.stdout, proc.args
        assert "\\u009b31m" in proc.stdout, proc.args
    assert "\\u007f" in called.stdout
    events = [json.loads(line) for line in run.stdout.splitlines()]
    assert events[-1]["type"] == "run_end"
    assert any(e.get("text") == f"model says {HOSTILE}" for e in events)  # the same text


@pytest.mark.parametrize("command", [["run", "hi"], ["call", "bash", "--args", "{}"],
                                     ["config", "list"]])
@pytest.mark.parametrize("what", ["missing", "file"])
def test_a_cwd_that_is_not_a_directory_is_one_line(tmp_path, command, what):
    # a session there would spawn nothing (every hook and bash call failing with `spawn`)
    # and be saved under a directory that does not exist
    cwd = tmp_path / "nowhere"
    if what == "file":
        cwd.write_text("")
    cfg = config_with(tmp_path, ["builtin/bash"])
    proc = raw_tui("--config", str(cfg / "raw.json"), "--cwd", str(cwd), *command)
    one_clean_line(proc, 2, "--cwd", str(cwd), "not a directory")
    assert proc.stdout == ""


def test_a_removed_current_directory_is_one_line(tmp_path):
    gone = tmp_path / "gone"
    gone.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "raw_tui.cli", "config", "list"],
                            cwd=gone, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True,
                            preexec_fn=lambda: os.rmdir(gone))
    out, err = proc.communicate(timeout=60)
    done = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    one_clean_line(done, 2, "the current directory no longer exists")


def test_a_directory_or_session_id_not_valid_utf8_is_no_traceback(tmp_path):
    # a folder named with a byte that is not UTF-8 (`d\\xff`) arrives as a lone surrogate,
    # which SQLite cannot bind: the session is saved under `d\\xff` and found again
    cfg = config_with(tmp_path, ["builtin/bash"])
    (cfg / "script.jsonl").write_text(json.dumps({"text": "hello"}) + "\n")
    work = tmp_path / "d\udcff"
    work.mkdir()
    config = ("--config", str(cfg / "raw.json"), "--cwd", str(work))
    first = raw_tui(*config, "run", "hi")
    assert first.returncode == 0, first.stderr[-2000:]
    again = raw_tui(*config, "run", "--continue", "again")
    assert again.returncode == 0, again.stderr[-2000:]
    listed = raw_tui("sessions", "list").stdout.splitlines()
    assert len(listed) == 1 and "d\\xff" in listed[0], listed
    for command in ("show", "delete"):
        unknown = raw_tui("sessions", command, "s\udcff")
        one_clean_line(unknown, 1, "unknown session")


def test_sessions_list_is_one_line_per_session_whatever_the_folder_name(tmp_path):
    # a newline in a folder name must not start a second row (one that could pass for a
    # session of its own); a tab is shown escaped too
    cfg = config_with(tmp_path, ["builtin/bash"])
    (cfg / "script.jsonl").write_text(json.dumps({"text": "hello"}) + "\n")
    work = tmp_path / "a\ns0fake  2026-01-01 00:00  main\tb"
    work.mkdir()
    proc = raw_tui("--config", str(cfg / "raw.json"), "--cwd", str(work), "run", "hi")
    assert proc.returncode == 0, proc.stderr[-2000:]
    listed = raw_tui("sessions", "list").stdout.splitlines()
    assert len(listed) == 1, listed
    assert "a\\x0as0fake  2026-01-01 00:00  main\\x09b" in listed[0]


@pytest.mark.parametrize("target", ["/dev/zero", "fifo", "huge"])
@pytest.mark.parametrize("field", ["system_prompt_file", "script"])
def test_a_file_that_never_ends_is_one_line(tmp_path, target, field):
    # system_prompt_file or a scripted model's script naming /dev/zero read until memory ran
    # out (a MemoryError traceback), a FIFO blocked for ever, a huge file was read whole
    if target == "fifo":
        target = tmp_path / "fifo"
        os.mkfifo(target)
    elif target == "huge":
        target = tmp_path / "huge"
        with open(target, "wb") as file:
            file.truncate(64 * 1024 * 1024)  # sparse: no disk used
    cfg = tmp_path / "cfg"
    agent = {"tools": {"use": ["builtin/bash"]}}
    models = {"m": {"method": "scripted", "script": "script.jsonl"}}
    if field == "system_prompt_file":
        agent["system_prompt_file"] = str(target)
    else:
        models["m"]["script"] = str(target)
    write_config(cfg, agent, models=models)
    proc = raw_tui("--config", str(cfg / "raw.json"), "run", "hi", timeout=30)
    one_clean_line(proc, 2, str(target))


def test_stderr_lines_show_control_characters_escaped(tmp_path):
    path = tmp_path / "raw.json"
    path.write_text('{"models": {}, "agents": {}, "\\u001b]0;pwned\\u0007": 1}')
    proc = raw_tui("--config", str(path), "config", "list")
    line = one_clean_line(proc, 2, "unknown field")
    assert "\\x1b]0;pwned\\x07" in line


def test_a_schema_whose_dialect_is_not_a_string_is_a_config_error(tmp_path):
    """Found by the fuzzer: `$schema` holding an object was looked up in a set."""
    cfg = config_with(tmp_path, ["agent/dialect"])
    write_tool(cfg, "dialect", "def handler(args, ctx):\n    return 'ok'\n",
               schema={"type": "object", "$schema": {}})
    proc = raw_tui("--config", str(cfg / "raw.json"), "config", "list")
    one_clean_line(proc, 2, "config error", "input_schema.$schema: invalid schema")
