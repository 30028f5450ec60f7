"""Model providers behind one small interface (see base.py)."""

from .base import (
    METHODS,
    Done,
    Message,
    ModelError,
    ModelProvider,
    ModelSpec,
    StreamItem,
    TextDelta,
    ToolCallRequest,
    ToolDefinition,
    Usage,
    assistant_message,
    make_provider,
    system_message,
    tool_message,
    user_message,
)

__all__ = [
    "METHODS",
    "Done",
    "Message",
    "ModelError",
    "ModelProvider",
    "ModelSpec",
    "StreamItem",
    "TextDelta",
    "ToolCallRequest",
    "ToolDefinition",
    "Usage",
    "assistant_message",
    "make_provider",
    "system_message",
    "tool_message",
    "user_message",
]
