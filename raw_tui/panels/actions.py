"""Panel actions (docs/panels.md): look one up, fill its templates, run it.

- `prompt`: `prompt_draft(...)` gives the text for the composer and whether to send it.
- `tool`: `run_tool_action(...)` fills the arguments and calls the session's `dispatch` with
  `source="user_action"`: the declaring tool runs again through the whole dispatch (rules,
  hooks, approval). A click is never an approval.
- `response`: answers a pending form (raw_tui.interactions); `response_of(...)` tells which.

After a tool action the model learns, with the next user message, `action_note(...)`.
"""

from __future__ import annotations

import asyncio
import inspect
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Protocol

from ..protocol.commands import PanelAction, Reply
from ..protocol.errors import INTERACTION_INVALID, PANEL_INVALID, PANEL_UNDECLARED, json_path
from ..tools.result import normalize
from .declaration import ActionDeclaration, PanelDeclaration
from .errors import PanelError
from .blocks import item_spec, walk
from .blocks.base import item_list
from .templates import SCOPES, TemplateError, fill

if TYPE_CHECKING:
    from ..interactions import Interactions
    from ..tools.dispatch import DispatchReport
    from .host import PanelHost

USER_ACTION = "user_action"


@dataclass(frozen=True)
class ActionTarget:
    """Where the user ran an action: the panel, and the block and item when scoped so."""

    panel: str  # the panel id (not the full id)
    block: str | None = None
    item: str | None = None
    item_label: str | None = None

    def values(self) -> dict[str, str | None]:
        return {"panel.id": self.panel, "block.id": self.block, "item.id": self.item,
                "item.label": self.item_label}


def find_action(declaration: PanelDeclaration, action_id: str) -> ActionDeclaration:
    action = declaration.action(action_id)
    if action is None:
        raise PanelError(PANEL_INVALID, f"panel {declaration.id} has no action {action_id!r}")
    return action


def _check_target(action: ActionDeclaration, target: ActionTarget) -> None:
    need = SCOPES.index(action.scope)
    # what the scope does not take is refused, not ignored (as Raw's resolveAction)
    if need == 0 and (target.block or target.item):
        raise PanelError(PANEL_INVALID, f"action {action.id} is a panel action: it takes no "
                                        f"block or item")
    if need == 1 and target.item:
        raise PanelError(PANEL_INVALID, f"action {action.id} is a block action: it takes no "
                                        f"item")
    if need >= 1 and not target.block:
        raise PanelError(PANEL_INVALID, f"action {action.id} needs a block")
    if need >= 2 and not target.item:
        raise PanelError(PANEL_INVALID, f"action {action.id} needs an item")


def fill_action(action: ActionDeclaration, target: ActionTarget) -> Any:
    """The action's value with templates filled: the prompt text or the tool arguments."""
    _check_target(action, target)
    at: list[str | int] = ["actions", action.id]
    value = action.text if action.kind == "prompt" else action.arguments
    if action.kind == "response":
        return action.response
    try:
        return fill(value if value is not None else {}, target.values(),
                    at + ["text" if action.kind == "prompt" else "arguments"])
    except TemplateError as err:
        raise PanelError(PANEL_INVALID, f"{json_path(err.at)}: {err.message}") from None


def prompt_draft(action: ActionDeclaration, target: ActionTarget) -> tuple[str, bool]:
    """(text for the composer, send it now)."""
    if action.kind != "prompt":
        raise PanelError(PANEL_INVALID, f"action {action.id} is not a prompt action")
    return fill_action(action, target), action.send


def response_of(action: ActionDeclaration) -> str:
    """`submit` or `cancel` for a response action."""
    if action.kind != "response" or action.response is None:
        raise PanelError(PANEL_INVALID, f"action {action.id} is not a response action")
    return action.response


@dataclass
class ActionOutcome:
    result: Any  # what dispatch returned (a ToolResult or a result dict)
    text: str  # the result's text
    note: str  # `The user ran "LABEL" on TITLE; OWNER returned: TEXT`


Dispatch = Callable[..., Awaitable[Any] | Any]


async def run_tool_action(action: ActionDeclaration, target: ActionTarget, *, title: str,
                          owner: str, dispatch: Dispatch) -> ActionOutcome:
    """Run a `tool` action: `await dispatch(arguments, source="user_action")` (the session
    binds the owner tool and runs the full dispatch), then build the model's note."""
    if action.kind != "tool":
        raise PanelError(PANEL_INVALID, f"action {action.id} is not a tool action")
    arguments = fill_action(action, target)
    result = dispatch(arguments, source=USER_ACTION)
    if inspect.isawaitable(result):
        result = await result
    text = result_text(result)
    return ActionOutcome(result=result, text=text,
                         note=action_note(action.label, title, owner, text))


def result_text(result: Any) -> str:
    if hasattr(result, "text") and callable(result.text):
        return result.text()
    if isinstance(result, dict):
        return normalize(result).text()
    return str(result)


def action_note(label: str, title: str, owner: str, text: str) -> str:
    return f'The user ran "{label}" on {title}; {owner} returned: {text}'


# The session's entry point (session/session.py builds its ActionPorts) -------------------

def find_item(document: Any, block_id: str | None, item_id: str | None
              ) -> tuple[dict, Any] | None:
    """The item `item_id` of block `block_id` (nested ones too) and its block's item spec."""
    if document is None or block_id is None or item_id is None:
        return None
    for block in document.get("blocks") or []:
        if block.get("id") != block_id:
            continue
        spec = item_spec(block)
        if spec is None:
            return None
        for item, _at, _depth in walk(item_list(block, spec), spec, ()):
            if item.get(spec.key) == item_id:
                return item, spec
    return None


