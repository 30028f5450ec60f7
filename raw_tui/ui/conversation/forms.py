"""Forms: the questions waiting for an answer (an `interaction_request` on a panel's form),
each form activated where its panel is drawn, answered or cancelled from it, and settled
(here, by another client, or in a resumed session's history)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...protocol import bus as ev
from ...protocol.commands import FormAnswer, FormCancel
from ..widgets.navigator import Target
from ..widgets.sidebar import Sidebar

if TYPE_CHECKING:
    from ..widgets.form_view import FormView
    from . import ConversationFeatures


class Forms:
    def __init__(self, conversation: ConversationFeatures) -> None:
        self.conversation = conversation
        self.screen = conversation.screen
        self.questions: dict[str, str] = {}  # request_id -> panel
        self.replayed: dict[str, str] = {}  # the same, of a resumed session

    def routes(self) -> dict[type, Any]:
        return {ev.InteractionRequest: self.interaction_request,
                ev.InteractionSettled: self.interaction_settled, ev.PanelState: self.panel_state}

    def open(self, request_id: str, panel: str) -> None:
        view = self.conversation.panels.view(panel)
        form = view.form() if view is not None else None
        if form is None or form.request_id == request_id:
            return
        screen = self.screen
        if isinstance(view.parent, Sidebar) and not screen.sidebar.display:
            screen.sidebar_forced = True
            screen.apply_sidebar()
        form.activate(request_id)
        screen.call_after_refresh(view.scroll_visible, animate=False)

    def pending(self) -> list[FormView]:
        """The forms waiting for an answer, oldest question first."""
        from ..widgets.form_view import FormView

        order = list(self.questions)
        forms = [f for f in self.screen.query(FormView) if f.request_id in self.questions]
        return sorted(forms, key=lambda f: order.index(f.request_id))

    def waiting_at(self, target: Target) -> FormView | None:
        """The form waiting for an answer at `target`: on its block, or on its panel's header
        when the panel has no action to offer there."""
        panels = self.conversation.panels
        view = panels.view(target.panel) if target.panel else None
        form = view.form() if view is not None else None
        if form is None or form.request_id is None or not form.inputs:
            return None
        if target.block == form.block_id or (target.block is None
                                             and not panels.actions_for(target)):
            return form
        return None

    def submit_one(self) -> None:
        """Ctrl+S outside a form (the form's own Ctrl+S comes first inside it): submit the
        one question waiting, or say why nothing was sent."""
        forms = self.pending()
        if not forms:
            self.screen.notify("Ctrl+S: no question is waiting for an answer", timeout=3)
        elif len(forms) > 1:
            self.screen.notify(f"Ctrl+S: {len(forms)} questions are waiting; Tab into the one "
                               "to answer, then Ctrl+S", severity="warning", timeout=5)
        else:
            forms[0].action_submit()

    async def submitted(self, message: FormView.Submitted) -> None:
        screen = self.screen
        key = f"{message.request_id}:{hash(repr(sorted(message.answers.items())))}"
        reply = await screen.app.send(FormAnswer(request_id=message.request_id,
                                                 answers=message.answers, idempotency_key=key),
                                      notify=False)
        if not reply.ok:
            text = reply.message or reply.code or "answer refused"
            message.form.show_error(text)
            inside = screen.focused is not None and \
                message.form in screen.focused.ancestors_with_self
            if not inside:  # sent from elsewhere (Ctrl+S in the sidebar): the form may be hidden
                screen.notify(f"answer refused: {text}", severity="error")
        else:
            message.form.show_error(None)
            message.form.show_waiting()

    async def cancelled(self, message: FormView.Cancelled) -> None:
        await self.screen.app.send(FormCancel(request_id=message.request_id))

    # the events ---------------------------------------------------------------------------
    async def interaction_request(self, event: ev.InteractionRequest, live: bool) -> None:
        if not live:  # a resumed session: the request is over; its form shows how
            self.replayed[event.request_id] = event.panel
            return
        self.questions[event.request_id] = event.panel
        self.conversation.status.count_pending()
        self.open(event.request_id, event.panel)

    async def panel_state(self, event: ev.PanelState, live: bool) -> None:
        """A question's panel drawn anew: its form waits there."""
        for request_id, panel in self.questions.items():
            if panel == event.panel:
                self.open(request_id, panel)

    async def interaction_settled(self, event: ev.InteractionSettled, live: bool) -> None:
        screen = self.screen
        # the form answered had the focus: the composer gets it back (decided before a form
        # of the replayed history, the same one after an attach, is settled below)
        focused = list(screen.focused.ancestors_with_self) if screen.focused is not None else []
        answered_here = any(getattr(w, "request_id", None) == event.request_id
                            and w.has_class("form-block") for w in focused)
        replayed = self.replayed.pop(event.request_id, None)
        if replayed:
            view = self.conversation.panels.view(replayed, attached=False)
            if view is not None:
                view.show_settled(event.status, event.answers)
        panel = self.questions.pop(event.request_id, None)
        self.conversation.status.count_pending()
        for form in screen.query("FormView"):
            if form.request_id == event.request_id:
                form.show_answers(event.answers)  # another client's
                form.deactivate(event.status)
        if answered_here:
            screen.focus_composer()
        if live:  # the form is done with: the chat follows the conversation again (its
            screen.chat.anchor()  # field's focus scrolled it up to the form and let go)
        if panel is not None and screen.sidebar_forced and not self.questions:
            screen.sidebar_forced = False
            screen.apply_sidebar()
