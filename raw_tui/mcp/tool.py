"""An MCP tool as dispatch sees it: the Tool protocol (tools/ports.py), as a folder tool.

At config load an MCP tool is *pending*: its identity, alias and panel declarations are known,
its schema is not. When its server has started and listed it, `bind()` gives it the schema and
the connection; only then is it exposed to the model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..protocol.errors import MCP_CALL_ERROR
from ..frozen import thaw
from ..tools.result import ToolResult, error_result
from .config import alias, split_identity
from .results import McpFailure, map_result

DEFAULT_DESCRIPTION = "MCP tool"


@dataclass(eq=False)
class McpTool:
    identity: str
    server: str
    tool_name: str  # the server's own name for it
    name: str = ""  # the model-facing alias (computed once: it hashes)
    declarations: list[Any] = field(default_factory=list)
    description: str = DEFAULT_DESCRIPTION
    input_schema: Any = None
    validator: Any = None
    connection: Any = None  # a started connection.Connection
    warnings: list[str] = field(default_factory=list)
    condition_sources: tuple[str, ...] = ("arguments",)
    effects_schema: None = None
    has_effects: bool = False
    has_validate_args: bool = False
    has_preview: bool = False  # no approval preview: an MCP tool has no effects to show
    is_mcp: bool = True
    effects_validator: None = None
    has_summary: ClassVar[bool] = False  # no entry module: the generic summary line
    loaded: ClassVar[bool] = True  # nothing to import

    @classmethod
    def pending_from(cls, identity: str, declarations: list[Any]) -> "McpTool":
        server, tool = split_identity(identity)  # type: ignore[misc]
        return cls(identity=identity, server=server, tool_name=tool, declarations=declarations)

    def __post_init__(self) -> None:
        if not self.name:
            self.name = alias(self.server, self.tool_name)

    @property
    def pending(self) -> bool:
        return self.connection is None

    @property
    def available(self) -> bool:
        """Started, and its server has not ended since (a dead server is not restarted)."""
        return self.connection is not None and not self.connection.dead

    @property
    def label(self) -> str:
        """How a call names it: the server's own name for it, and the server (the model's
        alias is a hash)."""
        return f"{self.tool_name} · {self.server}"

    def module(self) -> None:
        """An MCP tool has no entry module (its handler is `call`)."""
        return None

    @property
    def implicit_panels(self) -> bool:
        """No declaration: the tool may write any panel id it owns."""
        return not self.declarations

    def bound(self, *, description: str, input_schema: Any, validator: Any,
              connection: Any) -> "McpTool":
        return McpTool(identity=self.identity, server=self.server, tool_name=self.tool_name,
                       name=self.name, declarations=self.declarations, description=description,
                       input_schema=input_schema, validator=validator, connection=connection,
                       warnings=self.warnings)

    def definition(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description,
                "input_schema": self.input_schema}

    def handler(self):
        return self.call

    async def call(self, arguments: Any, ctx: Any) -> ToolResult:
        """Step 7 for an MCP tool: tools/call, its result mapped (docs/mcp.md)."""
        if self.connection is None:
            return error_result(MCP_CALL_ERROR, f"MCP call failed: {self.server}")
        try:
            wire = await self.connection.call(self.tool_name, thaw(arguments),
                                              progress=getattr(ctx, "progress", None))
        except McpFailure as failure:
            return error_result(failure.code, failure.message)
        return map_result(self.server, wire)
