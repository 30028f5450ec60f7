"""`raw-tui [OPTIONS] [COMMAND ...]`: read the arguments, check the working directory, wrap
the output streams, run the subcommand's module (raw_tui/cli/parse.py names them; none: the
UI, raw_tui/cli/ui.py) and turn the errors every command shares into one line and an exit
code."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from ..protocol.errors import HISTORY_ERROR, SOCKET_DIR_ERROR, ConfigError, RawError
from .common import EXIT_BROKEN_PIPE, EXIT_CANCELLED, EXIT_CONFIG, EXIT_ERROR
from .parse import command_module, parse_args


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
    args = parse_args(argv)
    from ..protocol.termsafe import escape_controls, terminal_stream

    cwd = working_directory(args.cwd)
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


def working_directory(given: str | None) -> Path | str:
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
        if args.command is None:
            from .ui import run_ui

            return run_ui(args)
        return command_module(args.command).run(args)
    except ConfigError as err:
        print(f"raw-tui: config error: {err.line()}", file=sys.stderr)  # escaped by line()
        return EXIT_CONFIG
    except RawError as err:
        if err.code not in (HISTORY_ERROR, SOCKET_DIR_ERROR):  # the others: each command's own
            raise
        from ..protocol.termsafe import escape_controls  # the UI's stderr is not wrapped

        print(escape_controls(f"raw-tui: {err.message}"), file=sys.stderr)
        return EXIT_ERROR
    except OSError as err:
        if not err.filename or isinstance(err, BrokenPipeError):
            raise  # no path the user named or made: a bug, worth its traceback
        from ..protocol.termsafe import escape_controls

        print(escape_controls(f"raw-tui: {os.fsdecode(err.filename)}: {err.strerror or err}",
                              keep_lines=False), file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_CANCELLED
