"""The command line's grammar: the global options, and each subcommand's parser, built only
for the subcommand named (building them all is a good part of `config list`'s start-up). A
bare `raw-tui` with only global options is read without importing argparse
(`global_options`), a measurable share of the UI's start-up."""

from __future__ import annotations

from importlib import import_module
from typing import Any

VALUE_OPTIONS = ("--config", "--agent", "--model", "--cwd", "--resume")
FLAG_OPTIONS = {"--continue": "continue_", "--no-detach": "no_detach"}  # the UI's own flags
# what every command reads of a global option it was not given
DEFAULTS = {"config": None, "agent": None, "model": None, "cwd": None, "continue_": False,
            "resume": None, "no_detach": False}

# subcommand -> its module in raw_tui/cli/, which defines add(sub, common) and run(args)
COMMANDS = {"run": "run", "config": "config_list", "call": "call", "hooks": "hooks_test",
            "sessions": "sessions", "acp": "acp", "serve": "serve", "attach": "attach"}


def parse_args(argv: list[str]) -> Any:
    """The arguments, each global option among them (DEFAULTS when not given): a bare
    `raw-tui` read without argparse (`global_options`), anything else by the parser. The
    defaults go in before parsing, not as the parser's: its options are shared with every
    subcommand's parser (SUPPRESS), whose default would undo what was read before it."""
    options = global_options(argv)
    if options is not None:
        from types import SimpleNamespace

        return SimpleNamespace(**{**DEFAULTS, **options})
    import argparse

    return build_parser(argv).parse_args(argv, namespace=argparse.Namespace(**DEFAULTS))


def command_module(name: str) -> Any:
    """The module of subcommand `name` (raw_tui/cli/<module>.py)."""
    return import_module(f"{__package__}.{COMMANDS[name]}")


def common_options():
    import argparse  # (only here and below: a bare `raw-tui` does without, global_options)

    # Global options may stand before or after the subcommand; SUPPRESS keeps a
    # subcommand's parser from resetting what the main parser already read.
    common = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS)
    common.add_argument("--config", metavar="PATH", help="the raw.json to use")
    common.add_argument("--agent", metavar="NAME", help="the agent to run (default_agent)")
    common.add_argument("--model", metavar="ALIAS", help="a models alias, or scripted:PATH")
    common.add_argument("--cwd", metavar="DIR", help="the session's working directory")
    return common


def build_parser(argv: list[str] | None = None):
    """The parser; given the arguments, only the subcommand they name is built."""
    import argparse

    common = common_options()
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
    named = command_named(argv) if argv is not None else None
    for name in COMMANDS:
        if named is None or name == named:
            command_module(name).add(sub, common)
    return parser


def command_named(argv: list[str]) -> str | None:
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


def global_options(argv: list[str]) -> dict[str, Any] | None:
    """What argparse makes of `argv` when it holds only the main parser's options, each
    spelled in full (`--agent NAME`, `--agent=NAME`, `--continue`, ...): the UI with them,
    read without importing argparse. None for anything else (a subcommand, an abbreviation,
    help, a value that starts with `-`, an unknown word), which argparse parses, with its
    errors and help."""
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
