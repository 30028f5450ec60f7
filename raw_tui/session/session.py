"""An agent session: the turn loop over a model and the gate, publishing every step.

States: idle → running → cancelling → idle; closing at the end. One turn = the user's
prompt, then model request → tool calls → results, repeated until the model answers without
tool calls or `max_steps` model requests were made. The same Session runs under the UI
(interactive: approvals and forms are answered by commands) and headless (no approver, no
interaction surface).
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
import time
from pathlib import Path
from dataclasses import dataclass
from typing import Any

import msgspec

from .. import bus as ev
from .. import commands as cmd
from .. import errors
from ..models.base import (STOP_MAX_TOKENS, Done, Message, ModelError, TextDelta,
                           ToolCallRequest, ToolDefinition, Usage, assistant_message,
                           make_provider, tool_message, user_message)
from ..cancel import Cancelled, unless_cancelled
from ..redact import Redactor
from ..tools.dispatch import Dispatcher
from .approver import BusApprover
from .conversation import Conversation, request_prompts
from .prompt import system_prompt

DEFAULT_KEEP_TURNS = 2
MAX_SAVED_SESSIONS = 20  # saved sessions a client is offered to resume
CLOSE_GRACE_S = 10  # how long close() waits for a cancelled turn before stopping it

TRUNCATED = errors.TRUNCATED  # run_end code of a turn whose last reply hit the output limit
TRUNCATED_TEXT = "the model's reply was cut at its output limit (max_tokens)"

BYTES_PER_TOKEN = 4  # the context's size in tokens, estimated (no tokenizer is loaded)

COMPACT_INSTRUCTION = (
    "Summarise the conversation so far for your own later use: the task, what was done, "
    "files touched, decisions, and what remains. Be concise.")


def new_id(prefix: str) -> str:
    return f"{prefix}{int(time.time() * 1000):x}{secrets.token_hex(3)}"


class TurnCancelled(Exception):
    pass


@dataclass(frozen=True)
class Rewind:
    """A turn replacing `from_turn` and every later one (`reason`: retry or edit)."""

    from_turn: str
    reason: str


@dataclass
class TurnOutcome:
    status: str  # completed | error | cancelled | max_steps
    code: str | None = None
    message: str | None = None


class Session:
    """Implements `commands.SessionApi`."""

    def __init__(self, config, agent, *, cwd: str, bus: ev.Bus | None = None, store=None,
                 interactive: bool = False, session_id: str | None = None,
                 history: list[ev.Event] | None = None, provider=None,
                 forms: bool | None = None, mcp_servers: dict | None = None,
                 previews: bool = False, keep_empty: bool = True) -> None:
        """`forms`: someone can answer interaction requests (default: `interactive`); an
        ACP client that did not negotiate `interactions` approves calls but answers no form.
        (A tool's synchronous code always runs in a worker thread: raw_tui.tools.worker.)
        `mcp_servers`: an ACP client's servers (name -> ServerConfig), added to the
        configured ones (a name already configured raises ValueError `duplicate MCP server:
        NAME` before anything is stored). `previews`: every call of a tool with a preview
        carries it on its tool_call event (an ACP client shows the diff of each write).
        `keep_empty`: False drops a new session from the store at close when nothing
        happened in it (session/keeper.py)."""
        from ..panels.host import PanelHost
        from ..interactions import Interactions

        self.config = config
        self.agent = agent
        self.cwd = cwd
        self.bus = bus or ev.Bus()
        # the configuration's secrets leave no event, outcome, hook payload or tool result
        # (the config's own, even while it holds none: an ACP client's MCP credentials are
        # registered with it when the session adds them)
        redactor = getattr(config, "redactor", None)
        self.redactor: Redactor = redactor if redactor is not None else Redactor()
        self.bus.redactor = self.redactor
        self.store = store
        self.interactive = interactive
        self.resumed = session_id is not None
        self.session_id = session_id or new_id("s")
        self.mcp = _mcp_manager(config, cwd, self._warn, self.redactor, mcp_servers)
        self.info = cmd.SessionInfo(session_id=self.session_id, agent=agent.name,
                                    model=agent.model_alias, max_steps=agent.config.max_steps,
                                    cwd=cwd, agents=list(getattr(config, "agents", {})),
                                    models=list(getattr(config, "models", {})),
                                    sandbox=_sandbox_status(agent))
        self.provider = provider or make_provider(_model_spec(agent))
        if history and hasattr(self.provider, "replay"):
            # a scripted model continues where the saved session left it (a switched-to
            # model started at its first line: count from the last switch)
            since = max((i for i, e in enumerate(history) if isinstance(e, ev.AgentModel)),
                        default=-1)
            self.provider.replay(request_prompts(history[since + 1:], COMPACT_INSTRUCTION))
        self.conversation = Conversation.from_events(history or [])
        # every call's own key: a provider's id again (a replay, a per-response counter)
        # gets a fresh one (session/call_ids.py)
        self.call_ids = self.conversation.call_ids
        self.state = "idle"
        self.step = 0
        self.turn_id: str | None = None  # the running turn's id
        self.notes: list[str] = []
        self.last_usage: Usage | None = None
        self.last_stop_reason: str | None = None  # the last model reply's normalised stop
        self._turn_task: asyncio.Task | None = None
        self._cancel = asyncio.Event()
        self.actions_cancel = asyncio.Event()  # set at close: stops panel tool actions
        # panel tool actions running now: call id -> its own cancel signal (panels/actions.py)
        self.running_actions: dict[str, asyncio.Event] = {}
        self._closed = False
        self._session_ended = False  # SessionEnd hooks ran (a last turn runs them itself)
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
        from ..panels.declaration import plan_panel

        # the one panel sent as the ACP plan; a warning for each other acp_plan (at open)
        self.plan_panel, self._plan_warnings = plan_panel(agent.tools.tools)
        if history:
            self.panels.restore([e for e in history if isinstance(e, ev.PanelState)])
        self.interactions = Interactions(self.bus, attached=interactive if forms is None else forms,
                                         panels=self.panels)
        self.hooks = _hook_dispatcher(agent, self.bus, cwd, self.session_id)
        self.watcher = None
        self.dispatcher = Dispatcher(agent, bus=self.bus, cwd=cwd, hooks=self.hooks,
                                     approver=self.approver, panels=self.panels,
                                     interactions=self.interactions.for_call,
                                     preview_calls=previews)
        from ..checkpoints.record import for_session

        self.checkpoints = self.dispatcher.checkpoints = for_session(self)
        self.mcp_warnings: list[str] = []
        self.mcp_status: dict[str, str] = {}  # identity -> found | missing | skipped
        self._mcp_task: asyncio.Task | None = None

    # attachment ------------------------------------------------------------------------
    async def open(self, *, watch: bool = False) -> None:
        """Attach: publish session_start and run SessionStart hooks (once per attachment)."""
        from ..checkpoints.record import hold

        hold(self.checkpoints, self._warn)  # `sessions undo` refuses while it is open
        self.bus.publish(ev.SessionStart(session_id=self.session_id, agent=self.agent.name))
        self._publish_state()
        for warning in self._plan_warnings:  # once: a second attachment knows them
            self._warn(warning)
        self._plan_warnings = []
        self.start_mcp()
        await self.hooks.session_start("resume" if self.resumed else "create")
        if watch:
            self.watcher = _start_watcher(self)

    # MCP servers -------------------------------------------------------------------------
    def start_mcp(self) -> None:
        """Start the MCP servers the agent's tools use, in the background (the UI draws
        first); the first model request waits for them. Idempotent."""
        from ..mcp.manager import pending_servers

        if self._mcp_task is None and pending_servers(self.agent):
            self._mcp_task = asyncio.create_task(self._start_mcp(), name="mcp-start")

    async def mcp_ready(self) -> None:
        """Wait until the MCP servers started (or failed); their tools are then exposed."""
        if self._mcp_task is not None:
            await asyncio.shield(self._mcp_task)

    async def _start_mcp(self) -> None:
        from ..mcp.manager import resolve_agent

        wanted = self.agent
        agent, warnings, status = await resolve_agent(wanted, self.mcp, file=self.config.label)
        if self.agent.name != wanted.name:  # switched meanwhile: that agent's own start counts
            return
        # a model switched meanwhile stays
        agent = dataclasses.replace(agent, model_alias=self.agent.model_alias,
                                    model=self.agent.model)
        self.agent = self.dispatcher.agent = agent
        self.mcp_status, self.mcp_warnings = status, warnings
        for tool in agent.tools.tools:
            if getattr(tool, "is_mcp", False):
                self.panels.register(tool.identity, tool.declarations)
        for warning in warnings:
            self._warn(warning)

    def _warn(self, message: str) -> None:
        """A warning: a notice under the UI; one line on stderr otherwise (a headless run's
        stdout carries only its output)."""
        if self.interactive:
            self.bus.publish(ev.Notice(level="warning", message=message))  # redacted there
        else:
            import sys

            from ..termsafe import escape_controls

            line = escape_controls(self.redactor.text(message), keep_lines=False)
            print(f"raw-tui: warning: {line}", file=sys.stderr)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.interactions.close()  # first: a form left pending is interrupted, not cancelled
        self.actions_cancel.set()  # panel tool actions still running are cancelled
        for signal in self.running_actions.values():
            signal.set()
        if self._turn_task is not None and not self._turn_task.done():
            self.cancel()
            done, _ = await asyncio.wait({self._turn_task}, timeout=CLOSE_GRACE_S)
            if not done:  # the turn ignored the cancel: stop it (it still ends with run_end)
                self._turn_task.cancel()
                await asyncio.wait({self._turn_task})
        if self.state != "closing":  # a last turn or a cancelled one already said so
            self.state = "closing"
            self._publish_state()
        if self.watcher is not None:
            await self.watcher.stop()
        if not self._session_ended:
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

    # commands ---------------------------------------------------------------------------
    async def handle(self, command: cmd.Command) -> cmd.Reply:
        if isinstance(command, cmd.Prompt):
            return self._prompt(command.text)
        if isinstance(command, cmd.Cancel):
            return cmd.Reply(ok=self.cancel())
        if isinstance(command, cmd.ApprovalAnswer):
            ok = self.approver is not None and self.approver.answer(command.call_id, command.allow)
            return cmd.Reply(ok=ok, message=None if ok else "no such approval request")
        if isinstance(command, cmd.FormAnswer):
            return _reply(self.interactions.answer, command.request_id, command.answers,
                          command.idempotency_key)
        if isinstance(command, cmd.FormCancel):
            return _reply(self.interactions.cancel, command.request_id)
        if isinstance(command, cmd.PanelAction):
            return await self.panel_action(command)
        if isinstance(command, cmd.Compact):
            return self._prompt("/compact")
        if isinstance(command, cmd.Clear):
            return self._prompt("/clear")
        if isinstance(command, cmd.Retry):
            return self._retry()
        if isinstance(command, cmd.EditPrompt):
            return self._edit(command.turn_id, command.text)
        if isinstance(command, cmd.SwitchModel):
            return self._switch(self.agent.name, command.model)
        if isinstance(command, cmd.SwitchAgent):
            return self._switch(command.agent, None)
        if isinstance(command, cmd.Undo):
            from ..checkpoints.command import undo

            return await undo(self, command)
        if isinstance(command, cmd.Quit):
            await self.close()
            return cmd.Reply()
        return cmd.Reply(ok=False, message=f"unknown command {type(command).__name__}")

    def _prompt(self, text: str, rewind: Rewind | None = None) -> cmd.Reply:
        refused = self._refuse_unless_idle()
        if refused is not None:
            return refused
        self._turn_task = asyncio.create_task(self.run_turn(text, rewind=rewind))
        return cmd.Reply()

    def _refuse_unless_idle(self) -> cmd.Reply | None:
        if self._closed:
            return cmd.Reply(ok=False, code=errors.CLOSED, message="the session is closed")
        if self.busy:
            return cmd.Reply(ok=False, code=errors.BUSY, message="a turn is running")
        if self.keeper is not None and self.keeper.unsaved is not None:  # session/unsaved.py
            from .unsaved import refusal

            return cmd.Reply(ok=False, code=errors.HISTORY_ERROR,
                             message=refusal(self.keeper.unsaved))
        return None

    # retry and edit ----------------------------------------------------------------------
    def _retry(self) -> cmd.Reply:
        """The last prompt still in the model's context, once more, in a new turn."""
        turn = self.conversation.last_prompt_turn()
        if turn is None:
            return cmd.Reply(ok=False, code=errors.REWIND_UNAVAILABLE,
                             message="nothing to retry: no prompt in the conversation")
        return self._prompt(self.conversation.prompts[turn][0], Rewind(turn, "retry"))

    def _edit(self, turn_id: str, text: str) -> cmd.Reply:
        """`text` in place of the prompt of `turn_id`, in a new turn."""
        if not text.strip():
            return cmd.Reply(ok=False, code=errors.REWIND_UNAVAILABLE, message="the prompt is empty")
        if turn_id not in self.conversation.prompts or turn_id not in self.conversation.turns():
            return cmd.Reply(ok=False, code=errors.REWIND_UNAVAILABLE,
                             message="that prompt is no longer in the model's context "
                                     "(cleared, compacted or replaced): send it as a new one")
        return self._prompt(text, Rewind(turn_id, "edit"))

    # switching the agent or the model ----------------------------------------------------
    def _switch(self, agent_name: str, model: str | None) -> cmd.Reply:
        """Run the next turns as `agent_name` on `model` (None: the agent's own model)."""
        refused = self._refuse_unless_idle()
        if refused is not None:
            return refused
        if agent_name not in self.config.agents:
            return cmd.Reply(ok=False, code=errors.UNKNOWN_AGENT,
                             message=f"unknown agent {agent_name!r}")
        agent = self.config.agents[agent_name]
        if model is not None:
            if model not in self.config.models:
                return cmd.Reply(ok=False, code=errors.UNKNOWN_MODEL,
                                 message=f"unknown model {model!r}")
            agent = dataclasses.replace(agent, model_alias=model, model=self.config.models[model])
        self.use_agent(agent)
        self.bus.publish(ev.AgentModel(agent=agent.name, model=agent.model_alias))
        self._publish_state()
        return cmd.Reply()

    def use_agent(self, agent) -> None:
        """Turns from now on run as `agent` (tools, rules, hooks) on its model."""
        same_agent = agent.name == self.agent.name
        self.provider = make_provider(_model_spec(agent))
        if same_agent:  # only the model changes: keep the tools MCP servers resolved
            agent = dataclasses.replace(self.agent, model_alias=agent.model_alias,
                                        model=agent.model)
        self.agent = self.dispatcher.agent = agent
        self.info = msgspec.structs.replace(self.info, agent=agent.name, model=agent.model_alias,
                                            max_steps=agent.config.max_steps,
                                            sandbox=_sandbox_status(agent))
        if same_agent:
            return
        old = self.hooks.swap(agent.hooks)
        self.hooks.agent_id = agent.name
        if old is not agent.hooks:
            old.close()
        for tool in agent.tools.tools:
            self.panels.register(tool.identity, tool.declarations)
        self._mcp_task = None
        self.start_mcp()

    @property
    def busy(self) -> bool:
        return self._turn_task is not None and not self._turn_task.done()

    async def wait_idle(self) -> None:
        if self._turn_task is not None:
            await asyncio.shield(self._turn_task)

    def cancel(self) -> bool:
        """Cancel the turn and every panel tool action running now (what waits is
        cancelled; nothing runs after its cancel)."""
        stopped = self.cancel_actions()
        if self.state != "running":
            return stopped
        self.state = "cancelling"
        self._cancel.set()
        self._publish_state()
        return True

    # the turn ---------------------------------------------------------------------------
    async def run_turn(self, text: str, *, last: bool = False,
                       rewind: Rewind | None = None) -> TurnOutcome:
        """Run one turn to its end; publishes exactly one run_end (also when the task running
        it is cancelled from outside, e.g. a close that timed out). The `last` turn of a
        session (a headless run) runs SessionEnd hooks after Stop, so that run_end is the
        last event of the run and their receipts come before it."""
        stripped = text.strip()
        if stripped == "/clear":
            return self._clear()
        if self.state != "idle":
            return TurnOutcome("error", errors.BUSY, f"the session is {self.state}")
        turn_id = self.turn_id = new_id("t")
        self._cancel = asyncio.Event()
        self.state, self.step = "running", 0
        self._take_hook_reload()
        self._publish_state()
        try:
            try:
                if stripped == "/compact":
                    outcome = await self._compact_turn(turn_id)
                else:
                    outcome = await self._turn(turn_id, text, rewind)
            except TurnCancelled:
                outcome = TurnOutcome("cancelled", errors.CANCELLED, "cancelled")
            except ModelError as err:
                outcome = TurnOutcome("error", err.code, err.message)
            except Exception as err:  # never let a bug take the session down
                outcome = TurnOutcome("error", errors.INTERNAL_ERROR, f"{type(err).__name__}: {err}")
            outcome = self._redacted(outcome)
            await self._stop_hooks(turn_id, outcome, last=last)
        except asyncio.CancelledError:
            self._end_turn(turn_id, TurnOutcome("cancelled", errors.CANCELLED, "cancelled"))
            raise
        self._end_turn(turn_id, outcome)
        return outcome

    def _redacted(self, outcome: TurnOutcome) -> TurnOutcome:
        """A provider may echo the key in its error (`401 invalid key: Bearer sk-…`)."""
        if outcome.message is None:
            return outcome
        return TurnOutcome(outcome.status, outcome.code, self.redactor.text(outcome.message))

    async def _stop_hooks(self, turn_id: str, outcome: TurnOutcome, *, last: bool) -> None:
        """Stop hooks, then SessionEnd hooks after the `last` turn; a failure of theirs is a
        notice, never a turn without its run_end."""
        event = "Stop"
        try:
            await self.hooks.stop(turn_id, _run_dict(outcome), self._cancel)
            if last:
                event, self._session_ended = "SessionEnd", True
                await self.hooks.session_end(self._cancel)
        except Exception as err:
            self.bus.publish(ev.Notice(level="error", message=f"{event} hooks failed: "
                                                              f"{type(err).__name__}: {err}",
                                       turn_id=turn_id))

    def _end_turn(self, turn_id: str, outcome: TurnOutcome) -> None:
        """The state goes back to idle (closing after the last turn) first, still of this
        turn: run_end is the last event of a turn."""
        ending = self._closed or self._session_ended
        self.state, self.step = ("closing" if ending else "idle"), 0
        self.turn_id = None
        self._publish_state(turn_id)
        self.bus.publish(ev.RunEnd(status=outcome.status, **_opt(code=outcome.code,
                                   message=outcome.message), turn_id=turn_id))

    def _clear(self) -> TurnOutcome:
        """`/clear`: the model starts over. Not a turn (no run_end); saved as an empty
        compaction, so a resumed session starts over too."""
        if self.state != "idle":
            return TurnOutcome("error", errors.BUSY, f"the session is {self.state}")
        self.conversation.clear()
        self.bus.publish(ev.Compaction(summary="", kept_turns=[]))
        self.bus.publish(ev.Notice(level="info", message="conversation cleared"))
        return TurnOutcome("completed")

    async def _turn(self, turn_id: str, text: str, rewind: Rewind | None = None) -> TurnOutcome:
        if self._mcp_task is not None and not self._mcp_task.done():
            await self._unless_cancelled(self.mcp_ready())
        gate = await self.hooks.user_prompt_submit(text, turn_id, self._cancel)
        if self._cancel.is_set():
            raise TurnCancelled
        if not gate.allowed:
            return TurnOutcome("error", gate.code or errors.HOOK_DENIED, gate.reason)
        notes, self.notes = self.notes, []
        if rewind is not None and rewind.from_turn in self.conversation.turns():
            # the superseded turns leave the context; the notes they carried stay
            notes = self.conversation.rewind(rewind.from_turn) + notes
            self.bus.publish(ev.TurnRewind(from_turn=rewind.from_turn, reason=rewind.reason,
                                           turn_id=turn_id))
        self.bus.publish(ev.UserMessage(text=text, **_opt(notes=notes or None), turn_id=turn_id))
        self.conversation.add_prompt(turn_id, text, notes)
        max_steps = self.agent.config.max_steps
        while True:
            if self.step >= max_steps:
                return TurnOutcome("max_steps", "max_steps",
                                   f"stopped after {max_steps} model requests")
            self.step += 1
            self._publish_state()
            await self._maybe_auto_compact(turn_id)
            reply_text, calls = await self._model_request(turn_id)
            self.conversation.add(turn_id, assistant_message(reply_text, calls))
            if not calls:
                if self.last_stop_reason == STOP_MAX_TOKENS:
                    return TurnOutcome("completed", TRUNCATED, TRUNCATED_TEXT)
                return TurnOutcome("completed")
            stop = await self._run_calls(turn_id, calls)
            if stop is not None:
                return stop

    def context_size(self) -> tuple[int, int]:
        """(bytes, estimated tokens) of what the next model request would send: the system
        prompt, the conversation and the tool definitions, as JSON."""
        size = len(msgspec.json.encode({
            "system": system_prompt(self.agent, self.cwd),
            "messages": self.conversation.messages(), "tools": self._tool_definitions()}))
        return size, -(-size // BYTES_PER_TOKEN)

    def _tool_definitions(self) -> list[ToolDefinition]:
        """What the model sees of the tools: never panel state; denied tools absent."""
        return [ToolDefinition(**t.definition()) for t in self.agent.model_tools()]

    async def _model_request(self, turn_id: str) -> tuple[str, list[ToolCallRequest]]:
        text, calls = await self._stream(turn_id, self.conversation.messages(),
                                         self._tool_definitions())
        for call in calls:
            call.id = self.call_ids.key(call.id)
        self.bus.publish(ev.AssistantText(text=text, turn_id=turn_id))
        self._publish_usage(turn_id)
        if self.last_stop_reason == STOP_MAX_TOKENS:
            self.bus.publish(ev.Notice(level="warning", message=TRUNCATED_TEXT, turn_id=turn_id))
        return text, calls

    def _publish_usage(self, turn_id: str) -> None:
        """A `usage` event for the request just made, when the provider reported one."""
        usage = self.last_usage
        if usage is None:
            return
        window = self.agent.model.context_window_tokens
        self.bus.publish(ev.TokenUsage(input_tokens=usage.input_tokens,
                                       output_tokens=usage.output_tokens,
                                       **_opt(context_window_tokens=window), turn_id=turn_id))

    async def _stream(self, turn_id: str | None, messages: list[Message],
                      tools: list[ToolDefinition], *, publish: bool = True):
        parts: list[str] = []
        calls: list[ToolCallRequest] = []
        self.last_stop_reason = None
        shown = self.redactor.stream()  # a secret cut across two deltas is caught too

        def show(text: str) -> None:
            if publish and text:
                self.bus.publish(ev.AssistantDelta(text=text, turn_id=turn_id))

        async def consume() -> None:
            async for item in self.provider.stream(messages, tools,
                                                   system=system_prompt(self.agent, self.cwd)):
                if isinstance(item, TextDelta):
                    parts.append(item.text)
                    show(shown.feed(item.text))
                elif isinstance(item, ToolCallRequest):
                    calls.append(item)
                elif isinstance(item, Usage):
                    self.last_usage = item
                elif isinstance(item, Done):
                    self.last_stop_reason = item.stop_reason

        try:
            await self._unless_cancelled(consume())
        finally:
            show(shown.flush())
        return "".join(parts), calls

    async def _unless_cancelled(self, coro) -> Any:
        try:
            return await unless_cancelled(coro, self._cancel)  # closes the HTTP stream too
        except Cancelled:
            raise TurnCancelled from None

    async def _run_calls(self, turn_id: str, calls: list[ToolCallRequest]) -> TurnOutcome | None:
        """Run one response's calls in order. After approval_required or a cancel, the
        remaining calls get `cancelled` results."""
        stop: TurnOutcome | None = None
        for call in calls:
            if stop is not None or self._cancel.is_set():
                self._cancelled_result(turn_id, call)
                continue
            if call.raw_arguments is not None and self._exposed(call.name):
                self._invalid_json_result(turn_id, call)
                continue
            arguments = call.arguments if call.raw_arguments is None else call.raw_arguments
            report = await self.dispatcher.dispatch(call.name, arguments, call_id=call.id,
                                                    turn_id=turn_id, cancel=self._cancel)
            self.conversation.add(turn_id, tool_message(  # no secret reaches the model
                call.id, self.redactor.text(report.result.text()), is_error=report.result.isError))
            if report.code == errors.APPROVAL_REQUIRED:
                stop = TurnOutcome("error", errors.APPROVAL_REQUIRED, report.message)
        if stop is None and self._cancel.is_set():
            raise TurnCancelled
        return stop

    def _exposed(self, name: str) -> bool:
        """The call would pass step 1 (exposure); otherwise dispatch gives its code."""
        tool = self.agent.tools.find(name)
        return tool is not None and self.agent.rules.unconditional(tool.identity)[0] != "deny"

    def _cancelled_result(self, turn_id: str, call: ToolCallRequest) -> None:
        self._synthetic_result(turn_id, call, errors.CANCELLED, "cancelled")

    def _invalid_json_result(self, turn_id: str, call: ToolCallRequest) -> None:
        self._synthetic_result(turn_id, call, errors.INVALID_ARGUMENTS,
                               "invalid arguments: not a JSON object")

    def _synthetic_result(self, turn_id: str, call: ToolCallRequest, code: str, text: str) -> None:
        tool = self.agent.tools.find(call.name)
        arguments: Any = call.raw_arguments if call.raw_arguments is not None else call.arguments
        from ..tools.summary import generic

        self.bus.publish(ev.ToolCall(call_id=call.id, identity=tool.identity if tool else call.name,
                                     name=call.name, arguments=arguments, turn_id=turn_id,
                                     summary=generic(tool, call.name, arguments)))
        content = [{"type": "text", "text": text}]
        self.bus.publish(ev.ToolResultEvent(call_id=call.id, isError=True, code=code,
                                            content=content, turn_id=turn_id))
        self.conversation.add(turn_id, tool_message(call.id, text, is_error=True))

    # compaction --------------------------------------------------------------------------
    async def _maybe_auto_compact(self, turn_id: str) -> None:
        """Before a model request: compact when the last request's input passed the agent's
        `compact.trigger_tokens` (the provider's Usage; the scripted model reports none)."""
        settings = self.agent.config.compact
        if settings is None or settings.trigger_tokens is None or self.last_usage is None:
            return
        if self.last_usage.input_tokens < settings.trigger_tokens:
            return
        self.last_usage = None
        await self._compact(turn_id, keep_current=True)

    async def _compact_turn(self, turn_id: str) -> TurnOutcome:
        """`/compact`, with a notice saying what it did (or why it did nothing)."""
        turns = len(self.conversation.turns())
        settings = self.agent.config.compact
        keep = settings.keep_turns if settings is not None else DEFAULT_KEEP_TURNS
        if not await self._compact(turn_id, keep_current=False):
            self._notice("nothing to compact: " + (
                "the conversation is empty" if not turns else
                f"the context holds {_turns(turns)}, and compaction keeps the last {keep} "
                f"whole"), turn_id)
            return TurnOutcome("completed", message="nothing to compact")
        kept = len(self.conversation.turns())
        self._notice(f"context compacted: {_turns(turns - kept, 'earlier turn')} summarised, "
                     f"{_turns(kept)} kept whole", turn_id)
        return TurnOutcome("completed")

    def _notice(self, message: str, turn_id: str | None = None) -> None:
        self.bus.publish(ev.Notice(level="info", message=message, **_opt(turn_id=turn_id)))

    async def _compact(self, turn_id: str, *, keep_current: bool) -> bool:
        """Summarise every turn but the last `keep_turns` (and the running one) with the model;
        the context becomes the summary, the panel reminder, then the kept turns. False when
        there was nothing older to summarise."""
        settings = self.agent.config.compact
        keep = settings.keep_turns if settings is not None else DEFAULT_KEEP_TURNS
        turns = self.conversation.turns()
        kept = turns[-keep:] if keep > 0 else []
        if keep_current and turn_id in turns and turn_id not in kept:
            kept.append(turn_id)
        older = [(t, m) for t, m in self.conversation.entries if t not in kept]
        if not older:
            return False
        messages = Conversation(entries=older, summary=self.conversation.summary,
                                reminder=self.conversation.reminder).messages()
        messages.append(user_message(COMPACT_INSTRUCTION))
        # the tools go along: a provider may refuse tool calls in a request without them
        summary, _ = await self._stream(turn_id, messages, self._tool_definitions(),
                                        publish=False)
        # what the model reads from now on is what the history keeps: no secret (a panel's
        # state is kept in memory as the tool wrote it; the summary may quote one)
        summary = self.redactor.text(summary.strip() or "(the model gave no summary)")
        self.last_usage = None  # the summary request's size says nothing about the new context
        reminder = self.panels.reminder()
        reminder = self.redactor.text(reminder) if reminder is not None else None
        self.conversation.compact(summary, kept, reminder)
        self.bus.publish(ev.Compaction(summary=summary, kept_turns=kept,
                                       **_opt(reminder=reminder), turn_id=turn_id))
        return True

    # panel actions -----------------------------------------------------------------------
    def cancel_actions(self) -> bool:
        """End every panel tool action running now: one waiting for its approval is denied
        (its handler never runs), any other is cancelled. True when there was one."""
        for call_id, signal in list(self.running_actions.items()):
            if self.approver is None or not self.approver.answer(call_id, False):
                signal.set()
        return bool(self.running_actions)

    async def panel_action(self, command: cmd.PanelAction) -> cmd.Reply:
        from ..panels.actions import run_panel_action

        return await run_panel_action(self, command)

    # helpers ------------------------------------------------------------------------------
    def _publish_state(self, ending_turn: str | None = None) -> None:
        state = ev.TurnState(state=self.state, step=self.step,
                             max_steps=self.agent.config.max_steps)
        if self.turn_id is not None and self.state in ("running", "cancelling"):
            state.turn_id = self.turn_id
        elif ending_turn is not None:
            state.turn_id = ending_turn
        self.bus.publish(state)

    def _take_hook_reload(self) -> None:
        if self.watcher is not None:
            self.watcher.take_pending()


def _reply(fn, *args) -> cmd.Reply:
    """Run an interaction command; a refusal (invalid answer, conflict) is a Reply, not a crash."""
    try:
        fn(*args)
    except errors.RawError as err:
        return cmd.Reply(ok=False, code=err.code, message=err.message)
    return cmd.Reply()


def _turns(n: int, noun: str = "turn") -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _opt(**fields: Any) -> dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not None}