def item_label(document: Any, block_id: str | None, item_id: str | None) -> str | None:
    """The label of an item (a key_value key, a files path, a table row id otherwise)."""
    found = find_item(document, block_id, item_id)
    if found is None:
        return None
    item, spec = found
    return item.get("label") or item.get("text") or item.get(spec.key)


class DispatchCall(Protocol):
    """The full dispatch of one call (`tools.dispatch.Dispatcher.dispatch`)."""

    def __call__(self, name: str, arguments: Any, *, call_id: str, source: str,
                 cancel: asyncio.Event) -> Awaitable[DispatchReport]: ...


@dataclass
class ActionPorts:
    """What a panel action reaches of its session: the panels, the form broker, the full
    dispatch, the notes sent with the next user message, the tool actions running now (call
    id -> its cancel signal: the session's cancel sets them) and the signal set at close."""

    panels: PanelHost
    interactions: Interactions
    dispatch: DispatchCall
    notes: list[str] = field(default_factory=list)
    running: dict[str, asyncio.Event] = field(default_factory=dict)
    closing: asyncio.Event = field(default_factory=asyncio.Event)


async def run_panel_action(ports: ActionPorts, command: PanelAction) -> Reply:
    """Run a `PanelAction` command. Returns a Reply: a prompt action's draft, or the
    outcome of a tool or response action."""
    owner, _, panel_id = command.panel.rpartition("#")
    declaration = ports.panels.declaration(owner, panel_id)
    if declaration is None:
        return Reply(ok=False, code=PANEL_UNDECLARED, message=f"no panel {command.panel}")
    try:
        action = find_action(declaration, command.action)
        _check_target(action, ActionTarget(panel=panel_id, block=command.block,
                                           item=command.item))
        _revision, document = ports.panels.get(command.panel)
        check_shown(command.panel, document, command.block, command.item)
        check_applies(action, document, command.block, command.item)
        target = ActionTarget(panel=panel_id, block=command.block, item=command.item,
                              item_label=item_label(document, command.block, command.item))
        if action.kind == "prompt":
            text, send = prompt_draft(action, target)
            return Reply(draft=text, send=send)
        if action.kind == "response":
            return _respond(ports.interactions, command.panel, response_of(action))
        title = (document or {}).get("title") or declaration.title

        async def dispatch(arguments: Any, *, source: str) -> Any:
            call_id = f"ua_{uuid.uuid4().hex[:12]}"
            cancel = asyncio.Event()  # the session's cancel sets it (session/turn.py)
            if ports.closing.is_set():
                cancel.set()
            ports.running[call_id] = cancel
            ports.panels.expect_action(call_id, panel_id)  # a receipt even if it writes none
            try:
                report = await ports.dispatch(owner, arguments, call_id=call_id,
                                              source=source, cancel=cancel)
            finally:
                ports.panels.forget_action(call_id)
                ports.running.pop(call_id, None)
            return report.result

        outcome = await run_tool_action(action, target, title=title, owner=owner,
                                        dispatch=dispatch)
    except PanelError as err:
        return Reply(ok=False, code=err.code, message=err.message)
    ports.notes.append(outcome.note)
    failed = bool(getattr(outcome.result, "isError", False))
    return Reply(ok=not failed, code=getattr(outcome.result, "code", None) if failed else None,
                 message=outcome.text)


def check_shown(panel: str, document: Any, block: str | None, item: str | None) -> None:
    """An action scoped to a block or an item runs on what the panel shows: the block and
    item it names (a client sends them as it likes; templates put them in the tool's
    arguments) must be in the panel's document."""
    if block is None and item is None:
        return
    if document is None:
        raise PanelError(PANEL_INVALID, f"panel {panel} is not open")
    if block is not None and not any(isinstance(b, dict) and b.get("id") == block
                                     for b in document.get("blocks") or []):
        raise PanelError(PANEL_INVALID, f"panel {panel} has no block {block!r}")
    if item is not None and item_label(document, block, item) is None:
        raise PanelError(PANEL_INVALID, f"panel {panel} has no item {item!r} in block {block!r}")


def check_applies(action: ActionDeclaration, document: Any, block: str | None,
                  item: str | None) -> None:
    """Raw's `blocks` and `when` of an action: the blocks it applies to, the statuses of the
    items it is offered for (as Raw's resolveAction)."""
    if action.blocks is not None and block not in action.blocks:
        raise PanelError(PANEL_INVALID, f"action {action.id} does not apply to block {block!r}")
    if action.when is None:
        return
    if action.scope != "item":
        raise PanelError(PANEL_INVALID, f"action {action.id} is only offered for items with "
                                        f"a status")
    status = item_field(document, block, item, "status") or "pending"
    if status not in action.when.status:
        raise PanelError(PANEL_INVALID, f"action {action.id} is not available for an item "
                                        f"with status {status}")


def item_field(document: Any, block_id: str | None, item_id: str | None, name: str) -> Any:
    """A field of an item of a block (None when there is no such item or field)."""
    found = find_item(document, block_id, item_id)
    return None if found is None else found[0].get(name)


def _respond(interactions: Interactions, panel: str, response: str) -> Reply:
    pending = [v for v in interactions.pending() if v.panel == panel]
    if not pending:
        return Reply(ok=False, code=INTERACTION_INVALID, message="no question is waiting here")
    if response == "cancel":
        interactions.cancel(pending[-1].request_id)
        return Reply()
    return Reply(ok=False, code=INTERACTION_INVALID,
                 message="fill in the form and submit it from there")
