"""A small flowchart drawer: `graph TD|LR` (or `flowchart`) made of `A --> B` edges, drawn
with box-drawing characters. Anything else (other diagram kinds, edge labels, cycles,
subgraphs, styles) returns None and the caller shows the source as text, as the contract
says. Plain Python, no textual."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MAX_NODES = 40
MAX_LABEL = 120  # a wider box fits no panel: the source is shown instead
_HEADER = re.compile(r"^(?:graph|flowchart)\s+(TD|TB|LR|BT|RL)\s*;?$")
# no `\s*` around the arrow: at every space of a long run it would scan the whole run again
# (quadratic: 2 s on a legal 16 KiB line); the parts are stripped instead
_ARROW = re.compile(r"(-->|---|==>|-\.->)")
# a node is a name, then optionally a shape holding its label; whitespace is stripped in
# Python, not matched with `\s*` (backtracking over a long run of it is not linear)
_NAME = re.compile(r"[A-Za-z0-9_]+")
_SHAPE = re.compile(r"\[\[(.+)\]\]|\(\[(.+)\]\)|\(\((.+)\)\)|\[(.+)\]|\((.+)\)|\{(.+)\}|>(.+)\]")

# direction bits of a line cell
UP, DOWN, LEFT, RIGHT = 1, 2, 4, 8
_GLYPH = {
    UP | DOWN: "│", LEFT | RIGHT: "─", DOWN | RIGHT: "┌", DOWN | LEFT: "┐", UP | RIGHT: "└",
    UP | LEFT: "┘", UP | DOWN | RIGHT: "├", UP | DOWN | LEFT: "┤", DOWN | LEFT | RIGHT: "┬",
    UP | LEFT | RIGHT: "┴", UP | DOWN | LEFT | RIGHT: "┼", UP: "│", DOWN: "│", LEFT: "─",
    RIGHT: "─",
}


@dataclass
class Graph:
    direction: str
    labels: dict[str, str] = field(default_factory=dict)  # in first-seen order
    edges: list[tuple[str, str]] = field(default_factory=list)


def parse(source: str) -> Graph | None:
    lines = [ln.strip() for ln in source.strip().split("\n")]
    lines = [ln for ln in lines if ln and not ln.startswith("%%")]
    if not lines:
        return None
    head = _HEADER.match(lines[0])
    if not head:
        return None
    graph = Graph("LR" if head.group(1) in ("LR", "RL") else "TD")
    for line in lines[1:]:
        if not _parse_line(graph, line.rstrip(";")):
            return None
    return graph if graph.labels and len(graph.labels) <= MAX_NODES else None


def _parse_line(graph: Graph, line: str) -> bool:
    if "|" in line or "&" in line:
        return False
    parts = _ARROW.split(line)
    names = []
    for i, part in enumerate(parts):
        if i % 2:
            continue
        node = _node(part)
        if node is None:
            return False
        name, label = node
        label = label.strip().strip('"') if label else None
        if label is not None and len(label) > MAX_LABEL:
            return False
        if name not in graph.labels or label:
            graph.labels[name] = label or graph.labels.get(name) or name
        names.append(name)
    graph.edges.extend(zip(names, names[1:]))
    return True


def _node(part: str) -> tuple[str, str | None] | None:
    """(name, label or None) of `A`, `A[label]`, `A((label))` ...; None when it is not one."""
    part = part.strip()
    name = _NAME.match(part)
    if name is None:
        return None
    rest = part[name.end():].lstrip()
    if not rest:
        return name.group(), None
    shape = _SHAPE.fullmatch(rest)
    if shape is None:
        return None
    return name.group(), next((g for g in shape.groups() if g), None)


def layers(graph: Graph) -> list[list[str]] | None:
    """Longest-path layering; None when the graph has a cycle."""
    depth = {name: 0 for name in graph.labels}
    for _ in range(len(depth) + 1):
        changed = False
        for a, b in graph.edges:
            if depth[b] < depth[a] + 1:
                depth[b] = depth[a] + 1
                changed = True
        if not changed:
            break
    else:
        return None
    out: list[list[str]] = [[] for _ in range(max(depth.values()) + 1)]
    for name in graph.labels:
        out[depth[name]].append(name)
    return out


class Canvas:
    def __init__(self) -> None:
        self.text: dict[tuple[int, int], str] = {}
        self.lines: dict[tuple[int, int], int] = {}

    def put(self, x: int, y: int, s: str) -> None:
        for i, ch in enumerate(s):
            self.text[(x + i, y)] = ch

    def link(self, x: int, y: int, bits: int) -> None:
        self.lines[(x, y)] = self.lines.get((x, y), 0) | bits

    def hline(self, x0: int, x1: int, y: int) -> None:
        lo, hi = min(x0, x1), max(x0, x1)
        for x in range(lo, hi):
            self.link(x, y, RIGHT)
            self.link(x + 1, y, LEFT)

    def vline(self, x: int, y0: int, y1: int) -> None:
        lo, hi = min(y0, y1), max(y0, y1)
        for y in range(lo, hi):
            self.link(x, y, DOWN)
            self.link(x, y + 1, UP)

    def box(self, x: int, y: int, label: str, width: int | None = None) -> None:
        w = width or len(label) + 4
        self.put(x, y, "┌" + "─" * (w - 2) + "┐")
        self.put(x, y + 1, "│ " + label.ljust(w - 4) + " │")
        self.put(x, y + 2, "└" + "─" * (w - 2) + "┘")

    def render(self) -> list[str]:
        cells = dict((k, _GLYPH[v]) for k, v in self.lines.items() if v)
        cells.update(self.text)
        if not cells:
            return []
        height = max(y for _, y in cells) + 1
        width = max(x for x, _ in cells) + 1
        rows = [[" "] * width for _ in range(height)]
        for (x, y), ch in cells.items():
            rows[y][x] = ch
        return ["".join(r).rstrip() for r in rows]


def draw(source: str) -> list[str] | None:
    """The diagram as lines, or None when it is not a simple flowchart."""
    drawn = drawings(source)
    return drawn[0] if drawn else None


def drawings(source: str) -> list[list[str]]:
    """The ways to draw the diagram, best first: in its own direction, then turned (a wide
    `graph LR` still fits a narrow sidebar top-down). Empty when it is not a simple
    flowchart."""
    graph = parse(source)
    grid = layers(graph) if graph is not None else None
    if graph is None or grid is None:
        return []
    draw_td, draw_lr = (lambda: _draw_td(graph, grid)), (lambda: _draw_lr(graph, grid))
    order = (draw_td, draw_lr) if graph.direction == "TD" else (draw_lr, draw_td)
    first = order[0]()
    if first is None:
        return []
    second = order[1]()
    return [first] + ([second] if second is not None else [])


def _draw_td(graph: Graph, grid: list[list[str]]) -> list[str] | None:
    """Top-down. Every box is an odd number of columns wide (a label of odd length gets a
    space more on its right), so it has a middle column: the arrow into it and out of it
    runs there, and boxes of different widths in a chain are centred on one another (an
    even box beside an odd one sat one column off)."""
    canvas = Canvas()
    widths = {n: (len(graph.labels[n]) + 4) | 1 for n in graph.labels}
    row_w = [sum(widths[n] for n in row) + 2 * (len(row) - 1) for row in grid]
    total = max(row_w)
    pos: dict[str, tuple[int, int]] = {}  # left x, top y
    for r, row in enumerate(grid):
        x = (total - row_w[r]) // 2
        for n in row:
            pos[n] = (x, r * 6)
            x += widths[n] + 2
    for a, b in graph.edges:
        ax, ay = pos[a]
        bx, by = pos[b]
        if by - ay != 6:
            return None  # an edge that skips a layer would cross boxes
        sx, tx = ax + widths[a] // 2, bx + widths[b] // 2
        canvas.vline(sx, ay + 3, ay + 4)
        canvas.hline(sx, tx, ay + 4)
        canvas.vline(tx, ay + 4, by - 1)
        canvas.put(tx, by - 1, "▼")
    for n, (x, y) in pos.items():
        canvas.box(x, y, graph.labels[n], widths[n])
    return canvas.render()


def _draw_lr(graph: Graph, grid: list[list[str]]) -> list[str] | None:
    canvas = Canvas()
    widths = {n: len(graph.labels[n]) + 4 for n in graph.labels}
    col_x = []
    x = 0
    for col in grid:
        col_x.append(x)
        x += max(widths[n] for n in col) + 6
    pos: dict[str, tuple[int, int]] = {}
    for c, col in enumerate(grid):
        for i, n in enumerate(col):
            pos[n] = (col_x[c], i * 4)
    layer = {n: c for c, col in enumerate(grid) for n in col}
    for a, b in graph.edges:
        if layer[b] - layer[a] != 1:
            return None
        ax, ay = pos[a]
        bx, by = pos[b]
        sy, ty = ay + 1, by + 1
        start = ax + widths[a]
        mid = bx - 3
        canvas.hline(start, mid, sy)
        canvas.vline(mid, sy, ty)
        canvas.hline(mid, bx - 1, ty)
        canvas.put(bx - 1, ty, "▶")
    for n, (x0, y0) in pos.items():
        canvas.box(x0, y0, graph.labels[n])
    return canvas.render()
