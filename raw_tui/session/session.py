"""An agent session: builds its parts, opens and closes, and answers each command.

`Session.handle` looks the command's type up in `HANDLERS`; the work is done over the
session's state (session/state.py) by one module per feature: the turn (session/turn.py),
its model requests (session/model_request.py), compaction (session/compaction.py), retry
and edit (session/rewind.py), switching the agent or the model and starting MCP servers
(session/switch.py), panel actions (panels/actions.py), undo (checkpoints/command.py). The
same Session runs under the UI (interactive: approvals and forms are answered by commands)
and headless (no approver, no interaction surface).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Awaitable, Callable

import msgspec

from ..protocol import bus as ev
from ..protocol import commands as cmd
from ..protocol import errors
from . import rewind, switch, turn
from .compaction import COMPACT_INSTRUCTION
from .conversation import Conversation, request_prompts
from .model_request import context_size
from .state import Rewind, SessionState, TurnOutcome, new_id

if TYPE_CHECKING:
    from ..config import Agent, Config
    from ..mcp.config import ServerConfig
    from ..models.base import ModelProvider
    from .store import HistoryStore

__all__ = ["COMPACT_INSTRUCTION", "HANDLERS", "Rewind", "Session", "TurnOutcome"]

MAX_SAVED_SESSIONS = 20  # saved sessions a client is offered to resume
CLOSE_GRACE_S = 10  # how long close() waits for a cancelled turn before stopping it


class Session(SessionState):
    """Implements `commands.SessionApi`."""

    def __init__(self, config: Config, agent: Agent, *, cwd: str, bus: ev.Bus | None = None,
                 store: HistoryStore | None = None, interactive: bool = False,
                 session_id: str | None = None, history: list[ev.Event] | None = None,
                 provider: ModelProvider | None = None, forms: bool | None = None,
                 mcp_servers: dict[str, ServerConfig] | None = None, previews: bool = False,
                 keep_empty: bool = True) -> None:
        """`forms`: someone can answer interaction requests (default: `interactive`); an
        ACP client that did not negotiate `interactions` approves calls but answers no form.
        (A tool's synchronous code always runs in a worker thread: raw_tui.tools.worker.)
        `mcp_servers`: an ACP client's servers (name -> ServerConfig), added to the
        configured ones (a name already configured raises ValueError `duplicate MCP server:
        NAME` before anything is stored). `previews`: every call of a tool with a preview
        carries it on its tool_call event (an ACP client shows the diff of each write).
        `keep_empty`: False drops a new session from the store at close when nothing
        happened in it (session/keeper.py)."""
        from ..checkpoints.record import for_session
        from ..hooks.dispatcher import HookDispatcher
        from ..interactions import Interactions
        from ..panels.actions import ActionPorts
        from ..panels.declaration import plan_panel
        from ..panels.host import PanelHost
        from ..tools.dispatch import Dispatcher
        from .approver import BusApprover

        self.config, self.agent, self.cwd = config, agent, cwd
        self.bus = bus or ev.Bus()
        # the configuration's secrets leave no event, outcome, hook payload or tool result
        # (the config's own, even while it holds none: an ACP client's MCP credentials are
        # registered with it when the session adds them)
        self.redactor = self.bus.redactor = config.redactor
        self.store, self.interactive = store, interactive
        self.resumed = session_id is not None
        self.session_id = session_id or new_id("s")
        self.mcp = switch.mcp_manager(self, mcp_servers)
        self.info = cmd.SessionInfo(session_id=self.session_id, agent=agent.name,
                                    model=agent.model_alias, max_steps=agent.config.max_steps,
                                    cwd=cwd, agents=list(config.agents),
                                    models=list(config.models),
                                    sandbox=switch.sandbox_status(agent))
        self.provider = provider or switch.provider_for(agent)
        if history:
            # a scripted model continues where the saved session left it (a switched-to
            # model started at its first line: count from the last switch)
            since = max((i for i, e in enumerate(history) if isinstance(e, ev.AgentModel)),
                        default=-1)
            self.provider.replay(request_prompts(history[since + 1:], COMPACT_INSTRUCTION))
        self.conversation = Conversation.from_events(history or [])
        # every call's own key: a provider's id again (a replay, a per-response counter)
        # gets a fresh one (session/call_ids.py)
        self.call_ids = self.conversation.call_ids
        self.state, self.step, self.turn_id, self.turn_task = "idle", 0, None, None
        self.notes, self.last_usage, self.last_stop_reason = [], None, None
        self.cancel_signal, self.actions_cancel = asyncio.Event(), asyncio.Event()
        self.running_actions = {}
        self.closed = self.session_ended = False
        self.keeper = None
        if store is not None:
            from .keeper import HistoryKeeper

            row = None if self.resumed else dict(cwd=cwd, agent=agent.name,
                                                 model=agent.model_alias, config=config.label)
            self.keeper = HistoryKeeper(store, self.session_id, create=row)
            self.bus.subscribe(self.keeper.keep, first=True)
        self.keep_empty = keep_empty
        self.approver = BusApprover() if interactive else None
        self.panels = PanelHost(self.bus)
        for tool in agent.tools.tools:  # actions and reminders of restored panels need these
            self.panels.register(tool.identity, tool.declarations)
        # the one panel sent as the ACP plan; a warning for each other acp_plan (at open)
        self.plan_panel, self._plan_warnings = plan_panel(agent.tools.tools)
        if history:
            self.panels.restore([e for e in history if isinstance(e, ev.PanelState)])
        self.interactions = Interactions(self.bus, attached=interactive if forms is None else forms,
                                         panels=self.panels)
        self.hooks = HookDispatcher(agent.hooks, self.bus, cwd=cwd, agent_id=agent.name,
                                    session_id=self.session_id)
        self.watcher = None
        self.dispatcher = Dispatcher(agent, bus=self.bus, cwd=cwd, hooks=self.hooks,
                                     approver=self.approver, panels=self.panels,
                                     interactions=self.interactions.for_call,
                                     preview_calls=previews)
        self.actions = ActionPorts(self.panels, self.interactions, self.dispatcher.dispatch,
                                   notes=self.notes, running=self.running_actions,
                                   closing=self.actions_cancel)
        self.checkpoints = self.dispatcher.checkpoints = for_session(self)
        self.mcp_warnings, self.mcp_status, self.mcp_task = [], {}, None

    # attachment ------------------------------------------------------------------------
    async def open(self, *, watch: bool = False) -> None:
        """Attach: publish session_start and run SessionStart hooks (once per attachment)."""
        from ..checkpoints.record import hold

        hold(self.checkpoints, self.warn)  # `sessions undo` refuses while it is open
        self.bus.publish(ev.SessionStart(session_id=self.session_id, agent=self.agent.name))
        self.publish_state()
        for warning in self._plan_warnings:  # once: a second attachment knows them
            self.warn(warning)
        self._plan_warnings = []
        switch.start_mcp(self)
        await self.hooks.session_start("resume" if self.resumed else "create")
        if watch:
            from .reload import start_watcher

            self.watcher = start_watcher(self)

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.interactions.close()  # first: a form left pending is interrupted, not cancelled
        self.actions_cancel.set()  # panel tool actions still running are cancelled
        for signal in self.running_actions.values():
            signal.set()
        task = self.turn_task
        if task is not None and not task.done():
            self.cancel()
            done, _ = await asyncio.wait({task}, timeout=CLOSE_GRACE_S)
            if not done:  # the turn ignored the cancel: stop it (it still ends with run_end)
                task.cancel()
                await asyncio.wait({task})
        if self.state != "closing":  # a last turn or a cancelled one already said so
            self.state = "closing"
            self.publish_state()
        if self.watcher is not None:
            await self.watcher.stop()
        if not self.session_ended:
            await self.hooks.session_end()
        self.hooks.close()
        await self.mcp.close()
        if self.checkpoints is not None:
            self.checkpoints.store.release()
        if self.keeper is not None and not self.keep_empty:
            self.keeper.drop_if_empty()

    @property
    def saved(self) -> bool:
        """The history keeps this session (after close: see `keep_empty`)."""
        return self.keeper is not None and (self.keep_empty or self.keeper.saved)

    # the rest of the facade -------------------------------------------------------------
    def saved_sessions(self) -> list[cmd.SavedSession]:
        """The other saved sessions, of every directory, newest first."""
        if self.store is None:
            return []
        rows = [r for r in self.store.list() if r.id != self.session_id]
        return [cmd.SavedSession(id=r.id, title=r.title, updated_at=r.updated_at,
                                 events=r.events, cwd=r.cwd)
                for r in rows[:MAX_SAVED_SESSIONS]]

    def ui_settings(self) -> cmd.UiSettings:
        return msgspec.convert(msgspec.to_builtins(self.config.raw.ui), cmd.UiSettings)

    async def handle(self, command: cmd.Command) -> cmd.Reply:
        handler = HANDLERS.get(type(command))
        if handler is None:
            return cmd.Reply(ok=False, message=f"unknown command {type(command).__name__}")
        return await handler(self, command)

    # what the engine's other parts call (acp, host, headless, tests) ----------------------
    async def run_turn(self, text: str, *, last: bool = False,
                       rewind: Rewind | None = None) -> TurnOutcome:
        return await turn.run_turn(self, text, last=last, rewind=rewind)

    def cancel(self) -> bool:
        return turn.cancel(self)

    async def wait_idle(self) -> None:
        if self.turn_task is not None:
            await asyncio.shield(self.turn_task)

    async def mcp_ready(self) -> None:
        await switch.mcp_ready(self)

    def context_size(self) -> tuple[int, int]:
        return context_size(self)


# the command table ------------------------------------------------------------------------

async def _approval_answer(s: Session, c: cmd.ApprovalAnswer) -> cmd.Reply:
    ok = s.approver is not None and s.approver.answer(c.call_id, c.allow)
    return cmd.Reply(ok=ok, message=None if ok else "no such approval request")


async def _panel_action(s: Session, c: cmd.PanelAction) -> cmd.Reply:
    from ..panels.actions import run_panel_action

    return await run_panel_action(s.actions, c)


async def _undo(s: Session, c: cmd.Undo) -> cmd.Reply:
    from ..checkpoints.command import undo

    return await undo(s, c)


async def _quit(s: Session, c: cmd.Quit) -> cmd.Reply:
    await s.close()
    return cmd.Reply()


def _reply(fn: Callable[..., Any], *args: Any) -> cmd.Reply:
    """Run an interaction command; a refusal (invalid answer, conflict) is a Reply, not a crash."""
    try:
        fn(*args)
    except errors.RawError as err:
        return cmd.Reply(ok=False, code=err.code, message=err.message)
    return cmd.Reply()


async def _form_answer(s: Session, c: cmd.FormAnswer) -> cmd.Reply:
    return _reply(s.interactions.answer, c.request_id, c.answers, c.idempotency_key)


async def _form_cancel(s: Session, c: cmd.FormCancel) -> cmd.Reply:
    return _reply(s.interactions.cancel, c.request_id)


Handler = Callable[[Session, Any], Awaitable[cmd.Reply]]


def _now(fn: Callable[[Session, Any], cmd.Reply]) -> Handler:
    """A handler whose work is done at once (a turn it starts runs in its own task)."""

    async def run(s: Session, c: Any) -> cmd.Reply:
        return fn(s, c)

    return run


HANDLERS: dict[type[cmd.Command], Handler] = {
    cmd.Prompt: _now(lambda s, c: turn.start(s, c.text)),
    cmd.Cancel: _now(lambda s, c: cmd.Reply(ok=s.cancel())),
    cmd.ApprovalAnswer: _approval_answer,
    cmd.FormAnswer: _form_answer,
    cmd.FormCancel: _form_cancel,
    cmd.PanelAction: _panel_action,
    cmd.Compact: _now(lambda s, c: turn.start(s, "/compact")),
    cmd.Clear: _now(lambda s, c: turn.start(s, "/clear")),
    cmd.Retry: _now(lambda s, c: rewind.retry(s)),
    cmd.EditPrompt: _now(lambda s, c: rewind.edit(s, c.turn_id, c.text)),
    cmd.SwitchModel: _now(lambda s, c: switch.switch(s, s.agent.name, c.model)),
    cmd.SwitchAgent: _now(lambda s, c: switch.switch(s, c.agent, None)),
    cmd.Undo: _undo,
    cmd.Quit: _quit,
}

