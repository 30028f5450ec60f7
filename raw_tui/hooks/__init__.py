"""Hooks: the `raw.hook/2` protocol (docs/hooks.md).

The whole API:

Loading (from the config loader; raises ConfigError, never runs a hook)
    load_hooks(use, *, config_dir, tools, where, file) -> HookSet
        `use`: `hooks.use`; `where`: JSON path of that array (e.g.
        ["agents", "coder", "hooks", "use"]); `file`: the config file as errors name it;
        `tools`: identity -> tool with .identity/.condition_sources/.input_schema/.effects_schema.
    HookSet: iterable of LoadedHook in order; .ids, .folders, .get(id), .close()
        (removes the materialised snapshots; call it when a set is dropped).

Running (from the session and from dispatch)
    HookDispatcher(hookset, bus, *, cwd, agent_id=None, session_id=None)
        await session_start(source="create"|"resume") -> list[HookEvent]
        await user_prompt_submit(text, turn_id, cancel) -> GateOutcome
        await pre_tool_use(call, cancel) -> GateOutcome            (ToolHooks, dispatch step 5)
        await post_tool_use(call, result, cancel) -> list[HookEvent] (ToolHooks)
        await stop(turn_id, run={status, code?, message?}, cancel=None) -> list[HookEvent]
        await session_end(cancel=None) -> list[HookEvent]
        swap(hookset) -> old hookset
      Receipts are published on the bus as `HookEvent` and returned. Post*, Stop and SessionEnd
      given a `cancel` get 2 s after it is set before their hook is ended (`aborted`).
    format_receipt(receipt) -> "Hook ID EVENT: OUTCOME[ · MESSAGE or CODE]"

Reloading between turns
    HookWatcher(reloader, *, dispatcher, bus, config_file)
        start(); take_pending() at each turn start (swaps, publishes HooksReload ok=True);
        await stop(). An invalid change publishes HooksReload(ok=False) and keeps the old set.

Command line
    hooks_test(hookset_or_loader, hook_id, event, payload_file, *, cwd=None) -> exit code
        `raw-tui hooks test ID --event EVENT [--payload FILE]`: 0 continued, 1 denied/error,
        2 config error.

Lower level: run_hook(hook, payload_bytes, *, gate, cwd, cancel=None) -> HookRun;
resolve_hook(id, *, config_dir) -> Path; parse_manifest(...); take_snapshot(...).
"""

from ..lazy import lazy_exports

# Imported on first use: loading a config must not pay for what it does not run.
__getattr__ = lazy_exports(__name__, {
    'default_payload': 'cli',
    'hooks_test': 'cli',
    'HookDispatcher': 'dispatcher',
    'format_receipt': 'dispatcher',
    'make_receipt': 'dispatcher',
    'HookSet': 'load',
    'LoadedHook': 'load',
    'load_hook': 'load',
    'load_hooks': 'load',
    'EVENTS': 'manifest',
    'GATE_EVENTS': 'manifest',
    'TOOL_EVENTS': 'manifest',
    'HookManifest': 'manifest',
    'Subscription': 'manifest',
    'parse_manifest': 'manifest',
    'HookPayload': 'payload',
    'RunInfo': 'payload',
    'ToolInfo': 'payload',
    'encode_payload': 'payload',
    'local_hooks_dir': 'resolve',
    'resolve_hook': 'resolve',
    'HookRun': 'runner',
    'run_hook': 'runner',
    'FolderSnapshot': 'snapshot',
    'take_snapshot': 'snapshot',
    'HookWatcher': 'watcher',
})

__all__ = [
    "EVENTS",
    "FolderSnapshot",
    "GATE_EVENTS",
    "TOOL_EVENTS",
    "HookDispatcher",
    "HookManifest",
    "HookPayload",
    "HookRun",
    "HookSet",
    "HookWatcher",
    "LoadedHook",
    "RunInfo",
    "Subscription",
    "ToolInfo",
    "default_payload",
    "encode_payload",
    "format_receipt",
    "hooks_test",
    "load_hook",
    "load_hooks",
    "local_hooks_dir",
    "make_receipt",
    "parse_manifest",
    "resolve_hook",
    "run_hook",
    "take_snapshot",
]
