"""Panels (`raw.panel/2`): declarations, documents and blocks, patches, the host, the render."""

from ..lazy import lazy_exports

# Imported on first use: loading a config must not pay for what it does not run.
__getattr__ = lazy_exports(__name__, {
    'ActionTarget': 'actions',
    'action_note': 'actions',
    'find_action': 'actions',
    'prompt_draft': 'actions',
    'run_tool_action': 'actions',
    'ActionDeclaration': 'declaration',
    'PanelDeclaration': 'declaration',
    'implicit_declaration': 'declaration',
    'parse_declarations': 'declaration',
    'checked_document': 'document',
    'is_valid': 'document',
    'validate_document': 'document',
    'PanelError': 'errors',
    'CallPanels': 'call',
    'PanelHost': 'host',
    'full_id': 'record',
    'confirmation_line': 'lines',
    'rejection_line': 'lines',
    'render_text': 'render',
    'summarize': 'render',
})

__all__ = [
    "ActionDeclaration", "ActionTarget", "CallPanels", "PanelDeclaration", "PanelError", "PanelHost",
    "action_note", "checked_document", "confirmation_line", "find_action", "full_id",
    "implicit_declaration", "is_valid", "parse_declarations", "prompt_draft", "rejection_line",
    "render_text", "run_tool_action", "summarize", "validate_document",
]
