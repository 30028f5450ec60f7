"""Every panel limit, in one place (docs/panels.md; raw-tui's own bounds are marked)."""

from __future__ import annotations

# Declarations
MAX_DECLARED_PANELS = 4
MAX_ACTIONS = 16  # raw-tui
MAX_ACTION_LABEL = 80  # raw-tui
MAX_PROMPT_TEXT = 4096  # raw-tui

# Session and calls
MAX_PANELS = 16
MAX_UPDATES_PER_CALL = 200
# Rejected updates publish a receipt each, up to this many per call; the rest are counted
# and said in one notice (a tool cannot flood the history with rejections).
MAX_REJECTED_RECEIPTS_PER_CALL = 200
MAX_PATCHES_PER_UPDATE = 200  # raw-tui
FRAME_INTERVAL = 0.1  # seconds between live panel_state frames of one panel
MAX_REJECTION_LINES = 5
MAX_RECEIPT_BYTES = 1024  # a panel_receipt event as JSON, as Raw bounds its receipts

# Documents
MAX_DOCUMENT_BYTES = 64 * 1024
MAX_TITLE = 80
MAX_SUBTITLE = 120
MAX_SUMMARY = 120
MAX_CONTEXT_SUMMARY_BYTES = 2048
MAX_BLOCKS = 20
MAX_ID = 32  # panel and block ids
MAX_ITEM_ID = 64  # item ids (Raw's)

# Blocks
MAX_FORM_FIELDS = 8
MAX_FIELD_LABEL = 200
MAX_FIELD_DESCRIPTION = 500
MAX_TEXT_FIELD_BYTES = 8192
MAX_OPTIONS = 32
MAX_MERMAID_BYTES = 16 * 1024
MAX_MARKDOWN_BYTES = 16 * 1024
MAX_CHECKLIST_ITEMS = 200
MAX_CHECKLIST_DEPTH = 3
MAX_STEPS = 30
MAX_KEY_VALUE = 50
MAX_TABLE_COLUMNS = 8
MAX_TABLE_ROWS = 200  # raw-tui
MAX_TIMELINE_EVENTS = 200  # raw-tui
MAX_FILES = 200  # raw-tui
MAX_LABEL = 500  # raw-tui: item labels, notes, cells, event texts
MAX_KEY = 80  # raw-tui: key_value keys, column labels
MAX_PATH = 1024  # raw-tui
MAX_FALLBACK_BYTES = 4 * 1024  # any block's `fallback`
MAX_DETAIL = 200  # a step's `detail`
MAX_EVENT_DETAIL = 1000  # a timeline event's `detail`
MAX_TIMELINE_KEEP = 200  # a timeline block's `max` (events kept by append_events)

# The [Raw panel state] reminder after a compaction (raw-tui)
REMINDER_PANEL_BYTES = 2048
REMINDER_TOTAL_BYTES = 8 * 1024
