"""MCP tools (`mcp/<server>/<tool>`, docs/mcp.md). Nothing here imports the `mcp` SDK at
import time: only a server that starts loads it."""

from ..lazy import lazy_exports

__getattr__ = lazy_exports(__name__, {
    "McpManager": "manager", "resolve_agent": "manager", "McpTool": "tool",
    "parse_mcp": "config", "alias": "config",
})
