"""Panel declarations: the `panels` key of tool.json (docs/panels.md).

    {id, title, icon?, placement?: sidebar|chat, context?: none|summary, acp_plan?,
     actions?: [{id, label, scope?: panel|block|item, kind: prompt|tool|response, ...}]}

Action kinds: `prompt {text, send?}`, `tool {arguments?}` (string values may hold templates),
`response {response: submit|cancel}`.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..protocol.errors import ConfigError, json_path
from ..protocol.glyphs import ICONS as GLYPHS
from .fields import has_control, is_item_id, is_panel_id
from .limits import (MAX_ACTION_LABEL, MAX_ACTIONS, MAX_DECLARED_PANELS, MAX_PROMPT_TEXT,
                     MAX_TITLE)
from .templates import SCOPES, TemplateError, check

ICONS = frozenset(GLYPHS)  # the names a panel may use as its icon
PLACEMENTS = ("sidebar", "chat")
CONTEXTS = ("none", "summary")
ACTION_KINDS = ("prompt", "tool", "response")
RESPONSES = ("submit", "cancel")


class When(msgspec.Struct, frozen=True):
    """Raw's `when`: the item statuses an action is offered for."""

    status: tuple[str, ...]


class ActionDeclaration(msgspec.Struct, frozen=True, omit_defaults=True):
    id: str
    label: str
    kind: str  # prompt | tool | response
    scope: str = "panel"
    text: str | None = None  # prompt
    send: bool = False  # prompt
    arguments: Any = None  # tool: a JSON object
    response: str | None = None  # response: submit | cancel
    # Raw's: the blocks a block or item action applies to, the item statuses it is offered
    # for, the one item action Enter runs first, a question the UI asks before running it
    blocks: tuple[str, ...] | None = None
    when: When | None = None
    primary: bool = False
    confirm: str | None = None


class PanelDeclaration(msgspec.Struct, frozen=True, omit_defaults=True):
    id: str
    title: str
    icon: str = "panel"
    placement: str = "sidebar"
    context: str = "none"
    acp_plan: bool = False
    actions: tuple[ActionDeclaration, ...] = ()
    open: str = "never"  # Raw's: never | first_update (the sidebar shows a panel as it updates)

    def action(self, action_id: str) -> ActionDeclaration | None:
        for action in self.actions:
            if action.id == action_id:
                return action
        return None

    def responds(self) -> bool:
        """Declares the `submit` and `cancel` response actions a form request needs."""
        kinds = {a.response for a in self.actions if a.kind == "response"}
        return {"submit", "cancel"} <= kinds


_PANEL_KEYS = frozenset({"id", "title", "icon", "placement", "context", "acp_plan", "actions",
                         "open"})
_RAW_ACTION_KEYS = frozenset({"blocks", "when", "primary", "confirm"})  # Raw's
_ACTION_KEYS = {
    "prompt": frozenset({"id", "label", "scope", "kind", "text", "send"}) | _RAW_ACTION_KEYS,
    "tool": frozenset({"id", "label", "scope", "kind", "arguments"}) | _RAW_ACTION_KEYS,
    "response": frozenset({"id", "label", "scope", "kind", "response"}),
}
OPENS = ("never", "first_update")
MAX_CONFIRM = 200


class _Reader:
    def __init__(self, file: str | None) -> None:
        self.file = file

    def fail(self, at: list[str | int], message: str) -> ConfigError:
        return ConfigError(message, file=self.file, path=json_path(at))

    def keys(self, value: Any, at: list[str | int], allowed: frozenset[str],
             required: tuple[str, ...]) -> dict:
        if not isinstance(value, dict):
            raise self.fail(at, "must be an object")
        for key in value:
            if key not in allowed:
                raise self.fail(at + [key], "unknown key")
        for key in required:
            if key not in value:
                raise self.fail(at + [key], "required")
        return value

    def label(self, value: Any, at: list[str | int], limit: int) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(at, "must be a non-empty string")
        if len(value) > limit:
            raise self.fail(at, f"at most {limit} characters")
        if has_control(value):
            raise self.fail(at, "control characters are not allowed")
        return value

    def one_of(self, value: Any, at: list[str | int], choices: tuple[str, ...]) -> str:
        if value not in choices or not isinstance(value, str):
            raise self.fail(at, "must be one of " + ", ".join(choices))
        return value

    def flag(self, value: Any, at: list[str | int]) -> bool:
        if not isinstance(value, bool):
            raise self.fail(at, "must be true or false")
        return value


