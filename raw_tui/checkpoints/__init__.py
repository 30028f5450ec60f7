"""Checkpoints: the previous state of every path raw-tui changes, and undo (docs/checkpoints.md).

- `chunks`: content-defined chunks of a file's bytes (a one-line change stores one chunk).
- `state`: a path's state (kind, mode, content, symlink target), read and compared.
- `store`: a session's checkpoint store (a ledger, pack files of chunks, the bound).
- `record`: what dispatch calls before and after it commits a change.
- `undo`: the plan and the restore of a turn; `command`: the session's Undo command (the
  command line's `sessions undo` is raw_tui/cli/sessions_undo.py).
"""
