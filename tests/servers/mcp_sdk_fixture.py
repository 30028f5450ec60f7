"""An MCP server built with the SDK's `MCPServer` (stdio by default; `http PORT` serves
streamable HTTP on 127.0.0.1). Tools: `add`, `shout`, `echo` (text only), `panel` (a `_meta` panel)."""

import sys

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent

app = MCPServer("sdk-fixture", version="1.0.0")


@app.tool(structured_output=False, description="Add two integers")
def add(a: int, b: int) -> str:
    return str(a + b)


@app.tool(structured_output=False)
def shout(text: str) -> str:
    return text.upper()


@app.tool(structured_output=False)
def echo(value: str) -> str:
    return f"sdk:echo:{value}"


@app.tool()
def panel(title: str) -> CallToolResult:
    doc = {"title": title, "blocks": [{"id": "m", "kind": "markdown", "text": "hello"}]}
    return CallToolResult(content=[TextContent(type="text", text="drawn")],
                          _meta={"raw/panel": {"panel": "board", "op": "replace",
                                               "document": doc}})


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        app.run("stdio")
