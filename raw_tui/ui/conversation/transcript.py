"""The transcript: the chat's rows in order — prompts, replies (streamed as they come),
hook rows and notices — the saved history drawn in one batch, a retry's or an edit's rewind,
and `/clear`'s empty chat."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import log

from ...protocol import bus as ev
from ..messages import ReplayFinished, ReplayStarted
from .router import live_only

if TYPE_CHECKING:
    from . import ConversationFeatures

REWIND_TEXT = {"retry": "↻ retried · the earlier answer is kept in the saved history only",
               "edit": "✎ prompt edited · the earlier one and what followed are kept in the "
                       "saved history only"}
RUN_END_TEXT = {"cancelled": "turn cancelled", "max_steps": "stopped: max steps reached",
                "error": "turn failed"}


def clears(event: ev.Compaction) -> bool:
    """`/clear`: an empty compaction that keeps no turn empties the chat (a `/compact`
    summarises the model's context: nothing changes on screen, a notice says so)."""
    return not event.summary and not event.kept_turns


class Transcript:
    def __init__(self, conversation: ConversationFeatures) -> None:
        self.conversation = conversation
        self.screen = conversation.screen
        self.streaming: Any = None  # the AssistantMessageView being streamed into

    def routes(self) -> dict[type, Any]:
        return {ReplayStarted: self.replay_started, ReplayFinished: self.replay_finished,
                ev.UserMessage: self.user_message, ev.AssistantDelta: self.assistant_delta,
                ev.AssistantText: self.assistant_text, ev.HookEvent: self.hook_event,
                ev.Notice: self.notice, ev.RunEnd: self.run_end,
                ev.TurnRewind: self.turn_rewind, ev.Compaction: self.compaction}

    @property
    def chat(self) -> Any:
        return self.screen.chat

    async def add(self, row: Any) -> Any:
        return await self.chat.add(row)

    async def add_notice(self, text: str, level: str) -> None:
        """A notice row at the end of the chat."""
        from ..widgets.chat_items import NoticeRow  # the rows load with the first one drawn

        await self.chat.add(NoticeRow(text, level))

    async def draw_error(self, name: str, err: Exception) -> None:
        """One bad event must not take the session down: a notice in the chat instead."""
        log.error(f"drawing {name} failed: {err!r}")
        try:
            await self.add_notice(f"could not draw {name}: {err}", "error")
        except Exception as again:
            log.error(f"drawing the error notice failed: {again!r}")

    async def finish_stream(self, final: str | None = None) -> None:
        view, self.streaming = self.streaming, None
        if view is not None:
            await view.finish(final)

    def prompt_of(self, turn_id: str) -> Any:
        """The prompt row of turn `turn_id` (None when it is gone from view)."""
        return next((v for v in self.chat.user_messages() if v.turn_id == turn_id), None)

    # the events ---------------------------------------------------------------------------
    async def replay_started(self, event: ReplayStarted, live: bool) -> None:
        self.chat.begin_batch()

    async def replay_finished(self, event: ReplayFinished, live: bool) -> None:
        await self.chat.end_batch()

    async def user_message(self, event: ev.UserMessage, live: bool) -> None:
        await self.finish_stream()
        from ..widgets.chat_items import UserMessageView

        row = await self.chat.add(UserMessageView(event.text, event.turn_id))
        if live and row.is_attached:
            self.screen.draw_now()

    @live_only  # a resumed session draws the final text
    async def assistant_delta(self, event: ev.AssistantDelta, live: bool) -> None:
        if self.streaming is None:
            from ..widgets.assistant import AssistantMessageView

            self.streaming = AssistantMessageView()
            await self.chat.add(self.streaming)
        await self.streaming.write(event.text)

    async def assistant_text(self, event: ev.AssistantText, live: bool) -> None:
        if self.streaming is not None:
            await self.finish_stream(event.text)
        elif event.text:
            from ..widgets.assistant import AssistantMessageView

            await self.chat.add(AssistantMessageView(event.text))

    async def hook_event(self, event: ev.HookEvent, live: bool) -> None:
        from ..widgets.chat_items import HookRow

        await self.chat.add(HookRow(event))

    async def notice(self, event: ev.Notice, live: bool) -> None:
        await self.add_notice(event.message, event.level)

    async def run_end(self, event: ev.RunEnd, live: bool) -> None:
        await self.finish_stream()
        if event.status != "completed":
            text = RUN_END_TEXT.get(event.status, event.status)
            parts = [x for x in (event.code, event.message) if x and x not in text]
            detail = " ".join(dict.fromkeys(parts))  # a message that repeats the code once
            level = "warning" if event.status in ("cancelled", "max_steps") else "error"
            await self.add_notice(f"{text}{': ' + detail if detail else ''}", level)

    async def turn_rewind(self, event: ev.TurnRewind, live: bool) -> None:
        """A retry or an edit: the replaced turns leave the chat as they left the model's
        context (the saved history keeps them: `raw-tui sessions show`)."""
        await self.finish_stream()
        await self.chat.drop_from(self.prompt_of(event.from_turn))
        await self.add_notice(REWIND_TEXT.get(event.reason, event.reason), "info")

    async def compaction(self, event: ev.Compaction, live: bool) -> None:
        if clears(event):
            await self.finish_stream()
            await self.chat.clear_rows()
