"""Panels (`raw.panel/2`): declarations, documents and blocks, patches, the host, the render."""

from .actions import ActionTarget, action_note, find_action, prompt_draft, run_tool_action
from .declaration import PanelAction, PanelDeclaration, implicit_declaration, parse_declarations
from .document import checked_document, is_valid, validate_document
from .errors import PanelError
from .host import CallPanels, PanelHost, full_id
from .lines import confirmation_line, rejection_line
from .render import render_text, summarize

__all__ = [
    "ActionTarget", "CallPanels", "PanelAction", "PanelDeclaration", "PanelError", "PanelHost",
    "action_note", "checked_document", "confirmation_line", "find_action", "full_id",
    "implicit_declaration", "is_valid", "parse_declarations", "prompt_draft", "rejection_line",
    "render_text", "run_tool_action", "summarize", "validate_document",
]
