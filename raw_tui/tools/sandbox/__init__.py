"""The sandbox of `builtin/bash` (docs/sandbox.md): the environment rule (env), whether the
sandbox can run here (availability), the bubblewrap boundary (boundary), the overlay's upper
layer read as observed effects (layer) and committed to the workspace (commit).

Importing this package imports nothing else: hooks and MCP servers use `env` alone."""
