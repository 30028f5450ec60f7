"""`progress`: one bar, `done` of `total`, with an optional label and unit."""

from __future__ import annotations

from ..errors import Invalid
from ..fields import At, number, text
from ..textfmt import Style, num, percent
from .base import BlockKind


def validate(block: dict, at: At) -> None:
    done = number(block["done"], at + ("done",), minimum=0)
    total = number(block["total"], at + ("total",), minimum=0)
    if total <= 0:
        raise Invalid(at + ("total",), "must be more than 0")
    if done > total:
        raise Invalid(at + ("done",), "must not be more than total")
    if "label" in block:
        text(block["label"], at + ("label",), max_chars=120)
    if "unit" in block:
        text(block["unit"], at + ("unit",), max_chars=20)


def render(block: dict, style: Style) -> list[str]:
    done, total = block["done"], block["total"]
    unit = f" {block['unit']}" if block.get("unit") else ""
    line = f"{style.bar(done, total)} {num(done)}/{num(total)}{unit} ({percent(done, total)})"
    if block.get("label"):
        return [block["label"], line]
    return [line]


KIND = BlockKind(name="progress", fields=frozenset({"done", "total", "label", "unit"}),
                 required=("done", "total"), validate=validate, render=render)
