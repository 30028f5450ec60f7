"""The places of the main screen the keyboard moves between — the composer, the forms
waiting for an answer, the chat, the panels — and which one it is in."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widget import Widget

from ..widgets.chat_view import ChatView
from ..widgets.sidebar import Sidebar

if TYPE_CHECKING:
    from .main import MainScreen


def place_of(widget: Widget | None) -> str | None:
    """Where the keyboard is, for the status line's keys: form, sidebar, chat or None."""
    if widget is None:
        return None
    chain = widget.ancestors_with_self
    if any(w.has_class("form-block") for w in chain):
        return "form"
    if any(isinstance(w, Sidebar) for w in chain):
        return "sidebar"
    if any(isinstance(w, ChatView) for w in chain):
        return "chat"
    return None


def cycle(screen: MainScreen, step: int) -> None:
    """Tab / Shift+Tab between the composer, the forms waiting for an answer, the chat and
    the panels. On a narrow screen reaching the panels switches the view to them, leaving
    them switches back. Inside a form, Tab moves between its fields, and on from its last
    one."""
    from ..widgets.form_view import FormView

    forms = [f for f in screen.conversation.forms.pending() if f.display and f.inputs]
    stops: list[Widget] = [screen.query("#composer, #composer-stand-in").first(), *forms,
                           screen.chat, screen.sidebar]
    chain = list(screen.focused.ancestors_with_self) if screen.focused is not None else []
    form = next((w for w in chain if isinstance(w, FormView) and w.request_id is not None),
                None)
    if form is not None:  # between its fields; from the last one on to the next place
        fields = [w for w in form.inputs.values() if w.focusable]
        if form not in stops or not fields or \
                not any(w in chain for w in (fields[-1] if step > 0 else fields[0],)):
            screen.focus_next() if step > 0 else screen.focus_previous()
            return
        place: Widget | None = form
    else:
        place = next((w for w in chain if w in stops), None)
    if place is None:
        screen.focus_next() if step > 0 else screen.focus_previous()
        return
    narrow = screen.has_class("-narrow")
    index = stops.index(place)
    for _ in range(len(stops)):
        index = (index + step) % len(stops)
        target = stops[index]
        if target is screen.sidebar and not screen.sidebar.display:
            if not narrow or not screen.sidebar.panels:
                continue
            screen.sidebar_mode = "shown"
        elif target is not screen.sidebar and narrow and screen.sidebar.display \
                and not screen.sidebar_forced:
            screen.sidebar_mode = "auto"
        screen.apply_sidebar()
        if isinstance(target, FormView):  # a waiting question: its first field
            target.focus_first()
        else:
            target.focus()
        return
