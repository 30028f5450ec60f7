"""`form`: 1–8 fields the user answers (`text`, `single_select`, `multi_select`)."""

from __future__ import annotations

from ..errors import Invalid
from ..fields import At, array, boolean, choice, ident, integer, obj, text, unique
from ..limits import (MAX_FIELD_DESCRIPTION, MAX_FIELD_LABEL, MAX_FORM_FIELDS, MAX_OPTIONS,
                      MAX_TEXT_FIELD_BYTES)
from ..textfmt import Style
from .base import BlockKind

FIELD_KINDS = ("text", "single_select", "multi_select")
_COMMON = frozenset({"id", "kind", "label", "description", "required"})
_BY_KIND = {
    "text": _COMMON | {"multiline", "max_bytes", "placeholder"},
    "single_select": _COMMON | {"options"},
    "multi_select": _COMMON | {"options", "min_selected", "max_selected"},
}
_OPTION = frozenset({"id", "label", "description"})


def validate(block: dict, at: At) -> None:
    fields = array(block["fields"], at + ("fields",), min_items=1, max_items=MAX_FORM_FIELDS,
                   what="fields")
    for i, field in enumerate(fields):
        validate_field(field, at + ("fields", i))
    unique((f["id"], at + ("fields", i, "id")) for i, f in enumerate(fields))
    if "submit_label" in block:
        text(block["submit_label"], at + ("submit_label",), min_chars=1, max_chars=40)


def validate_field(field: object, at: At) -> None:
    if not isinstance(field, dict):
        raise Invalid(at, "must be an object")
    if "kind" not in field:
        raise Invalid(at + ("kind",), "required")
    kind = choice(field["kind"], at + ("kind",), FIELD_KINDS)
    obj(field, at, _BY_KIND[kind], ("id", "label") + (("options",) if kind != "text" else ()))
    ident(field["id"], at + ("id",))
    text(field["label"], at + ("label",), min_chars=1, max_chars=MAX_FIELD_LABEL)
    if "description" in field:
        text(field["description"], at + ("description",), max_chars=MAX_FIELD_DESCRIPTION)
    if "required" in field:
        boolean(field["required"], at + ("required",))
    if kind == "text":
        _text_field(field, at)
    else:
        _select_field(field, at, kind)


def _text_field(field: dict, at: At) -> None:
    if "multiline" in field:
        boolean(field["multiline"], at + ("multiline",))
    if "max_bytes" in field:
        integer(field["max_bytes"], at + ("max_bytes",), minimum=1, maximum=MAX_TEXT_FIELD_BYTES)
    if "placeholder" in field:
        text(field["placeholder"], at + ("placeholder",), max_chars=MAX_FIELD_LABEL)


def _select_field(field: dict, at: At, kind: str) -> None:
    options = array(field["options"], at + ("options",), min_items=1, max_items=MAX_OPTIONS,
                    what="options")
    for i, option in enumerate(options):
        here = at + ("options", i)
        obj(option, here, _OPTION, ("id", "label"))
        ident(option["id"], here + ("id",))
        text(option["label"], here + ("label",), min_chars=1, max_chars=MAX_FIELD_LABEL)
        if "description" in option:
            text(option["description"], here + ("description",), max_chars=MAX_FIELD_DESCRIPTION)
    unique((o["id"], at + ("options", i, "id")) for i, o in enumerate(options))
    if kind != "multi_select":
        return
    low = field.get("min_selected", 0)
    high = field.get("max_selected", len(options))
    integer(low, at + ("min_selected",), minimum=0, maximum=len(options))
    integer(high, at + ("max_selected",), minimum=1, maximum=len(options))
    if low > high:
        raise Invalid(at + ("min_selected",), "must not be more than max_selected")


def text_limit(field: dict) -> int:
    return field.get("max_bytes", MAX_TEXT_FIELD_BYTES)


def render(block: dict, style: Style) -> list[str]:
    lines: list[str] = []
    for field in block["fields"]:
        mark = " *" if field.get("required") else ""
        lines.append(f"{field['label']}{mark}")
        if field.get("description"):
            lines.append(f"  {field['description']}")
        if field["kind"] == "text":
            hint = field.get("placeholder") or ("(text)" if not field.get("multiline")
                                                 else "(text, several lines)")
            lines.append(f"  [ {hint} ]")
            continue
        box = "( )" if field["kind"] == "single_select" else "[ ]"
        for option in field["options"]:
            lines.append(f"  {box} {option['label']}")
    return lines


KIND = BlockKind(
    name="form",
    fields=frozenset({"fields", "submit_label"}),
    required=("fields",),
    validate=validate,
    render=render,
)
