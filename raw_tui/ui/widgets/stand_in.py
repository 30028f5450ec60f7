"""The composer's stand-in in the first frame. The real `Composer` is a TextArea, whose import
and set-up are about a twentieth of start-up; the stand-in draws the empty composer as it
draws itself (the placeholder, the cursor on its first cell, the same styles) and the main
screen puts the real one in its place right after the first frame.

Keys (and pastes) that reach the stand-in meanwhile are held, not handled, and handed to the
composer in the order they came, ahead of any key after them: a burst typed at once (a
browser tab, `tmux send-keys` right after launch) ends up exactly as if the composer had
been there."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.content import Content
from textual.strip import Strip
from textual.style import Style as ContentStyle
from textual.widget import Widget

from ..textual_private import ForwardedEvents, forward_event

PLACEHOLDER = "Message · Enter sends · Ctrl+J newline"


class ComposerStandIn(ForwardedEvents, Widget, can_focus=True):
    # TextArea's own rules for what an empty composer shows (textual/widgets/_text_area.py)
    COMPONENT_CLASSES = {"text-area--cursor", "text-area--placeholder"}
    DEFAULT_CSS = """
    ComposerStandIn {
        width: 1fr;
        height: auto;
        padding: 0 1;
        color: $foreground;
        background: $surface;
        & .text-area--cursor {
            text-style: $input-cursor-text-style;
        }
        & .text-area--placeholder {
            color: $text 40%;
        }
        &:ansi .text-area--cursor {
            color: $input-cursor-foreground;
            background: $input-cursor-background;
            text-style: reverse;
        }
        &:dark .text-area--cursor {
            color: $input-cursor-foreground;
            background: $input-cursor-background;
        }
        &:light .text-area--cursor {
            color: $text 90%;
            background: $foreground 70%;
        }
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.held: list[events.Event] = []
        self.successor: Widget | None = None

    def get_content_height(self, container: Any, viewport: Any, width: int) -> int:
        return 1  # as an empty TextArea: one line, whatever the placeholder's length

    def render_line(self, y: int) -> Strip:
        """What TextArea.render_line draws for an empty text with a placeholder."""
        if y:
            return Strip.blank(self.content_size.width)
        lines = Content.from_text(PLACEHOLDER).wrap(self.content_size.width)
        if not lines:
            return Strip.blank(self.content_size.width)
        line = lines[0].stylize(self.get_visual_style("text-area--placeholder"))
        if self.has_focus:
            cursor = self.get_component_rich_style("text-area--cursor")
            if cursor:
                line = line.stylize(ContentStyle.from_rich_style(cursor), 0, 1)
        return Strip(line.render_segments(self.visual_style), line.cell_length)

    def take_forwarded(self, event: events.Event) -> bool:
        """The app forwards the focused widget's keys here, in the order they came."""
        if not isinstance(event, (events.Key, events.Paste)):
            return False
        if self.successor is not None:
            forward_event(self.successor, event)
        else:
            self.held.append(event)
        return True

    def hand_over(self, composer: Widget) -> None:
        """The held keys go to `composer`, in order; any key still sent here follows them."""
        self.successor = composer
        held, self.held = self.held, []
        for event in held:
            forward_event(composer, event)