def parse_declarations(value: Any, *, where: list[str | int], file: str | None,
                       warnings: list[str] | None = None) -> list[PanelDeclaration]:
    """The `panels` list of a tool.json. Raises ConfigError naming the file and JSON path.

    An unknown icon is not an error: the panel gets the `panel` icon and one line is appended
    to `warnings` (when given) for each such declaration."""
    reader = _Reader(file)
    if not isinstance(value, list):
        raise reader.fail(where, "must be an array")
    if len(value) > MAX_DECLARED_PANELS:
        raise reader.fail(where, f"at most {MAX_DECLARED_PANELS} panels")
    out: list[PanelDeclaration] = []
    seen: set[str] = set()
    for i, item in enumerate(value):
        declaration = _declaration(reader, item, where + [i], warnings)
        if declaration.id in seen:
            raise reader.fail(where + [i, "id"], f"duplicate panel id {declaration.id!r}")
        seen.add(declaration.id)
        out.append(declaration)
    return out


def parse_declaration(value: Any, *, where: list[str | int], file: str | None,
                      warnings: list[str] | None = None) -> PanelDeclaration:
    """One declaration (an entry of an MCP server's `panels[]`, its `tool` key taken out)."""
    return _declaration(_Reader(file), value, where, warnings)


def _declaration(reader: _Reader, value: Any, at: list[str | int],
                 warnings: list[str] | None) -> PanelDeclaration:
    reader.keys(value, at, _PANEL_KEYS, ("id", "title"))
    if not is_panel_id(value["id"]):
        raise reader.fail(at + ["id"], "must match ^[a-z][a-z0-9_-]{0,31}$")
    title = reader.label(value["title"], at + ["title"], MAX_TITLE)
    icon = value.get("icon", "panel")
    if not isinstance(icon, str):
        raise reader.fail(at + ["icon"], "must be a string")
    if icon not in ICONS:
        if warnings is not None:
            where = f"{reader.file}: " if reader.file else ""
            warnings.append(f"{where}{json_path(at + ['icon'])}: unknown icon {icon!r}; "
                            f"using 'panel'")
        icon = "panel"
    placement = reader.one_of(value.get("placement", "sidebar"), at + ["placement"], PLACEMENTS)
    context = reader.one_of(value.get("context", "none"), at + ["context"], CONTEXTS)
    acp_plan = reader.flag(value.get("acp_plan", False), at + ["acp_plan"])
    opens = reader.one_of(value.get("open", "never"), at + ["open"], OPENS)
    actions = _actions(reader, value.get("actions", []), at + ["actions"])
    return PanelDeclaration(id=value["id"], title=title, icon=icon, placement=placement,
                            context=context, acp_plan=acp_plan, actions=actions, open=opens)


def _actions(reader: _Reader, value: Any,
             at: list[str | int]) -> tuple[ActionDeclaration, ...]:
    if not isinstance(value, list):
        raise reader.fail(at, "must be an array")
    if len(value) > MAX_ACTIONS:
        raise reader.fail(at, f"at most {MAX_ACTIONS} actions")
    out: list[ActionDeclaration] = []
    seen: set[str] = set()
    for i, item in enumerate(value):
        action = _action(reader, item, at + [i])
        if action.id in seen:
            raise reader.fail(at + [i, "id"], f"duplicate action id {action.id!r}")
        seen.add(action.id)
        out.append(action)
    if sum(a.primary for a in out) > 1:
        raise reader.fail(at, "at most one primary action")
    return tuple(out)


