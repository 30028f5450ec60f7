"""One panel (sidebar or inline in the chat): a header (icon, title, revision, summary,
progress) and its blocks, updated in place from `panel_state` events."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Group
from rich.text import Text
from textual.containers import Vertical
from textual.widget import Widget

from ...protocol.glyphs import ICONS
from ..blocks import bar, item_names, item_text, plain_block, render_block
from .navigator import Target
from .safe import SafeStatic

if TYPE_CHECKING:
    from ...protocol import bus as ev


def extra(state: ev.PanelState, name: str) -> Any:
    """A field the panel_state event may carry (actions, icon, title) or, failing that, the
    document's own key of that name."""
    value = getattr(state, name, None)
    if value is None:
        doc = state.document if isinstance(state.document, dict) else {}
        value = doc.get(name)
    return value


class PanelHeader(SafeStatic):
    def __init__(self, panel: "PanelView") -> None:
        super().__init__(classes="panel-header")
        self.panel = panel

    def build(self) -> Group:
        state = self.panel.state
        doc = state.document if isinstance(state.document, dict) else {}
        icon = ICONS.get(str(extra(state, "icon") or "panel"), ICONS["panel"])
        title = doc.get("title") or extra(state, "title") or state.panel
        line = Text(f"{icon} ", style="bold")
        line.append(str(title), style="bold")
        line.append(f" r{state.revision}", style="dim")
        if doc.get("status") and doc["status"] != "idle":
            style = {"active": "yellow", "done": "green", "failed": "red"}.get(doc["status"], "")
            line.append(f" · {doc['status']}", style=style)
        if state.document is None:
            line.append(" · closed", style="dim")
        lines = [line]
        if doc.get("subtitle"):
            lines.append(Text(str(doc["subtitle"]), style="italic"))
        if doc.get("summary"):
            lines.append(Text(str(doc["summary"]), style="dim"))
        progress = doc.get("progress")
        if isinstance(progress, dict) and progress.get("total"):
            p = bar(progress.get("done", 0), progress["total"], 16)
            p.append(f" {progress.get('done', 0)}/{progress['total']}")
            lines.append(p)
        return Group(*lines)

    def plain_text(self) -> str:
        return "\n".join(t.plain for t in self.build().renderables)


class BlockView(SafeStatic):
    def __init__(self, block: dict) -> None:
        super().__init__(classes="block")
        self.block = block
        self.block_id = block.get("id")
        self.cursor_item: str | None = None

    def set_block(self, block: dict) -> None:
        if block != self.block:
            self.block = block
            self.rebuild()

    def set_cursor_item(self, item: str | None) -> None:
        if item != self.cursor_item:
            self.cursor_item = item
            self.rebuild()

    def items(self) -> list[str]:
        try:
            return item_names(self.block)
        except Exception:
            return []

    def build(self) -> Group:
        body = render_block(self.block, self.cursor_item)
        if self.block.get("title"):
            return Group(Text(str(self.block["title"]), style="bold underline"), body)
        return Group(body)

    def plain_text(self) -> str:
        return plain_block(self.block)

    def item_text(self, item: str) -> str:
        return item_text(self.block, item)


class PanelView(Vertical):
    def __init__(self, state: ev.PanelState, *, cursor_blink: bool = False) -> None:
        super().__init__(classes="panel")
        self.state = state
        self.panel_id: str = state.panel
        self.cursor_blink = cursor_blink
        self.header = PanelHeader(self)
        self.form_status: str | None = None  # how its form's request ended (a resumed session)
        self.form_answers: dict | None = None  # and the answers, when it was answered

    def compose(self):
        yield self.header
        yield from self._block_views(self._blocks())

    def _blocks(self) -> list[dict]:
        doc = self.state.document if isinstance(self.state.document, dict) else {}
        blocks = doc.get("blocks") or []
        return [b for b in blocks if isinstance(b, dict)]

    def _block_views(self, blocks: list[dict]) -> list[Widget]:
        from .form_view import FormView  # only panels with forms pay for its imports

        return [FormView(b, cursor_blink=self.cursor_blink, status=self.form_status,
                         answers=self.form_answers)
                if b.get("kind") == "form" else BlockView(b) for b in blocks]

    def show_settled(self, status: str, answers: dict | None = None) -> None:
        """Its form's request ended (seen when a session is resumed), with these answers."""
        self.form_status = status
        self.form_answers = answers
        form = self.form() if self.is_mounted else None
        if form is not None and form.is_mounted:
            form.show_answers(answers)
            form.deactivate(status)

    def block_views(self) -> list[Widget]:
        return [c for c in self.children if c.has_class("block")]  # BlockView, FormView

    @property
    def title(self) -> str:
        doc = self.state.document if isinstance(self.state.document, dict) else {}
        return str(doc.get("title") or extra(self.state, "title") or self.panel_id)

    def actions(self) -> list[dict]:
        actions = extra(self.state, "actions") or []
        return [a for a in actions if isinstance(a, dict)]

    def item_status(self, block_id: str | None, item_id: str | None) -> str:
        """The status of an item (a checklist's, nested ones too, a step, a table row);
        `pending` when it has none."""
        for block in self._blocks():
            if block.get("id") != block_id:
                continue
            stack = list(block.get("rows") or block.get("items") or [])
            while stack:
                item = stack.pop()
                if not isinstance(item, dict):
                    continue
                if item.get("id") == item_id:
                    return str(item.get("status") or "pending")
                stack.extend(item.get("children") or item.get("items") or [])
        return "pending"

    def form(self) -> Any:
        """Its FormView, if it has one."""
        return next(iter(self.query("FormView")), None)

    async def update_state(self, state: ev.PanelState) -> None:
        """Change in place: same blocks (ids and form-ness) update, otherwise remount."""
        self.state = state
        if self.parent is None:
            return  # not in the DOM yet (a replay batch): compose draws the latest state
        self.header.rebuild()
        blocks = self._blocks()
        views = self.block_views()
        same = [v.block_id for v in views] == [b.get("id") for b in blocks] and all(
            v.has_class("form-block") == (b.get("kind") == "form") for v, b in zip(views, blocks))
        if same:
            for view, block in zip(views, blocks):
                if isinstance(view, BlockView):
                    view.set_block(block)
                elif block != view.block:
                    request = view.request_id
                    from .form_view import FormView

                    new = FormView(block, cursor_blink=self.cursor_blink)
                    await self.mount(new, after=view)
                    await view.remove()
                    if request:
                        new.activate(request)
            return
        active = self.form().request_id if self.form() else None
        await self.remove_children([v for v in views])
        await self.mount_all(self._block_views(blocks))
        if active and self.form():
            self.form().activate(active)

    def targets(self) -> list[Target]:
        out = [Target(self.header, self.panel_id)]
        for view in self.block_views():
            out.append(Target(view, self.panel_id, view.block_id))
            if isinstance(view, BlockView):
                out.extend(Target(view, self.panel_id, view.block_id, item)
                           for item in view.items())
        return out

    def plain_text(self) -> str:
        parts = [self.header.plain_text()]
        parts += [v.plain_text() for v in self.block_views()]
        return "\n\n".join(p for p in parts if p)
