"""Action templates: `{{panel.id}}`, `{{block.id}}`, `{{item.id}}`, `{{item.label}}` in the
string values of an action (spaces inside the braces are allowed)."""

from __future__ import annotations

from typing import Any, Callable, Iterator

import re2

NAMES = ("panel.id", "block.id", "item.id", "item.label")
# The scope an action needs for a template: item templates need an item, block ones a block.
NEEDS = {"panel.id": "panel", "block.id": "block", "item.id": "item", "item.label": "item"}
SCOPES = ("panel", "block", "item")

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False
_PATTERN = re2.compile(r"\{\{\s*([^{}]*?)\s*\}\}", _OPTIONS)


class TemplateError(Exception):
    def __init__(self, at: list[str | int], message: str) -> None:
        super().__init__(message)
        self.at = at
        self.message = message


def names_in(text: str) -> list[str]:
    return [m.group(1) for m in _PATTERN.finditer(text)]


def strings(value: Any, at: list[str | int]) -> Iterator[tuple[str, list[str | int]]]:
    """Every string value inside `value` with its path (object keys are not templated)."""
    if isinstance(value, str):
        yield value, at
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings(item, at + [key])
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from strings(item, at + [i])


def check(value: Any, at: list[str | int], scope: str) -> None:
    """Raise TemplateError for an unknown template or one the action's scope cannot fill."""
    for text, here in strings(value, at):
        for name in names_in(text):
            if name not in NEEDS:
                raise TemplateError(here, f"unknown template {{{{{name}}}}}; known: "
                                          + ", ".join("{{" + n + "}}" for n in NAMES))
            if SCOPES.index(NEEDS[name]) > SCOPES.index(scope):
                raise TemplateError(here, f"{{{{{name}}}}} needs scope {NEEDS[name]}, "
                                          f"the action has scope {scope}")


def fill(value: Any, values: dict[str, str], at: list[str | int]) -> Any:
    """`value` with every template replaced; a template without a value raises."""
    if isinstance(value, str):
        return _fill_text(value, values, at)
    if isinstance(value, dict):
        return {k: fill(v, values, at + [k]) for k, v in value.items()}
    if isinstance(value, list):
        return [fill(v, values, at + [i]) for i, v in enumerate(value)]
    return value


def _fill_text(text: str, values: dict[str, str], at: list[str | int]) -> str:
    def one(match: Any) -> str:
        name = match.group(1)
        if name not in NEEDS:
            raise TemplateError(at, f"unknown template {{{{{name}}}}}")
        if values.get(name) is None:
            raise TemplateError(at, f"{{{{{name}}}}} has no value here")
        return values[name]

    return _sub(text, one)


def _sub(text: str, fn: Callable[[Any], str]) -> str:
    out, last = [], 0
    for match in _PATTERN.finditer(text):
        out.append(text[last:match.start()])
        out.append(fn(match))
        last = match.end()
    out.append(text[last:])
    return "".join(out)
