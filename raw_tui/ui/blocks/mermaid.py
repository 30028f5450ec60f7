"""`mermaid`: a flowchart drawn with box characters to fit the width it gets (ui/flowchart.py);
where it cannot be drawn, the block's `fallback` (the tool's words for it), else the source
as text."""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.text import Text

from .. import flowchart
from .base import Row


def rows(block: dict) -> list[Row]:
    source = str(block.get("source", ""))
    drawn = flowchart.draw(source)
    if drawn is not None:
        return [(None, Text(line)) for line in drawn]
    if isinstance(block.get("fallback"), str):  # the tool's own words for the diagram
        return [(None, Text(line)) for line in block["fallback"].split("\n")]
    out: list[Row] = [(None, Text("mermaid source (not drawn):", style="dim italic"))]
    out.extend((None, Text(line)) for line in source.split("\n"))
    return out


def renderable(block: dict, cursor_item: str | None = None) -> RenderableType:
    fallback = block.get("fallback")
    return FitDiagram(str(block.get("source", "")),
                      fallback if isinstance(fallback, str) else None)


DIRECTIONS = {"LR": ("left to right", "top-down"), "TD": ("top-down", "left to right")}


def _width(lines: list[str]) -> int:
    return max((cell_len(line) for line in lines), default=0)


class FitDiagram:
    """A mermaid block drawn to fit the width it gets: the first drawing no wider than the
    space (lines never wrap, which would break the boxes), otherwise the source as text.
    A diagram turned to fit (a `graph LR` too wide for the sidebar drawn top-down) says so
    above it, with the width its own direction needs."""

    def __init__(self, source: str, fallback: str | None = None) -> None:
        self.source = source
        self.fallback = fallback  # shown instead of the source when it cannot be drawn
        self.candidates = flowchart.drawings(source)
        graph = flowchart.parse(source) if self.candidates else None
        self.direction = graph.direction if graph is not None else "TD"

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for n, lines in enumerate(self.candidates):
            if _width(lines) <= options.max_width:
                if n:
                    own, turned = DIRECTIONS[self.direction]
                    yield Text(f"{own} needs {_width(self.candidates[0])} columns, "
                               f"{options.max_width} here: drawn {turned}",
                               style="dim italic")
                for line in lines:
                    yield Text(line, no_wrap=True, overflow="crop")
                return
        if self.fallback is not None:
            for line in self.fallback.split("\n"):
                yield Text(line)
            return
        yield Text("mermaid source (not drawn):" if not self.candidates else
                   "mermaid source (too wide to draw here):", style="dim italic")
        for line in self.source.split("\n"):
            yield Text(line)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        widths = [_width(lines) for lines in self.candidates]
        shown = self.fallback if self.fallback is not None else self.source
        widest = max(widths + [cell_len(line) for line in shown.split("\n")])
        return Measurement(1, widest)
