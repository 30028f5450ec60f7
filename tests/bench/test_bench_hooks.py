"""Issue 4 benchmarks: a PreToolUse through the whole hook path against spawning the same
command by hand, and encoding a hook payload with msgspec against json.dumps."""

from __future__ import annotations

import asyncio
import json
import sys

from raw_tui.protocol.bus import Bus
from raw_tui.frozen import freeze
from raw_tui.hooks import HookDispatcher, encode_payload, load_hooks
from raw_tui.hooks.dispatcher import _tool
from raw_tui.hooks.payload import HookPayload
from raw_tui.hooks.runner import hook_argv
from raw_tui.tools.ports import CallInfo
from tests.engine.hooks.hook_kit import TOOLS

CALL = CallInfo(identity="builtin/bash", name="bash", call_id="c1",
                arguments=freeze({"commands": [{"command": "printf hi"}]}), effects=None,
                has_effects=False, turn_id="t1")

HOOKS = {
    # a shell hook that reads its stdin and says nothing: the cheapest real hook
    "sh": ("hook.sh", "#!/bin/sh\nexec cat >/dev/null\n"),
    # the same in Python, as most hooks are written
    "python": ("hook.py", f"#!{sys.executable} -S\nimport sys\nsys.stdin.read()\n"),
}


def _hook(config_dir, kind: str) -> None:
    name = f"tiny-{kind}"
    filename, body = HOOKS[kind]
    folder = config_dir / "hooks" / name
    folder.mkdir(parents=True)
    (folder / filename).write_text(body)
    (folder / filename).chmod(0o755)
    (folder / "hook.json").write_text(json.dumps({
        "protocol_version": 2, "name": name, "events": [{"name": "PreToolUse"}],
        "command": f"./{filename}"}))


def _measure(tmp_path, kind: str, n: int) -> tuple[float, float]:
    from tests.bench.bench_kit import best_of

    _hook(tmp_path, kind)
    hookset = load_hooks([f"agent/tiny-{kind}"], config_dir=tmp_path, tools=TOOLS,
                         where=["hooks", "use"], file="raw.json")
    hooks = HookDispatcher(hookset, Bus(), cwd=str(tmp_path), agent_id="a", session_id="s")
    [hook] = hookset
    argv = hook_argv(hook, hook.workdir())
    data = encode_payload(HookPayload(event="PreToolUse", cwd=str(tmp_path), agent_id="a",
                                      session_id="s", turn_id="t1", tool=_tool(CALL))) + b"\n"

    async def ours(count: int) -> None:
        for _ in range(count):
            outcome = await hooks.pre_tool_use(CALL, asyncio.Event())
            assert outcome.allowed, outcome

    async def by_hand(count: int) -> None:
        for _ in range(count):
            proc = await asyncio.create_subprocess_exec(
                *argv, cwd=str(tmp_path), stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            out, _ = await proc.communicate(data)
            assert proc.returncode == 0 and out == b""

    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(ours(2))
        loop.run_until_complete(by_hand(2))
        # interleave the two so drift on a busy machine hits both alike
        mine, theirs = [], []
        for _ in range(5):
            mine.append(best_of(lambda: loop.run_until_complete(ours(n)), repeat=1) / n)
            theirs.append(best_of(lambda: loop.run_until_complete(by_hand(n)), repeat=1) / n)
    finally:
        loop.close()
        hookset.close()
    return min(mine), min(theirs)


def test_pre_tool_use_against_spawning_the_command_by_hand(tmp_path):
    from tests.bench.bench_kit import report

    ratios = {}
    for kind in HOOKS:
        folder = tmp_path / kind
        folder.mkdir()
        ours, by_hand = _measure(folder, kind, 20)
        ratios[kind] = report(f"PreToolUse through the hook path ({kind} hook) vs "
                              "create_subprocess_exec + communicate", ours, by_hand, 1.2)
    # the target is 1.2×; the margin absorbs a noisy two-core machine
    assert max(ratios.values()) <= 1.2 * 1.5, ratios


def _payload_2kib() -> HookPayload:
    commands = [{"command": f"printf 'line {i}: ünïcode and \"quotes\"' >> notes-{i}.txt"}
                for i in range(25)]
    payload = HookPayload(event="PreToolUse", cwd="/home/user/project", agent_id="coder",
                          session_id="s18f2a9c0d1e2f3", turn_id="t18f2a9c0d4a5b6",
                          tool=_tool(CallInfo(identity="builtin/bash", name="bash",
                                              call_id="c", arguments=freeze({"commands": commands}),
                                              effects=None, has_effects=False, turn_id="t")))
    size = len(encode_payload(payload))
    assert 1950 <= size <= 2150, size
    return payload


def test_encoding_a_2_kib_payload_msgspec_against_json_dumps():
    import msgspec

    from tests.bench.bench_kit import best_of, report

    payload = _payload_2kib()
    plain = msgspec.to_builtins(payload)  # what json.dumps would be given
    assert json.loads(encode_payload(payload)) == json.loads(json.dumps(plain))
    n = 2000
    ours = best_of(lambda: encode_payload(payload), repeat=7, number=n)
    theirs = best_of(lambda: json.dumps(plain, ensure_ascii=False).encode(), repeat=7, number=n)
    size = len(encode_payload(payload))
    ratio = report(f"encode a {size}-byte hook payload: msgspec vs json.dumps", ours, theirs)
    assert ratio < 1.0  # no target is set; msgspec from a Struct beats json.dumps from a dict