def _action(reader: _Reader, value: Any, at: list[str | int]) -> ActionDeclaration:
    if not isinstance(value, dict):
        raise reader.fail(at, "must be an object")
    if "kind" not in value:
        raise reader.fail(at + ["kind"], "required")
    kind = reader.one_of(value["kind"], at + ["kind"], ACTION_KINDS)
    required = {"prompt": ("text",), "tool": (), "response": ("response",)}[kind]
    reader.keys(value, at, _ACTION_KEYS[kind], ("id", "label") + required)
    if not is_item_id(value["id"]):
        raise reader.fail(at + ["id"], "must match ^[A-Za-z0-9_-]{1,32}$")
    label = reader.label(value["label"], at + ["label"], MAX_ACTION_LABEL)
    scope = reader.one_of(value.get("scope", "panel"), at + ["scope"], SCOPES)
    fields: dict[str, Any] = {}
    if kind == "prompt":
        fields["text"] = reader.label(value["text"], at + ["text"], MAX_PROMPT_TEXT)
        fields["send"] = reader.flag(value.get("send", False), at + ["send"])
        _templates(reader, fields["text"], at + ["text"], scope)
    elif kind == "tool":
        arguments = value.get("arguments", {})
        if not isinstance(arguments, dict):
            raise reader.fail(at + ["arguments"], "must be an object")
        _templates(reader, arguments, at + ["arguments"], scope)
        fields["arguments"] = arguments
    else:
        fields["response"] = reader.one_of(value["response"], at + ["response"], RESPONSES)
    fields.update(_raw_action_fields(reader, value, at, scope))
    return ActionDeclaration(id=value["id"], label=label, kind=kind, scope=scope, **fields)


def _raw_action_fields(reader: _Reader, value: dict, at: list[str | int],
                       scope: str) -> dict[str, Any]:
    """Raw's `blocks`, `when`, `primary` and `confirm` of an action, checked as Raw does."""
    from .blocks.checklist import STATUSES
    from .limits import MAX_BLOCKS

    fields: dict[str, Any] = {}
    if "blocks" in value:
        if scope == "panel":
            raise reader.fail(at + ["blocks"], "is not allowed for panel scope")
        blocks = value["blocks"]
        if not isinstance(blocks, list) or not 1 <= len(blocks) <= MAX_BLOCKS:
            raise reader.fail(at + ["blocks"], f"must be an array of 1 to {MAX_BLOCKS} block ids")
        for i, block in enumerate(blocks):
            if not is_item_id(block):
                raise reader.fail(at + ["blocks", i], "must match ^[A-Za-z0-9_-]{1,32}$")
        fields["blocks"] = tuple(blocks)
    if "when" in value:
        when = reader.keys(value["when"], at + ["when"], frozenset({"status"}), ("status",))
        statuses = when["status"]
        if not isinstance(statuses, list) or not 1 <= len(statuses) <= len(STATUSES):
            raise reader.fail(at + ["when", "status"], "must be a non-empty array of statuses")
        for i, status in enumerate(statuses):
            reader.one_of(status, at + ["when", "status", i], STATUSES)
        fields["when"] = When(status=tuple(statuses))
    if "primary" in value:
        if value["primary"] is not True:
            raise reader.fail(at + ["primary"], "must be true")
        if scope != "item":
            raise reader.fail(at + ["primary"], "is only for item actions")
        fields["primary"] = True
    if "confirm" in value:
        fields["confirm"] = reader.label(value["confirm"], at + ["confirm"], MAX_CONFIRM)
    return fields


def _templates(reader: _Reader, value: Any, at: list[str | int], scope: str) -> None:
    try:
        check(value, at, scope)
    except TemplateError as err:
        raise reader.fail(err.at, err.message) from None


def plan_panel(tools: Any) -> tuple[str | None, list[str]]:
    """The full id of the one panel that mirrors the ACP plan: the first declared with
    `acp_plan` over `tools` (in `tools.use` order), and a warning for each later one, whose
    flag is ignored (as Raw)."""
    first: str | None = None
    warnings: list[str] = []
    for tool in tools:
        for declaration in tool.declarations:
            if not declaration.acp_plan:
                continue
            full = f"{tool.identity}#{declaration.id}"
            if first is None:
                first = full
            else:
                warnings.append(f"panel {full}: acp_plan ignored, {first} already mirrors "
                                f"the ACP plan")
    return first, warnings


def implicit_declaration(panel_id: str, owner: str) -> PanelDeclaration:
    """The declaration of a panel whose owner cannot declare one (an MCP server, an ACP
    client): sidebar, no context, titled by its id, with the `submit` and `cancel` response
    actions so it can also carry a form request."""
    if not is_panel_id(panel_id):
        raise ValueError(f"panel id {panel_id!r} must match ^[a-z][a-z0-9_-]{{0,31}}$")
    return PanelDeclaration(
        id=panel_id,
        title=panel_id,
        actions=(ActionDeclaration(id="submit", label="Submit", kind="response",
                                   response="submit"),
                 ActionDeclaration(id="cancel", label="Cancel", kind="response",
                                   response="cancel")),
    )
