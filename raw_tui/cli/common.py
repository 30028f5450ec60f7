"""What every subcommand of raw_tui/cli/ shares: the exit codes, the `SessionRequest` built
from the parsed arguments (the engine never sees them: raw_tui/session/request.py), and the
config loaded for a request."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..config import Config
    from ..session.request import SessionRequest

EXIT_OK, EXIT_ERROR, EXIT_CONFIG = 0, 1, 2
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a tool killed by the closed pipe would give
EXIT_CANCELLED = 130


def session_request(args: Any, **changes: Any) -> SessionRequest:
    """The `SessionRequest` the parsed arguments name, with `changes` (field=value)."""
    from ..session.request import SessionRequest

    fields = dict(cwd=args.cwd_path, config=args.config, agent=args.agent, model=args.model,
                  continue_=bool(args.continue_), resume=args.resume,
                  no_detach=bool(args.no_detach))
    fields.update(changes)
    return SessionRequest(**fields)


def load(request: SessionRequest, *, client_mcp: bool = False) -> Config:
    """The config. Loading it imports the libraries: the cyclic garbage collector is paused
    meanwhile, then what exists is frozen (the modules and the config live as long as the
    process: later collections need not walk them). The collector took ~7 ms of every
    start-up walking the same objects again and again."""
    import gc

    running = gc.isenabled()
    gc.disable()
    try:
        from ..config import load_config

        return load_config(request.config, cwd=request.cwd, model_override=request.model,
                           client_mcp=client_mcp)
    finally:
        if running:
            gc.freeze()
            gc.enable()
