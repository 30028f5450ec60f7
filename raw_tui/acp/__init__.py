"""`raw-tui acp`: raw-tui as an ACP agent (docs/acp.md, docs/acp.md).

An editor (Zed, Toad) or any ACP client starts `raw-tui acp` and drives sessions over
newline-delimited JSON-RPC on stdin/stdout. Every call still goes through the gate: the
client only answers the questions the engine asks (permission for `ask`, forms).

The `agent-client-protocol` SDK (module `acp`, ≈0.8 s to import) is imported only by the
modules of this package, and this package only by the `acp` subcommand.
"""
