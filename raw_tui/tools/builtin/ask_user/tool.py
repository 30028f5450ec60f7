"""ask_user: 1–3 questions as one form the user answers (docs/interactions.md)."""

from __future__ import annotations

from typing import Any

from raw_tui.protocol.errors import INTERACTION_UNAVAILABLE
from raw_tui.interactions import InteractionError
from raw_tui.panels import PanelError

PANEL = "ask"
FORM = "ask"
TEXT_SUFFIX = "_text"  # the id of a choice's free-text field: QUESTION_text

MESSAGES = {
    "cancelled": "the user cancelled the question",
    "expired": "the question expired without an answer",
    "interrupted": "the session ended before an answer",
    INTERACTION_UNAVAILABLE: "no one can answer: this run is not interactive",
}


def validate_args(args: Any) -> str | None:
    ids: set[str] = set()
    for i, question in enumerate(args.get("questions") or []):
        qid = question.get("id")
        names = [qid]
        if question.get("options") is None:
            if question.get("multi") or question.get("free_text"):
                return f"questions[{i}]: multi and free_text need options"
        else:
            option_ids = [o.get("id") for o in question["options"]]
            if len(set(option_ids)) != len(option_ids):
                return f"questions[{i}].options: duplicate option id"
            if question.get("free_text"):
                names.append(f"{qid}{TEXT_SUFFIX}")
                if len(names[-1]) > 32:
                    return f"questions[{i}].id: at most 27 characters with free_text"
        for name in names:
            if name in ids:
                return f"questions[{i}].id: duplicate id {name!r}"
            ids.add(name)
    return None


def build_document(args: Any) -> dict[str, Any]:
    fields: list[dict[str, Any]] = []
    for question in args["questions"]:
        fields.extend(_fields(question))
    return {
        "title": args.get("title") or "Question",
        "blocks": [{"id": FORM, "kind": "form", "fields": fields}],
    }


def _fields(question: Any) -> list[dict[str, Any]]:
    required = question.get("required", True)
    options = question.get("options")
    if options is None:
        return [{"id": question["id"], "kind": "text", "label": question["text"],
                 "multiline": True, "required": required}]
    field = {"id": question["id"],
             "kind": "multi_select" if question.get("multi") else "single_select",
             "label": question["text"],
             "options": [{"id": o["id"], "label": o["label"]} for o in options],
             "required": required}
    if not question.get("free_text"):
        return [field]
    return [field, {"id": f"{question['id']}{TEXT_SUFFIX}", "kind": "text",
                    "label": "In your own words (optional)", "required": False}]


def _error(code: str, text: str) -> dict[str, Any]:
    return {"isError": True, "code": code, "content": [{"type": "text", "text": text}]}


async def handler(args: Any, ctx: Any) -> Any:
    if ctx.interactions is None:
        return _error(INTERACTION_UNAVAILABLE, MESSAGES[INTERACTION_UNAVAILABLE])
    try:
        outcome = await ctx.interactions.request(panel=PANEL, document=build_document(args),
                                                 timeout_ms=args.get("timeout_ms"))
    except (InteractionError, PanelError) as err:
        return _error(err.code, MESSAGES.get(err.code, err.message))
    status = outcome["status"]
    if status == "answered":
        return {"status": "answered", "answers": outcome["answers"]}
    return _error(f"interaction_{status}", MESSAGES.get(status, status))


def summarize(args: Any, ctx: Any) -> str:
    """`ask_user: FIRST QUESTION` (+N more): the call's line in the chat."""
    questions = args.get("questions") or []
    more = f" (+{len(questions) - 1} more)" if len(questions) > 1 else ""
    return f"ask_user: {questions[0]['text'] if questions else ''}{more}"
