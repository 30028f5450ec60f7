"""`raw-tui hooks test ID --event EVENT [--payload FILE]`: run one hook once, as the gate
would (raw_tui/hooks/cli.py), and show what it decided."""

from __future__ import annotations

from .common import load, session_request


def add(sub, common) -> None:
    hooks = sub.add_parser("hooks", parents=[common], help="develop hooks")
    hooks_sub = hooks.add_subparsers(dest="hooks_command", metavar="test", required=True)
    hooks_test = hooks_sub.add_parser("test", parents=[common], help="run one hook once")
    hooks_test.add_argument("hook_id", metavar="ID")
    hooks_test.add_argument("--event", required=True)
    hooks_test.add_argument("--payload", metavar="FILE")


def run(args) -> int:
    from ..hooks.cli import hooks_test
    from ..hooks.load import load_hooks

    config = load(session_request(args))
    agent = config.agent(args.agent)

    def load_one():  # a hook the agent does not select (yet) can be tested too
        return load_hooks([args.hook_id], config_dir=config.dir,
                          tools=agent.tools.by_identity, where=["hooks test"],
                          file=config.label)

    hooks = agent.hooks if agent.hooks.get(args.hook_id) is not None else load_one
    return hooks_test(hooks, args.hook_id, args.event, args.payload, cwd=str(args.cwd_path),
                      redactor=config.redactor)
