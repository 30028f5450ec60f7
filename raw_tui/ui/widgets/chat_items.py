"""The rows of the chat: user messages, hook and panel receipts, notices, the end of a run,
what an undo put back.
Imported when the first row is drawn (the first frame has none); the row that stands for
pruned history is the chat view's own (chat_view.py). (Assistant text: widgets/assistant.py,
imported when the first one is drawn: Markdown is a slow import.)"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text

from ..preview import relative_to
from .safe import SafeStatic

if TYPE_CHECKING:
    from ...protocol import bus as ev


class UserMessageView(SafeStatic):
    """A prompt the user sent; `turn_id` is its turn (what Enter or `e` edits and resends)."""

    def __init__(self, text: str, turn_id: str | None = None) -> None:
        super().__init__(classes="chat-item user")
        self.text = text
        self.turn_id = turn_id

    def build(self) -> Text:
        out = Text("› ", style="bold")
        out.append(self.text)
        return out

    def plain_text(self) -> str:
        return self.text


class HookRow(SafeStatic):
    """`Hook ID EVENT: OUTCOME · message` (dim)."""

    def __init__(self, event: ev.HookEvent) -> None:
        super().__init__(classes="chat-item receipt hook")
        self.event = event

    def build(self) -> Text:
        e = self.event
        line = f"Hook {e.id} {e.event}: {e.outcome}"
        extra = e.message or e.code
        if extra:
            line += f" · {extra}"
        style = "dim red" if e.outcome in ("denied", "error") else "dim"
        return Text(line, style=style)


class PanelReceiptRow(SafeStatic):
    """`▸ Title r5 · 3/7 · summary`, or a dim rejection line."""

    def __init__(self, event: ev.PanelReceipt, progress: Any = None) -> None:
        super().__init__(classes="chat-item receipt panel-receipt")
        self.event = event
        self.progress = progress

    def build(self) -> Text:
        e = self.event
        error = e.error
        if error is not None:
            return Text(f"▸ {e.title} update rejected: {error.code} {error.message}",
                        style="dim red")
        parts = [f"▸ {e.title} r{e.revision}"]
        if isinstance(self.progress, dict) and "done" in self.progress:
            parts.append(f"{self.progress['done']}/{self.progress.get('total', '?')}")
        if e.op == "close":
            parts.append("closed")
        if e.summary:
            parts.append(e.summary)
        return Text(" · ".join(parts), style="cyan")


class NoticeRow(SafeStatic):
    STYLES = {"info": "dim", "warning": "yellow", "error": "bold red"}

    def __init__(self, text: str, level: str = "info") -> None:
        super().__init__(classes=f"chat-item notice {level}")
        self.text = text
        self.level = level

    def build(self) -> Text:
        return Text(self.text, style=self.STYLES.get(self.level, ""))


class UndoRow(SafeStatic):
    """`↶ files put back: 2 restored, 1 removed · 1 conflict left as it is`, then one line a
    file. A retry or an edit that follows keeps it in the chat (chat_view.py); drawn by the
    conversation's undo (conversation/undo.py)."""

    survives_rewind = True

    def __init__(self, event: ev.TurnUndo, cwd: str = "") -> None:
        super().__init__(classes="chat-item notice undo-row")
        self.event = event
        self.cwd = cwd

    def build(self) -> Text:
        files = list(self.event.files or ())
        counts: dict[str, int] = {}
        for f in files:
            counts[f.action] = counts.get(f.action, 0) + 1
        parts = [f"{counts[a]} {a}" for a in ("restored", "removed") if counts.get(a)]
        out = Text("↶ undo: ", style="bold cyan")
        out.append(", ".join(parts) or "no file put back", style="cyan")
        if counts.get("conflict"):
            n = counts["conflict"]
            out.append(f" · {n} conflict{'s' if n > 1 else ''} left as "
                       f"{'they are' if n > 1 else 'it is'}", style="bold magenta")
        shown = relative_to(self.cwd)
        for f in files[:20]:
            style = "magenta" if f.action == "conflict" else "dim"
            out.append(f"\n  {f.action:<9} {shown(f.path)}", style=style)
        if len(files) > 20:
            out.append(f"\n  … {len(files) - 20} more (raw-tui sessions show)", style="dim")
        return out
