"""The command line (docs/command-line.md): one module per subcommand, each with its parser
(`add`) and its run (`run`), no logic of its own; what the engine needs to open a session is
a `SessionRequest` (raw_tui/session/request.py) built here, never the parsed arguments.

- `main`: the entry point (`raw-tui`, `python -m raw_tui.cli`): the arguments, the working
  directory, the output streams, the errors every command shares; `parse`: the grammar,
  `common`: the exit codes, the request and the config;
- `ui` (bare `raw-tui`), `attach`, `serve`, `run`, `config_list`, `call`, `hooks_test`,
  `sessions` (and `sessions_undo`), `acp`.

Only `ui` and `serve` import textual; a bare `raw-tui` imports neither argparse nor a
subcommand's module."""

from .main import main

__all__ = ["main"]
