"""The runner's rows (docs/hooks.md), each with a real hook process."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from raw_tui.hooks import run_hook
from raw_tui.hooks.runner import MAX_INPUT_BYTES

from hook_kit import load, write_hook
from tests.config_kit import alive

PAYLOAD = b'{"protocol_version":2,"event":"PreToolUse","cwd":"/"}'


async def run(tmp_path: Path, script: str | None, *, gate: bool = True, payload: bytes = PAYLOAD,
              cancel: asyncio.Event | None = None, **fields):
    write_hook(tmp_path, "h", script, **fields)
    hookset = load(tmp_path, ["agent/h"])
    try:
        return await run_hook(hookset.get("agent/h"), payload, gate=gate, cwd=str(tmp_path),
                              cancel=cancel)
    finally:
        hookset.close()


@pytest.mark.parametrize("gate", [True, False])
async def test_empty_stdout_and_exit_0_continues(tmp_path, gate):
    result = await run(tmp_path, "sys.stdin.read()", gate=gate)
    assert (result.outcome, result.code, result.decision) == ("continued", None, "continue")


async def test_whitespace_only_stdout_continues(tmp_path):
    result = await run(tmp_path, "print()\nprint('  ')")
    assert result.outcome == "continued"


async def test_continue_json(tmp_path):
    result = await run(tmp_path, "print(json.dumps({'decision': 'continue', 'message': 'ok'}))")
    assert (result.outcome, result.message) == ("continued", "ok")


async def test_deny_json_with_reason(tmp_path):
    result = await run(tmp_path, "print(json.dumps({'decision': 'deny', 'reason': 'no rm'}))")
    assert (result.outcome, result.reason, result.code) == ("denied", "no rm", None)


async def test_exit_2_on_gate_denies_whatever_stdout_says(tmp_path):
    result = await run(tmp_path, "print(json.dumps({'decision': 'continue'}))\nsys.exit(2)")
    assert result.outcome == "denied"


async def test_exit_2_with_garbage_still_denies(tmp_path):
    result = await run(tmp_path, "print('garbage')\nsys.exit(2)")
    assert (result.outcome, result.code) == ("denied", None)


async def test_exit_2_on_notification_is_an_exit_error(tmp_path):
    result = await run(tmp_path, "sys.exit(2)", gate=False)
    assert (result.outcome, result.code) == ("error", "exit")


@pytest.mark.parametrize("gate", [True, False])
async def test_exit_1_is_an_exit_error(tmp_path, gate):
    result = await run(tmp_path, "print(json.dumps({'decision': 'continue'}))\nsys.stderr.write('boom')\nsys.exit(1)",
                       gate=gate)
    assert (result.outcome, result.code, result.returncode) == ("error", "exit", 1)
    assert result.stderr == b"boom"


@pytest.mark.parametrize("stdout", [
    "garbage",
    "[1, 2]",
    '"deny"',
    '{"decision": "deny"} {"decision": "continue"}',
    '{"decision": "maybe"}',
    '{"decision": "deny", "extra": 1}',
    '{"reason": 5}',
])
async def test_malformed_output_is_invalid_output(tmp_path, stdout):
    result = await run(tmp_path, f"sys.stdout.write({stdout!r})")
    assert (result.outcome, result.code) == ("error", "invalid_output")


async def test_non_utf8_output_is_invalid(tmp_path):
    result = await run(tmp_path, "sys.stdout.buffer.write(b'\\xff\\xfe')")
    assert result.code == "invalid_output"


async def test_decision_on_notification_event_is_invalid(tmp_path):
    result = await run(tmp_path, "print(json.dumps({'decision': 'continue'}))", gate=False)
    assert (result.outcome, result.code) == ("error", "invalid_output")


async def test_message_on_notification_event(tmp_path):
    result = await run(tmp_path, "print(json.dumps({'message': 'done'}))", gate=False)
    assert (result.outcome, result.message) == ("continued", "done")


async def test_reason_limit_is_1024_bytes(tmp_path):
    ok = await run(tmp_path, "print(json.dumps({'decision': 'deny', 'reason': 'é' * 512}))")
    assert (ok.outcome, len(ok.reason.encode())) == ("denied", 1024)
    long = await run(tmp_path, "print(json.dumps({'decision': 'deny', 'reason': 'é' * 512 + 'x'}))")
    assert (long.outcome, long.code) == ("error", "invalid_output")


async def test_message_limit_is_512_bytes(tmp_path):
    ok = await run(tmp_path, "print(json.dumps({'message': 'm' * 512}))")
    assert ok.outcome == "continued"
    long = await run(tmp_path, "print(json.dumps({'message': 'm' * 513}))")
    assert (long.outcome, long.code) == ("error", "invalid_output")


async def test_stdout_flood_is_output_too_large_and_ended_early(tmp_path):
    started = time.monotonic()
    result = await run(tmp_path, "while True:\n    sys.stdout.write('x' * 4096)\n    sys.stdout.flush()",
                       timeout_ms=20000)
    assert (result.outcome, result.code) == ("error", "output_too_large")
    assert time.monotonic() - started < 5  # ended at the cap, not at the timeout


async def test_stdout_and_stderr_share_the_cap(tmp_path):
    script = ("sys.stdout.write('o' * 40000); sys.stdout.flush()\n"
              "sys.stderr.write('e' * 40000); sys.stderr.flush()")
    result = await run(tmp_path, script)
    assert result.code == "output_too_large"


async def test_output_just_under_the_cap_is_fine(tmp_path):
    result = await run(tmp_path, "sys.stderr.write('e' * (64 * 1024 - 10))")
    assert result.outcome == "continued"


async def test_hang_is_a_timeout(tmp_path):
    started = time.monotonic()
    result = await run(tmp_path, "time.sleep(60)", timeout_ms=300)
    assert (result.outcome, result.code) == ("error", "timeout")
    assert time.monotonic() - started < 3


async def test_sigterm_ignored_gets_sigkill_after_500ms(tmp_path):
    pidfile = tmp_path / "pid"
    script = f"""
