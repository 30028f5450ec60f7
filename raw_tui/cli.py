"""The command line (docs/command-line.md): argument parsing and the subcommands, no logic of
its own. Only the bare `raw-tui` (the UI) and `serve` import textual."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

from .errors import (HISTORY_ERROR, HOST_FAILED, SESSION_LIVE, SOCKET_DIR_ERROR, UNKNOWN_SESSION,
                     ConfigError, RawError, json_path)

EXIT_OK, EXIT_ERROR, EXIT_CONFIG = 0, 1, 2
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a tool killed by the closed pipe would give
EXIT_CANCELLED = 130
UI_PREFS_FILE = "ui.json"  # in the XDG state dir: what the UI remembers (the theme)

VALUE_OPTIONS = ("--config", "--agent", "--model", "--cwd", "--resume")
FLAG_OPTIONS = {"--continue": "continue_", "--no-detach": "no_detach"}  # the UI's own flags


def _common():
    import argparse  # (only here and below: a bare `raw-tui` does without, _global_options)

    # Global options may stand before or after the subcommand; SUPPRESS keeps a
    # subcommand's parser from resetting what the main parser already read.
    common = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS)
    common.add_argument("--config", metavar="PATH", help="the raw.json to use")
    common.add_argument("--agent", metavar="NAME", help="the agent to run (default_agent)")
    common.add_argument("--model", metavar="ALIAS", help="a models alias, or scripted:PATH")
    common.add_argument("--cwd", metavar="DIR", help="the session's working directory")
    return common


def _add_run(sub, common) -> None:
    import argparse

    run = sub.add_parser("run", parents=[common], help="one headless run")
    run.add_argument("prompt", help="the prompt, or - to read it from stdin")
    run.add_argument("--output", choices=("text", "jsonl"), default="text")
    run.add_argument("--continue", dest="continue_", action="store_true",
                     default=argparse.SUPPRESS)
    run.add_argument("--resume", metavar="ID", default=argparse.SUPPRESS)


def _add_config(sub, common) -> None:
    config = sub.add_parser("config", parents=[common], help="check and list the configuration")
    config_sub = config.add_subparsers(dest="config_command", metavar="list", required=True)
    config_list = config_sub.add_parser("list", parents=[common], help="validate and list")
    config_list.add_argument("--json", action="store_true")


def _add_call(sub, common) -> None:
    call = sub.add_parser("call", parents=[common], help="send one tool call through the gate")
    call.add_argument("tool", metavar="TOOL", help="an identity or a model-facing name")
    call.add_argument("--args", required=True, metavar="JSON", help="the arguments, as JSON")
    call.add_argument("--approve", choices=("yes", "no"), help="answer an approval request")
    call.add_argument("--dry-run", action="store_true", help="stop before the handler")


def _add_hooks(sub, common) -> None:
    hooks = sub.add_parser("hooks", parents=[common], help="develop hooks")
    hooks_sub = hooks.add_subparsers(dest="hooks_command", metavar="test", required=True)
    hooks_test = hooks_sub.add_parser("test", parents=[common], help="run one hook once")
    hooks_test.add_argument("hook_id", metavar="ID")
    hooks_test.add_argument("--event", required=True)
    hooks_test.add_argument("--payload", metavar="FILE")


def _add_sessions(sub, common) -> None:
    sessions = sub.add_parser("sessions", parents=[common], help="saved sessions")
    sessions_sub = sessions.add_subparsers(dest="sessions_command", required=True,
                                           metavar="list|show|delete|undo")
    sessions_sub.add_parser("list", parents=[common])
    show = sessions_sub.add_parser("show", parents=[common])
    show.add_argument("session_id", metavar="ID")
    show.add_argument("--output", choices=("jsonl", "text"), default="jsonl")
    delete = sessions_sub.add_parser("delete", parents=[common])
    delete.add_argument("session_id", metavar="ID")
    undo = sessions_sub.add_parser("undo", parents=[common],
                                   help="restore the files of a session to before a turn")
    undo.add_argument("session_id", metavar="ID")
    undo.add_argument("--turn", type=int, metavar="N",
                      help="the turn, counted from 1 (default: the latest that changed files)")
    undo.add_argument("--dry-run", action="store_true", help="report, change nothing")
    undo.add_argument("--overwrite-conflicts", action="store_true",
                      help="restore files changed since raw-tui wrote them too")


def _add_acp(sub, common) -> None:
    sub.add_parser("acp", parents=[common], help="speak ACP on stdin/stdout (for an editor)")


def _add_attach(sub, common) -> None:
    attach = sub.add_parser("attach", parents=[common], help="reattach to a live session")
    attach.add_argument("session_id", metavar="ID", nargs="?",
                        help="default: the live session of this directory updated last")


def _add_serve(sub, common) -> None:
    serve = sub.add_parser("serve", parents=[common], help="the UI in a browser on 127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)


COMMANDS = {"run": _add_run, "config": _add_config, "call": _add_call, "hooks": _add_hooks,
            "sessions": _add_sessions, "acp": _add_acp, "serve": _add_serve,
            "attach": _add_attach}


def _parser(argv: list[str] | None = None):
    """The parser; given the arguments, only the subcommand they name is built (building
    them all is a good part of `config list`'s start-up)."""
    import argparse

    common = _common()
    parser = argparse.ArgumentParser(prog="raw-tui", parents=[common],
                                     description="Run an AI coding agent behind a policy gate.")
    parser.add_argument("--continue", dest="continue_", action="store_true",
                        default=argparse.SUPPRESS,
                        help="reopen the latest session of this directory")
    parser.add_argument("--resume", metavar="ID", default=argparse.SUPPRESS,
                        help="reopen a saved session")
    parser.add_argument("--no-detach", dest="no_detach", action="store_true",
                        default=argparse.SUPPRESS,
                        help="run the session inside the UI (it ends with the terminal)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    named = _command_named(argv) if argv is not None else None
    for name, add in COMMANDS.items():
        if named is None or name == named:
            add(sub, common)
    return parser


def _command_named(argv: list[str]) -> str | None:
    """The subcommand in `argv` (argparse takes the first positional argument), "" when
    there is none (the UI: no subcommand's parser is built), or None when it is not certain
    (help asked for, an unknown word)."""
    takes_value = False
    for arg in argv:
        if takes_value:
            takes_value = False
        elif arg in ("-h", "--help") or arg == "--":
            return None
        elif arg.startswith("-"):  # `--conf PATH` is an abbreviation argparse accepts
            takes_value = "=" not in arg and any(o.startswith(arg) for o in VALUE_OPTIONS)
        else:
            return arg if arg in COMMANDS else None
    return None if takes_value else ""


def _global_options(argv: list[str]) -> dict[str, Any] | None:
    """What argparse makes of `argv` when it holds only the main parser's options, each
    spelled in full (`--agent NAME`, `--agent=NAME`, `--continue`, ...): the UI with them,
    read without importing argparse (a measurable share of the UI's start-up). None for
    anything else (a subcommand, an abbreviation, help, a value that starts with `-`, an
    unknown word), which argparse parses, with its errors and help."""
    options: dict[str, Any] = {"command": None}
    args = iter(argv)
    for arg in args:
        name, equals, value = arg.partition("=")
        if name in FLAG_OPTIONS and not equals:
            options[FLAG_OPTIONS[name]] = True
        elif name in VALUE_OPTIONS:
            if not equals:
                value = next(args, None)
                if value is None or value.startswith("-"):
                    return None
            options[name[2:]] = value
        else:
            return None
    return options


def interrupt_on_stop_signals() -> None:
    """SIGTERM and SIGHUP (an SSH drop) raise KeyboardInterrupt like SIGINT, so every command
    ends through the same clean-up; `run`, `call` and the UI replace this with a handler on
    their event loop that cancels the work (raw_tui.cancel.on_stop_signals)."""

    def interrupt(signum, frame) -> None:
        raise KeyboardInterrupt

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, interrupt)


def main(argv: list[str] | None = None) -> int:
    interrupt_on_stop_signals()
    argv = sys.argv[1:] if argv is None else argv
    options = _global_options(argv)
    if options is None:
        args = _parser(argv).parse_args(argv)
    else:
        from types import SimpleNamespace

        args = SimpleNamespace(**options)
    for name, default in (("config", None), ("agent", None), ("model", None), ("cwd", None),
                          ("continue_", False), ("resume", None), ("no_detach", False)):
        if not hasattr(args, name):
            setattr(args, name, default)
    from .termsafe import escape_controls, terminal_stream

    cwd = _working_directory(args.cwd)
    if isinstance(cwd, str):  # a session there spawns nothing and is saved under no directory
        print(escape_controls(f"raw-tui: {cwd}", keep_lines=False), file=sys.stderr)
        return EXIT_CONFIG
    args.cwd_path = cwd

    # every line on stderr, and stdout where a command prints text, with controls escaped;
    # not under the full-screen UI, whose Textual prints its own (colored) crash reports
    if args.command not in (None, "serve"):
        sys.stderr = terminal_stream(sys.stderr)
    if _prints_text(args):
        sys.stdout = terminal_stream(sys.stdout)
    elif args.command in ("run", "sessions", "call", "hooks", "config"):  # their JSON
        sys.stdout = terminal_stream(sys.stdout, json=True)
    try:
        code = _command(args)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's last flush
        return code
    except BrokenPipeError:  # `raw-tui ... | head`: the reader has what it wanted
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return EXIT_BROKEN_PIPE


def _working_directory(given: str | None) -> Path | str:
    """`--cwd` (else the current directory) resolved, or what is wrong with it."""
    try:
        cwd = Path(given).resolve() if given else Path.cwd()
    except (OSError, RuntimeError):  # the current directory was removed; a symlink loop
        cwd = None
    if cwd is not None and cwd.is_dir():
        return cwd
    if given:
        return f"--cwd {given}: not a directory"
    return "the current directory no longer exists"


def _prints_text(args) -> bool:
    """Whether the command writes text (not JSON) to stdout."""
    if args.command == "run":
        return args.output == "text"
    if args.command == "sessions":
        if args.sessions_command == "undo":
            return False  # its JSON report
        return args.sessions_command != "show" or args.output == "text"
    if args.command == "config":
        return not args.json
    return False  # call and hooks test print JSON; the UI and serve draw their own screen


def _command(args) -> int:
    try:
        if args.command == "config":
            return cmd_config_list(args)
        if args.command == "call":
            return cmd_call(args)
        if args.command == "hooks":
            return cmd_hooks_test(args)
        if args.command == "run":
            from .session.headless import cmd_run

            return cmd_run(args)
        if args.command == "sessions":
            from .session.cli import cmd_sessions

            return cmd_sessions(args)
        if args.command == "acp":
            from .acp.command import cmd_acp  # the ACP SDK is imported only here

            return cmd_acp(args)
        if args.command == "serve":
            from .ui.serve import cmd_serve

            load(args)  # a broken config fails here (exit 2), not in every tab
            return cmd_serve(args, session=lambda: _serve_session(args))
        if args.command == "attach":
            return cmd_attach(args)
        return cmd_ui(args)
    except ConfigError as err:
        print(f"raw-tui: config error: {err.line()}", file=sys.stderr)  # escaped by line()
        return EXIT_CONFIG
    except RawError as err:
        if err.code not in (HISTORY_ERROR, SOCKET_DIR_ERROR):  # the others: each command's own
            raise
        from .termsafe import escape_controls  # the UI's stderr is not wrapped

        print(escape_controls(f"raw-tui: {err.message}"), file=sys.stderr)
        return EXIT_ERROR
    except OSError as err:
        if not err.filename or isinstance(err, BrokenPipeError):
            raise  # no path the user named or made: a bug, worth its traceback
        from .termsafe import escape_controls

        print(escape_controls(f"raw-tui: {os.fsdecode(err.filename)}: {err.strerror or err}",
                              keep_lines=False), file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_CANCELLED


# the UI -------------------------------------------------------------------------------------

def cmd_ui(args) -> int:
    """Bare `raw-tui`: draw the app, open (or resume) the session right after its first
    frame, run until it quits; a session chosen in the palette is opened next, in a new
    app. A config error raises ConfigError (exit 2); an unknown session exits 1."""
    import asyncio

    from .ui.typeahead import keep_typeahead  # no textual: keys typed while the UI loads
    # keep Enter as Enter instead of turning into newlines

    _offer_attach(args)
    with keep_typeahead():
        while True:
            try:
                outcome = asyncio.run(_run_ui(args))
            except Exception as err:
                if getattr(err, "code", None) in (UNKNOWN_SESSION, SESSION_LIVE, HOST_FAILED,
                                                  SOCKET_DIR_ERROR):
                    from .termsafe import escape_controls  # the UI's stderr is not wrapped

                    print(escape_controls(f"raw-tui: {err.message}", keep_lines=False),
                          file=sys.stderr)
                    return 1
                raise
            if isinstance(outcome, int):
                return outcome
            args.resume, args.continue_, args.attach_socket = outcome, False, None


async def _run_ui(args) -> "int | str":
    """One app on one session: its exit code, or the id of the saved session to open next."""
    import os

    from . import lifeline
    from .cancel import on_stop_signals
    from .client import TRANSPORT_ENV, InProcessTransport, with_transport
    from .paths import state_home
    from .ui.app import RawApp, Resume

    opened = []

    def opener():  # after the first frame: the engine's imports are not paid before it
        from .session import open_session

        session, replay = open_session(args, interactive=True)
        opened.append(session)
        return session, replay

    def in_process():
        return InProcessTransport(opener, cwd=str(args.cwd_path))

    transport = _transport(args, in_process) or in_process()
    app = RawApp(with_transport(os.environ.get(TRANSPORT_ENV), transport),
                 prefs_path=state_home() / UI_PREFS_FILE)
    signalled: list[int] = []
    grace = lifeline.HOSTED_GRACE_S if getattr(transport, "detachable", False) else \
        lifeline.IN_PROCESS_GRACE_S
    lifeline.watch_output(1, grace)  # the terminal (or a tab's pipe) gone: SIGHUP

    def stop() -> None:  # SIGTERM, SIGHUP (an SSH drop), SIGINT from outside: end cleanly
        signalled.append(EXIT_CANCELLED)
        lifeline.exit_later(grace)  # ... or at the latest then, when stuck on a dead terminal
        app.exit(return_code=EXIT_CANCELLED)

    try:
        with on_stop_signals(stop):
            await app.run_async()
    finally:
        await transport.close()
        for session in opened:
            if session.store is not None:
                session.store.close()
    if app.startup_error is not None:
        raise app.startup_error
    if signalled:
        return EXIT_CANCELLED
    if isinstance(app.return_value, Resume):
        return app.return_value.session_id
    if not app.return_code:
        hint = _leaving_hint(transport, opened, args.cwd)
        if hint:
            print(hint)
    return app.return_code or 0


def _leaving_hint(transport: Any, opened: list, cwd: str | None) -> str | None:
    """What to type to come back: `attach` to a session left running in its host, else
    `--continue` / `--resume` of the saved one. None when no session was opened."""
    if opened:
        return resume_hint(opened[-1].session_id, cwd) if opened[-1].saved else None
    if not getattr(transport, "ready", False):
        return None
    session_id = transport.info.session_id
    if getattr(transport, "quit_sent", True):
        # a session left before anything happened in it was not saved (session/keeper.py)
        return resume_hint(session_id, cwd) if _saved(session_id) else None
    from .program import program

    return (f"raw-tui: session {session_id} is still running (detached). "
            f"Attach to it with: {program()} attach {session_id}")


def _saved(session_id: str) -> bool:
    from .session.store import HistoryStore

    try:
        store = HistoryStore()
    except Exception:  # the history cannot be read: say how to come back all the same
        return True
    try:
        return store.get(session_id) is not None
    finally:
        store.close()


def _transport(args, in_process=None) -> Any:
    """The session host's transport, unless `--no-detach` or `ui.detach: false` keep the
    session in this process (then None). `attach` always attaches. A new host that cannot
    start falls back to `in_process()`, unless the config says `ui.detach: true`."""
    attach_to = getattr(args, "attach_socket", None)
    if attach_to is None:
        if args.no_detach:  # decided without loading the host's modules
            return None
        from .host.choose import detach_wanted

        if not detach_wanted(args):
            return None
    from .host.transport import SocketTransport

    hosted = SocketTransport.for_args(args, socket=attach_to)
    if attach_to is not None or in_process is None:
        return hosted
    from .host.choose import detach_required
    from .host.fallback import HostOrInProcess

    return HostOrInProcess(hosted, in_process, required=lambda: detach_required(args))


def _serve_session(args) -> str | None:
    """`serve`: the session every tab attaches to, in a host started now (or the live one
    `--continue`/`--resume` name). None with `--no-detach`/`ui.detach: false`."""
    import importlib.util

    from .host.choose import detach_wanted
    from .host.transport import locate_or_start

    if importlib.util.find_spec("textual_serve") is None or not detach_wanted(args):
        return None  # cmd_serve says what is missing
    from .host.choose import detach_required
    from .host.fallback import fallback_line, host_cannot_start

    try:
        return locate_or_start(args).stem
    except Exception as err:
        if not host_cannot_start(err) or detach_required(args):
            raise
        print(f"raw-tui: {fallback_line(err, 'each tab runs a session of its own')}",
              file=sys.stderr)
        return None


def _offer_attach(args) -> None:
    """Bare `raw-tui` where this directory's latest session is live: ask whether to attach."""
    if args.command is not None or args.no_detach or getattr(args, "attach_socket", None):
        return
    from .host.choose import offer_attach
    from .host.paths import SocketDirError, socket_path

    try:
        session_id = offer_attach(args)
        if session_id is not None:
            args.attach_socket = socket_path(session_id)
    except SocketDirError:
        return  # nothing live can be known; the session's own start says why, in one line


def cmd_attach(args) -> int:
    """`raw-tui attach [ID]`: the UI on a live session's host."""
    from .errors import RawError
    from .host.choose import attach_target
    from .host.paths import socket_path

    try:
        status = attach_target(args)
        args.attach_socket = socket_path(status.session_id)
    except RawError as err:
        print(f"raw-tui: {err.message}", file=sys.stderr)
        return EXIT_ERROR
    args.cwd_path = Path(status.cwd)
    return cmd_ui(args)


def resume_hint(session_id: str, cwd: str | None) -> str:
    """What the user types to come back to the session they just left."""
    import shlex

    from .program import program

    where = f"--cwd {shlex.quote(cwd)} " if cwd else ""
    me = program()
    return (f"raw-tui: session {session_id} saved. Continue it with: {me} {where}--continue"
            f"  (or from anywhere: {me} --resume {session_id})")


def load(args, *, client_mcp: bool = False) -> Any:
    """The config. Loading it imports the libraries: the cyclic garbage collector is paused
    meanwhile, then what exists is frozen (the modules and the config live as long as the
    process: later collections need not walk them). The collector took ~7 ms of every
    start-up walking the same objects again and again."""
    import gc

    running = gc.isenabled()
    gc.disable()
    try:
        from .config import load_config

        return load_config(args.config, cwd=args.cwd_path, model_override=args.model,
                           client_mcp=client_mcp)
    finally:
        if running:
            gc.freeze()
            gc.enable()


# config list ------------------------------------------------------------------------------

def cmd_config_list(args) -> int:
    import json

    config = load(args)
    mcp_status: dict[str, dict[str, str]] = {}
    if any(agent.mcp_servers() for agent in config.agents.values()):
        import asyncio

        mcp_status = asyncio.run(_mcp_status(config, str(args.cwd_path)))
    listing = config_listing(config, mcp_status)
    listing["warnings"] = config_warnings(config)
    # a key also written elsewhere (a base_url query, a rule's regex) is not shown either
    listing = config.redactor.json(listing)
    for warning in listing["warnings"]:
        print(f"raw-tui: warning: {warning}", file=sys.stderr)
    if args.json:
        print(json.dumps(listing, indent=2))
        return EXIT_OK
    print(f"config: {listing['config']}")
    print(f"default agent: {listing['default_agent']}")
    for alias, model in listing["models"].items():
        extra = " ".join(f"{k}={v}" for k, v in model.items() if k != "method")
        print(f"model {alias}: {model['method']} {extra}".rstrip())
    for name, agent in listing["agents"].items():
        print(f"agent {name}: model {agent['model']}, max_steps {agent['max_steps']}")
        for tool in agent["tools"]:
            flag = "" if tool["exposed"] else "  (denied: hidden from the model)"
            if "status" in tool:  # an MCP tool: found, missing or skipped
                flag = f"  ({tool['status']})" if tool["status"] != "found" else flag
                print(f"  tool {tool['identity']} as {tool['name']} (MCP){flag}")
                continue
            print(f"  tool {tool['identity']} as {tool['name']} {tool['version']}{flag}")
        for rule in agent["rules"]:
            when = f" when {json.dumps(rule['when'])}" if rule.get("when") else ""
            print(f"  rule [{rule['index']}] {rule['match']} -> {rule['effect']}{when}")
        for hook in agent["hooks"]:
            events = ", ".join(hook["events"])
            print(f"  hook {hook['id']}: {events}")
        if "sandbox" in agent:
            print(f"  {sandbox_words(agent['sandbox'])}")
    return EXIT_OK


def sandbox_words(listing: dict[str, Any]) -> str:
    """`sandbox: overlay · net off`, or `sandbox off: REASON` (docs/sandbox.md)."""
    if listing["mode"] == "off":
        return f"sandbox off: {listing.get('reason') or 'mode off'}"
    if not listing["available"]:
        return (f"sandbox: {listing['mode']} cannot run here ({listing.get('reason')}): bash "
                "calls fail sandbox_unavailable")
    return f"sandbox: {listing['mode']} · net {'on' if listing.get('network') else 'off'}"


async def _mcp_status(config, cwd: str) -> dict[str, dict[str, str]]:
    """Start every MCP server some agent selects (each once, in parallel); agent → identity →
    found | missing | skipped. A server's failure is one warning on stderr."""
    from .mcp.manager import McpManager, resolve_agent

    manager = McpManager(cwd=cwd, redactor=config.redactor)
    manager.add_servers(config.mcp.servers, config.mcp.declarations)
    try:
        await manager.start(s for agent in config.agents.values() for s in agent.mcp_servers())
        status: dict[str, dict[str, str]] = {}
        warned: set[str] = set()
        for name, agent in config.agents.items():
            _, warnings, status[name] = await resolve_agent(agent, manager, file=config.label)
            for warning in warnings:
                if warning not in warned:
                    warned.add(warning)
                    print(f"raw-tui: warning: {config.redactor.text(warning)}",
                          file=sys.stderr)
        return status
    finally:
        await manager.close()


def config_warnings(config) -> list[str]:
    """What loads but deserves a word: an unknown panel icon (once per tool, MCP panel
    declarations included), a rule that can never decide, a `ui.keymap` entry that names no
    binding."""
    import json

    seen: dict[str, None] = dict.fromkeys(config.mcp_warnings())
    from .panels.declaration import plan_panel

    for agent in config.agents.values():
        for tool in agent.tools.tools:
            seen.update(dict.fromkeys(tool.warnings))
        seen.update(dict.fromkeys(plan_panel(agent.tools.tools)[1]))
    for name, agent in config.agents.items():
        identities = [tool.identity for tool in agent.tools.tools]
        for rule, later in agent.rules.never_deciding(identities):
            at = json_path(["agents", name, "tools", "rules", rule.index])
            seen[f"{at}: never decides: "
                 f"rules[{later.index}] ({later.match.pattern}) matches every tool it "
                 f"matches"] = None
    for name, agent in config.agents.items():
        warning = _sandbox_warning(name, agent)
        if warning:
            seen[warning] = None
    if not config.raw.ui.keymap:
        return list(seen)
    from .ui.binding_ids import BINDING_IDS  # a plain list: no textual

    for binding in config.raw.ui.keymap:
        if binding not in BINDING_IDS:
            seen[f"ui.keymap[{json.dumps(binding)}]: no such binding id"] = None
    return list(seen)


def _uses_bash(agent) -> bool:
    return any(t.identity == "builtin/bash" for t in agent.tools.tools)


def _sandbox_warning(name: str, agent) -> str | None:
    """An agent whose bash cannot be sandboxed here: the reason and the fix."""
    if not _uses_bash(agent):
        return None
    from .tools.sandbox.settings import for_agent

    found = for_agent(agent)
    if found.available:
        return None
    if found.fail_closed:
        at = json_path(["agents", name, "sandbox", "mode"])
        return (f"{at}: {found.mode!r} cannot run here: {found.reason}; bash calls fail "
                f"sandbox_unavailable (fix: {found.fix})")
    if found.explicit:  # mode off, set so
        return None
    return f"{json_path(['agents', name])}: sandbox off: {found.reason} (fix: {found.fix})"


def config_listing(config, mcp_status: dict[str, dict[str, str]] | None = None) -> dict[str, Any]:
    """Everything `config list` shows; never a secret (api_key is reported as set or not;
    MCP servers show no env, headers or url)."""
    models = {}
    for alias, value in config.raw.models.items():
        model = dict(value)
        if "api_key" in model:
            model["api_key"] = "(set)"
        models[alias] = model
    agents = {}
    for name, agent in config.agents.items():
        exposed = {t.identity for t in agent.tools.tools
                   if agent.rules.unconditional(t.identity)[0] != "deny"}
        agents[name] = {
            "model": agent.model_alias,
            "max_steps": agent.config.max_steps,
            "max_output_bytes": agent.config.max_output_bytes,
            "tools": [_tool_listing(t, t.identity in exposed,
                                    (mcp_status or {}).get(name, {}))
                      for t in agent.tools.tools],
            "rules": agent.rules.describe(),
            "hooks": [{"id": h.id, "name": h.name, "folder": str(h.folder),
                       "events": [s.event for s in h.manifest.subscriptions]} for h in agent.hooks],
        }
        from .tools.sandbox.settings import for_agent

        agents[name]["sandbox"] = for_agent(agent).listing()
    default = config.raw.default_agent or next(iter(config.agents), None)
    listing = {"config": config.label, "default_agent": default, "models": models,
               "agents": agents}
    if config.mcp is not None:
        listing["mcp_servers"] = {name: {"transport": server.__struct_config__.tag,
                                         "timeout_ms": server.timeout_ms}
                                  for name, server in config.mcp.servers.items()}
    return listing


def _tool_listing(tool, exposed: bool, mcp_status: dict[str, str]) -> dict[str, Any]:
    if getattr(tool, "is_mcp", False):
        status = mcp_status.get(tool.identity, "skipped")
        return {"identity": tool.identity, "name": tool.name, "server": tool.server,
                "tool": tool.tool_name, "status": status,
                "exposed": exposed and status == "found"}
    return {"identity": tool.identity, "name": tool.name, "version": tool.manifest.version,
            "exposed": exposed, "folder": str(tool.folder)}


# call -----------------------------------------------------------------------------------

def cmd_call(args) -> int:
    import json

    config = load(args)
    agent = config.agent(args.agent)
    from .jsonstrict import loads as strict_loads

    try:  # strict, as the config: a duplicate key or NaN is refused, not guessed at
        arguments = strict_loads(args.args, file="--args")
    except ConfigError as err:
        print(f"raw-tui: --args is not JSON: {err.path + ': ' if err.path else ''}{err.detail}",
              file=sys.stderr)
        return EXIT_CONFIG
    import asyncio

    report, signalled = asyncio.run(_call(agent, config, args, arguments))
    print(json.dumps(config.redactor.json(report.to_json()), indent=2, ensure_ascii=False))
    if signalled:
        return EXIT_CANCELLED
    if report.outcome in ("ran", "would_run") and not report.result.isError:
        return EXIT_OK
    return EXIT_ERROR


async def _call(agent, config, args, arguments):
    """One dispatch, and whether a signal stopped it: SIGINT, SIGTERM and SIGHUP cancel it
    (its report then says `cancelled`)."""
    import asyncio

    from .approval import FixedApprover
    from .bus import Bus
    from .cancel import on_stop_signals
    from .tools.dispatch import Dispatcher

    bus = Bus(config.redactor)
    cancel = asyncio.Event()
    approver = FixedApprover(args.approve == "yes") if args.approve else None
    manager = None
    target = agent.tools.find(args.tool)
    if getattr(target, "is_mcp", False):  # start that tool's server, and only that one
        agent, manager = await _start_mcp(agent, config, str(args.cwd_path), [target.server])
    hooks = _hook_dispatcher(agent, bus, str(args.cwd_path))
    panels = _panel_host(bus)
    if target is not None and getattr(target, "is_mcp", False):
        panels.register(target.identity, target.declarations)
    dispatcher = Dispatcher(agent, bus=bus, cwd=str(args.cwd_path), hooks=hooks,
                            approver=approver, panels=panels, interactions=None)
    with on_stop_signals(cancel.set):
        try:
            report = await dispatcher.dispatch(args.tool, arguments, call_id="call_cli",
                                               cancel=cancel, dry_run=args.dry_run)
            return report, cancel.is_set()
        finally:
            if hooks is not None:
                hooks.close()
            if manager is not None:
                await manager.close()


async def _start_mcp(agent, config, cwd: str, servers: list[str] | None = None):
    """(the agent with its MCP tools live, the manager to close); warnings on stderr."""
    from .mcp.manager import McpManager, resolve_agent

    manager = McpManager(cwd=cwd, redactor=config.redactor)
    manager.add_servers(config.mcp.servers, config.mcp.declarations)
    agent, warnings, _ = await resolve_agent(agent, manager, file=config.label, only=servers)
    for warning in warnings:
        print(f"raw-tui: warning: {config.redactor.text(warning)}", file=sys.stderr)
    return agent, manager


def _hook_dispatcher(agent, bus, cwd):
    if not len(agent.hooks):
        return None
    from .hooks import HookDispatcher

    return HookDispatcher(agent.hooks, bus, cwd=cwd, agent_id=agent.name,
                          session_id="cli")


def _panel_host(bus):
    from .panels.host import PanelHost

    return PanelHost(bus)


# hooks test -------------------------------------------------------------------------------

def cmd_hooks_test(args) -> int:
    from .hooks.cli import hooks_test
    from .hooks.load import load_hooks

    config = load(args)
    agent = config.agent(args.agent)

    def load_one():  # a hook the agent does not select (yet) can be tested too
        return load_hooks([args.hook_id], config_dir=config.dir,
                          tools=agent.tools.by_identity, where=["hooks test"],
                          file=config.label)

    hooks = agent.hooks if agent.hooks.get(args.hook_id) is not None else load_one
    return hooks_test(hooks, args.hook_id, args.event, args.payload, cwd=str(args.cwd_path),
                      redactor=config.redactor)


if __name__ == "__main__":
    sys.exit(main())
