"""Panels: where each panel is drawn (the sidebar, or inline in the chat), the strip that
says a hidden panel changed, the receipt rows of their updates, and their actions (the ones
offered at the cursor, the palette's, running one)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...protocol import bus as ev
from ...protocol.commands import PanelAction
from ..widgets.navigator import Target
from .transcript import clears

if TYPE_CHECKING:  # on the first panel: the first frame draws none
    from ..widgets.panel_view import PanelView
    from . import ConversationFeatures


def applies(action: dict, target: Target, view: Any) -> bool:
    """Raw's `blocks` and `when` of an action: offered only on those blocks, and only for
    items of those statuses (the engine refuses the rest too: panels/actions.py)."""
    blocks = action.get("blocks")
    if blocks and action.get("scope") in ("block", "item") and target.block not in blocks:
        return False
    when = action.get("when")
    if not when:
        return True
    if action.get("scope") != "item" or target.item is None:
        return False  # Raw offers such an action only for items with a status
    return view.item_status(target.block, target.item) in (when.get("status") or ())


def another_call(view: Any, state: ev.PanelState) -> bool:
    """A chat panel's new document written by another call than the one its view shows (a
    second question of `ask_user`): drawn anew where that call is, the earlier view kept."""
    call, shown = state.call_id, view.state.call_id
    return state.document is not None and bool(call) and bool(shown) and call != shown


class Panels:
    def __init__(self, conversation: ConversationFeatures) -> None:
        self.conversation = conversation
        self.screen = conversation.screen
        self.in_chat: dict[str, PanelView] = {}  # the `chat` panels
        self.actions_running = 0  # panel actions sent and not answered yet (Esc cancels them)

    def routes(self) -> dict[type, Any]:
        return {ev.PanelState: self.panel_state, ev.PanelReceipt: self.panel_receipt,
                ev.Compaction: self.compaction}

    def view(self, panel: str, *, attached: bool = True) -> PanelView | None:
        view = self.screen.sidebar.panels.get(panel) or self.in_chat.get(panel)
        return view if view is not None and (view.is_attached or not attached) else None

    # the events ---------------------------------------------------------------------------
    async def panel_state(self, event: ev.PanelState, live: bool) -> None:
        screen, chat = self.screen, self.conversation.transcript.chat
        if event.placement == "chat":
            view = self.in_chat.get(event.panel)
            if view is not None and chat.holds(view) and not another_call(view, event):
                await view.update_state(event)
            elif event.document is not None:
                from ..widgets.panel_view import PanelView

                view = PanelView(event, cursor_blink=screen.cursor_blink)
                self.in_chat[event.panel] = view
                await chat.add(view)
            return
        had_panels = bool(screen.sidebar.panels)
        await screen.sidebar.upsert(event)
        if bool(screen.sidebar.panels) != had_panels:
            screen.apply_sidebar()  # in `auto` the sidebar shows while it has a panel
        if live and not screen.sidebar.display:
            document = event.document if isinstance(event.document, dict) else {}
            title = (document.get("title") or event.title or event.panel)
            state = "closed" if event.document is None else "updated"
            screen.show_panel_strip(f"◆ {title} {state} · F2 or Tab to the panels")

    async def panel_receipt(self, event: ev.PanelReceipt, live: bool) -> None:
        view = self.view(event.panel, attached=False)
        doc = view.state.document if view is not None else None
        progress = doc.get("progress") if isinstance(doc, dict) else None
        from ..widgets.chat_items import PanelReceiptRow

        await self.conversation.transcript.add(PanelReceiptRow(event, progress))

    async def compaction(self, event: ev.Compaction, live: bool) -> None:
        if clears(event):
            self.in_chat.clear()

    # actions ------------------------------------------------------------------------------
    def actions_for(self, target: Target) -> list[dict]:
        """The actions offered at the cursor, narrowest scope first: on an item its item
        actions, then its block's, then the panel's; on a block its block actions, then the
        panel's; on the panel header the panel's. Response actions belong to forms."""
        view = self.view(target.panel) if target.panel else None
        if view is None:
            return []
        scopes = (["item"] if target.item is not None else []) + (
            ["block"] if target.block else []) + ["panel"]
        actions = [a for a in view.actions() if a.get("kind") != "response"
                   and applies(a, target, view)]
        actions.sort(key=lambda a: not a.get("primary"))  # Raw's primary item action first
        return [a for scope in scopes for a in actions if a.get("scope", "panel") == scope]

    def open_actions(self, target: Target) -> None:
        screen = self.screen
        actions = self.actions_for(target)
        if not actions:
            screen.notify("no actions here", timeout=2)
            return
        view = self.view(target.panel)
        where = view.title + (f" › {target.block}" if target.block else "") + (
            f" › {target.item}" if target.item else "")

        def run(action: dict) -> None:
            scope = action.get("scope", "panel")  # name only what the action's scope needs
            block = target.block if scope in ("block", "item") else None
            item = target.item if scope == "item" else None
            screen.run_worker(self.run_action(target.panel, action, block, item),
                              group="commands")

        def chosen(action: dict | None) -> None:
            if action is None:
                return
            if not action.get("confirm"):
                run(action)
                return
            # Raw's `confirm`: asked here, before the action; it is never an approval
            yes = {"id": "yes", "label": f"Yes, {action.get('label')}", "kind": "",
                   "scope": "confirm"}
            screen.app.push_screen(ActionsMenu(str(action["confirm"]), [yes]),
                                   lambda answer: run(action) if answer is not None else None)

        from ..screens.actions_menu import ActionsMenu

        screen.app.push_screen(ActionsMenu(where, actions), chosen)

    def palette_actions(self) -> list[tuple[str, str, dict]]:
        """(panel, title, action) of every panel-scope action on screen (the palette)."""
        out = []
        for panel in list(self.screen.sidebar.panels) + list(self.in_chat):
            view = self.view(panel)
            for action in view.actions() if view is not None else ():
                if action.get("scope", "panel") == "panel" and action.get("kind") != "response":
                    out.append((panel, view.title, action))
        return out

    async def run_action(self, panel: str, action: dict, block: str | None = None,
                         item: str | None = None) -> None:
        self.actions_running += 1
        try:
            reply = await self.screen.app.send(PanelAction(
                panel=panel, action=str(action.get("id")), block=block, item=item))
        finally:
            self.actions_running -= 1
        if reply.ok and reply.draft is not None:
            composer = self.screen.composer
            composer.set_draft(reply.draft)
            if reply.send:
                composer.action_send()