signal.signal(signal.SIGTERM, signal.SIG_IGN)
open({str(pidfile)!r}, 'w').write(str(os.getpid()))
while True:
    time.sleep(0.05)
"""
    started = time.monotonic()
    result = await run(tmp_path, script, timeout_ms=300)
    elapsed = time.monotonic() - started
    assert result.code == "timeout"
    assert 0.75 <= elapsed < 3
    assert not alive(int(pidfile.read_text()))


async def test_background_grandchild_of_a_hanging_hook_is_killed(tmp_path):
    pidfile = tmp_path / "grandchild"
    script = f"""
child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
open({str(pidfile)!r}, 'w').write(str(child.pid))
time.sleep(60)
"""
    result = await run(tmp_path, script, timeout_ms=500)
    assert result.code == "timeout"
    grandchild = int(pidfile.read_text())
    for _ in range(50):
        if not alive(grandchild):
            break
        await asyncio.sleep(0.02)
    assert not alive(grandchild)


async def test_grandchild_holding_stdout_after_exit_is_ended(tmp_path):
    pidfile = tmp_path / "grandchild"
    script = f"""
child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])
open({str(pidfile)!r}, 'w').write(str(child.pid))
"""
    result = await run(tmp_path, script, timeout_ms=5000)
    assert result.outcome == "continued", result
    grandchild = int(pidfile.read_text())
    for _ in range(50):
        if not alive(grandchild):
            break
        await asyncio.sleep(0.02)
    assert not alive(grandchild)


async def test_missing_command_is_a_spawn_failure(tmp_path):
    result = await run(tmp_path, None, command="raw-tui-no-such-command-xyz")
    assert (result.outcome, result.code) == ("error", "spawn")


async def test_input_too_large_does_not_spawn(tmp_path):
    marker = tmp_path / "ran"
    payload = b'{"x":"' + b"a" * MAX_INPUT_BYTES + b'"}'
    result = await run(tmp_path, f"open({str(marker)!r}, 'w').write('1')", payload=payload)
    assert (result.outcome, result.code) == ("error", "input_too_large")
    assert not marker.exists()


async def test_input_at_the_limit_is_sent(tmp_path):
    payload = b'"' + b"a" * (MAX_INPUT_BYTES - 3) + b'"'  # + "\n" = exactly 1 MiB
    result = await run(tmp_path, "data = sys.stdin.buffer.read()\nassert len(data) == 1024 * 1024, len(data)",
                       payload=payload)
    assert result.outcome == "continued", result.stderr


async def test_cancel_aborts_and_kills(tmp_path):
    pidfile = tmp_path / "pid"
    cancel = asyncio.Event()
    script = f"open({str(pidfile)!r}, 'w').write(str(os.getpid()))\ntime.sleep(60)"
    task = asyncio.ensure_future(run(tmp_path, script, cancel=cancel, timeout_ms=20000))
    for _ in range(200):
        if pidfile.exists() and pidfile.read_text():
            break
        await asyncio.sleep(0.02)
    cancel.set()
    result = await asyncio.wait_for(task, 5)
    assert (result.outcome, result.code) == ("error", "aborted")
    assert not alive(int(pidfile.read_text()))


async def test_already_cancelled_does_not_spawn(tmp_path):
    marker = tmp_path / "ran"
    cancel = asyncio.Event()
    cancel.set()
    result = await run(tmp_path, f"open({str(marker)!r}, 'w').write('1')", cancel=cancel)
    assert result.code == "aborted"
    assert not marker.exists()


async def test_stdin_is_the_payload_and_a_newline_and_cwd_is_the_sessions(tmp_path):
    script = "data = sys.stdin.buffer.read()\nopen('got.bin', 'wb').write(data)"
    result = await run(tmp_path, script)
    assert result.outcome == "continued", result.stderr
    assert (tmp_path / "got.bin").read_bytes() == PAYLOAD + b"\n"


async def test_dot_args_resolve_inside_the_snapshot(tmp_path):
    folder = write_hook(tmp_path, "h", None, command="./run.py", args=["./data/conf.txt", "plain"])
    (folder / "data").mkdir()
    (folder / "data" / "conf.txt").write_text("conf")
    import sys as _sys
    (folder / "run.py").write_text(
        f"#!{_sys.executable}\nimport json, sys\n"
        "print(json.dumps({'message': open(sys.argv[1]).read() + ':' + sys.argv[2]}))\n")
    (folder / "run.py").chmod(0o755)
    hookset = load(tmp_path, ["agent/h"])
    try:
        result = await run_hook(hookset.get("agent/h"), PAYLOAD, gate=False, cwd=str(tmp_path))
    finally:
        hookset.close()
    assert result.message == "conf:plain"


async def test_a_duplicate_key_in_the_response_is_invalid_output(tmp_path):
    # Parsers disagree on which duplicate wins: on a gate the answer must not be a guess.
    result = await run(tmp_path, "sys.stdout.write('{\"decision\": \"deny\", \"decision\": \"continue\"}')")
    assert (result.outcome, result.code) == ("error", "invalid_output")


async def test_a_lone_surrogate_in_the_response_is_invalid_output(tmp_path):
    result = await run(tmp_path, "sys.stdout.write('{\"message\": \"\\\\ud800\"}')", gate=False)
    assert (result.outcome, result.code) == ("error", "invalid_output")
