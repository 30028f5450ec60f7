"""An answer checked against its form: required fields, option ids, selection counts, sizes.

Answers map field ids to values: text → a string, single_select → an option id,
multi_select → a list of option ids (returned in the form's order). A field left out (or
null) is unanswered. The first broken rule raises `InteractionError(interaction_invalid,
"FIELD: what is wrong")`; the caller keeps the request pending.
"""

from __future__ import annotations

from typing import Any

from ..protocol.errors import INTERACTION_INVALID
from ..panels.blocks.form import text_limit
from ..panels.fields import has_control
from .errors import InteractionError


def _bad(field: str, message: str) -> InteractionError:
    return InteractionError(INTERACTION_INVALID, f"{field}: {message}")


def validate_answers(form: dict, answers: Any) -> dict[str, Any]:
    """The answers, checked and normalized (form order; unanswered fields left out)."""
    if not isinstance(answers, dict):
        raise InteractionError(INTERACTION_INVALID, "answers: must be an object")
    fields = {f["id"]: f for f in form["fields"]}
    for key in answers:
        if key not in fields:
            raise _bad(str(key), "no such field in the form")
    out: dict[str, Any] = {}
    for field_id, field in fields.items():
        value = answers.get(field_id)
        value = _CHECK[field["kind"]](field, value)
        if value is None:
            if field.get("required"):
                raise _bad(field_id, "required")
            continue
        out[field_id] = value
    return out


def _text(field: dict, value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise _bad(field["id"], "must be text")
    if has_control(value):
        raise _bad(field["id"], "control characters are not allowed")
    if "\n" in value and not field.get("multiline"):
        raise _bad(field["id"], "must be one line")
    limit = text_limit(field)
    if len(value.encode("utf-8", "replace")) > limit:
        raise _bad(field["id"], f"at most {limit} bytes")
    if not value.strip():
        return None
    return value


def _single(field: dict, value: Any) -> str | None:
    if value is None:
        return None
    ids = [o["id"] for o in field["options"]]
    if not isinstance(value, str) or value not in ids:
        raise _bad(field["id"], f"must be one of the option ids {', '.join(ids)}")
    return value


def _multi(field: dict, value: Any) -> list[str] | None:
    if value is None:
        value = []
    ids = [o["id"] for o in field["options"]]
    if not isinstance(value, list):
        raise _bad(field["id"], "must be a list of option ids")
    chosen: set[str] = set()
    for item in value:
        if not isinstance(item, str) or item not in ids:
            raise _bad(field["id"], f"{item!r} is not one of the option ids {', '.join(ids)}")
        if item in chosen:
            raise _bad(field["id"], f"option {item!r} chosen twice")
        chosen.add(item)
    low = field.get("min_selected", 0)
    high = field.get("max_selected", len(ids))
    if not chosen:
        return None  # unanswered: the caller refuses it when the field is required
    if len(chosen) < low:
        raise _bad(field["id"], f"choose at least {low}")
    if len(chosen) > high:
        raise _bad(field["id"], f"choose at most {high}")
    return [i for i in ids if i in chosen]


_CHECK = {"text": _text, "single_select": _single, "multi_select": _multi}
