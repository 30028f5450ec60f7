"""`progress`: one bar, with an optional label. Its amount is one of
`{value, max}` (Raw's), `{done, total, unit?}` (raw-tui's) or `{indeterminate: true}` (work
under way of no known size: drawn as a still bar, never animated)."""

from __future__ import annotations

from ..errors import Invalid
from ..fields import At, number, text
from ..limits import MAX_FIELD_LABEL
from ..textfmt import Style, num, percent
from .base import BlockKind

_AMOUNTS = (("value", "max"), ("done", "total"))


def amount(block: dict) -> tuple[float, float] | None:
    """(done, total) of a determinate bar, None for an indeterminate one."""
    for done, total in _AMOUNTS:
        if total in block:
            return block.get(done, 0), block[total]
    return None


def validate(block: dict, at: At) -> None:
    spellings = [pair for pair in _AMOUNTS if any(name in block for name in pair)]
    if "indeterminate" in block:
        if block["indeterminate"] is not True:
            raise Invalid(at + ("indeterminate",), "must be true")
        if spellings:
            raise Invalid(at, "indeterminate excludes " + " and ".join(spellings[0]))
    elif not spellings:
        raise Invalid(at + ("value",), "required (or done and total, or indeterminate)")
    elif len(spellings) > 1:
        raise Invalid(at, "one of value and max, or done and total")
    else:
        done_name, total_name = spellings[0]
        for name in spellings[0]:
            if name not in block:
                raise Invalid(at + (name,), "required")
        done = number(block[done_name], at + (done_name,), minimum=0)
        total = number(block[total_name], at + (total_name,), minimum=0)
        if total <= 0:
            raise Invalid(at + (total_name,), "must be more than 0")
        if done > total:
            raise Invalid(at + (done_name,), f"must not be more than {total_name}")
    if "unit" in block:
        if "value" in block:
            raise Invalid(at + ("unit",), "goes with done and total")
        text(block["unit"], at + ("unit",), max_chars=20)
    if "label" in block:
        text(block["label"], at + ("label",), max_chars=MAX_FIELD_LABEL)


def render(block: dict, style: Style) -> list[str]:
    shown = amount(block)
    if shown is None:
        bar = style.bar_idle * 20
        line = f"{bar if style.unicode else f'[{bar}]'} in progress"
    else:
        done, total = shown
        unit = f" {block['unit']}" if block.get("unit") else ""
        line = f"{style.bar(done, total)} {num(done)}/{num(total)}{unit} " \
               f"({percent(done, total)})"
    if block.get("label"):
        return [block["label"], line]
    return [line]


KIND = BlockKind(name="progress",
                 fields=frozenset({"done", "total", "unit", "value", "max", "indeterminate",
                                   "label"}),
                 required=(), validate=validate, render=render)