def _run_dict(outcome: TurnOutcome) -> dict[str, Any]:
    return {"status": outcome.status, **_opt(code=outcome.code, message=outcome.message)}


def _model_spec(agent):
    from ..models.base import ModelSpec

    m = agent.model
    return ModelSpec(method=m.method, model_id=m.model_id, base_url=m.base_url,
                     api_key_env=m.api_key_env, api_key=m.api_key, script=m.script,
                     request_timeout_ms=m.request_timeout_ms,
                     context_window_tokens=m.context_window_tokens, max_tokens=m.max_tokens,
                     tool_choice=m.tool_choice, provider=m.provider, alias=agent.model_alias,
                     when_done=m.when_done)


def _mcp_manager(config, cwd: str, warn, redactor: Redactor,
                 client_servers: dict | None = None):
    """The session's MCP manager (no server started): the configured servers, then an ACP
    client's (their env/header values used as given)."""
    from ..mcp.manager import McpManager

    # credentials never leave (docs/security.md)
    manager = McpManager(cwd=cwd, notify=warn, redactor=redactor)
    mcp = getattr(config, "mcp", None)
    if mcp is not None:
        manager.add_servers(mcp.servers, mcp.declarations)
    if client_servers:
        manager.add_servers(client_servers, literal=True)
    return manager


def _hook_dispatcher(agent, bus, cwd, session_id):
    from ..hooks.dispatcher import HookDispatcher

    return HookDispatcher(agent.hooks, bus, cwd=cwd, agent_id=agent.name, session_id=session_id)


def _start_watcher(session: "Session"):
    """Watch the hook folders and the config file; changes apply at the next turn."""
    from ..config import load_config
    from ..hooks.watcher import HookWatcher

    config = session.config
    if config.file is None:
        return None

    def reload():
        fresh = load_config(str(config.file), cwd=Path(session.cwd),
                            client_mcp=config.client_mcp)
        return fresh.agent(session.agent.name).hooks

    watcher = HookWatcher(reload, dispatcher=session.hooks, bus=session.bus,
                          config_file=config.file)
    watcher.start()
    return watcher


def _sandbox_status(agent) -> str:
    """The status line's words on bash's sandbox, for an agent that uses bash."""
    tools = getattr(getattr(agent, "tools", None), "tools", ())
    if not any(getattr(t, "identity", "") == "builtin/bash" for t in tools):
        return ""
    from ..tools.sandbox.settings import for_agent

    return for_agent(agent).status()
