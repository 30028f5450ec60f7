"""The UI's plain helpers: the flowchart drawer and the approval preview."""

from __future__ import annotations

import msgspec

from raw_tui.protocol import bus as ev
from raw_tui.ui import flowchart
from raw_tui.ui.preview import effect_lines, preview_text, visible


def test_simple_flowchart_is_drawn_with_box_characters():
    lines = flowchart.draw("graph TD\n  A[Start] --> B[End]")
    assert lines == ["┌───────┐", "│ Start │", "└───────┘", "    │", "    │", "    ▼",
                     " ┌─────┐", " │ End │", " └─────┘"]


def test_left_right_chain():
    lines = flowchart.draw("flowchart LR\n  a --> b --> c")
    assert lines[1] == "│ a │─────▶│ b │─────▶│ c │"


def test_every_box_of_a_top_down_chain_is_centred_on_its_arrows():
    """The demo's plan (raw_tui/demo/demo.jsonl): Look, Plan, Write, Ask. An even-width box
    has no middle column: `Look` (8 wide) sat half a column left of the arrows and `Ask`
    (7 wide, under `Write`, 9) one column right of `Look` and `Plan`. Each box is now
    symmetric about the column the arrows run in."""
    lines = flowchart.draw("graph TD\n  Look --> Plan\n  Plan --> Write\n  Write --> Ask")
    arrows = {line.index("▼") for line in lines if "▼" in line}
    assert len(arrows) == 1
    (axis,) = arrows
    tops = [line for line in lines if "┌" in line]
    assert len(tops) == 4
    for top in tops:
        left, right = top.index("┌"), top.index("┐")
        assert (left + right) / 2 == axis, lines
    assert [line.strip() for line in lines if "│ " in line] == [
        "│ Look  │", "│ Plan  │", "│ Write │", "│ Ask │"]


def test_what_cannot_be_drawn_returns_none():
    assert flowchart.draw("sequenceDiagram\n  A->>B: hi") is None
    assert flowchart.draw("graph TD\n  A -->|yes| B") is None  # edge labels
    assert flowchart.draw("graph TD\n  A --> B\n  B --> A") is None  # a cycle
    assert flowchart.draw("graph TD\n  A --> B\n  B --> C\n  A --> C") is None  # skips a layer


def test_effect_lines_take_symlinks_from_the_preview():
    preview = ev.ApprovalPreview(files=[
        ev.FilePreview(path="/w/link/x", operation="delete", symlinks=["/w/link"])])
    effects = {"files": [{"path": "/w/link/x", "operation": "delete"},
                         {"path": "/w/y", "operation": "write"}]}
    lines = effect_lines(effects, preview)
    assert [(e.operation, e.path, e.symlinks) for e in lines] == [
        ("delete", "/w/link/x", ("/w/link",)), ("write", "/w/y", ())]
    assert effect_lines(effects)[0].symlinks == ()  # no preview: nothing is looked up


def test_preview_text_is_the_diffs_then_the_notes_with_breaks_escaped():
    preview = ev.ApprovalPreview(files=[
        ev.FilePreview(path="/a", operation="write", note="no preview: /a is a FIFO"),
        ev.FilePreview(path="/b", operation="write", diff="--- /b\n+++ /b\n-x\u2028y\r\n+\x1b[2J"),
        ev.FilePreview(path="", operation="", note="no preview: not ready after 3 s")])
    assert preview_text(preview).split("\n") == [
        "--- /b", "+++ /b", "-x\\u2028y", "+\\x1b[2J", "! /a: no preview: /a is a FIFO",
        "! no preview: not ready after 3 s"]
    assert preview_text(msgspec.UNSET) == preview_text(None) == ""
    assert visible("a\rb\x0bc\x85\u2029\td") == "a\\rb\\vc\\x85\\u2029\td"


def _render(renderable, width: int) -> list[str]:
    from rich.console import Console

    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text().rstrip("\n").split("\n")


def test_a_wide_diagram_turns_to_fit_and_never_wraps():
    from raw_tui.ui.blocks.mermaid import FitDiagram

    source = "graph LR\n  Look --> Plan\n  Plan --> Write\n  Write --> Ask"
    wide = _render(FitDiagram(source), 80)
    assert wide[1].startswith("│ Look │─────▶│ Plan │") and len(wide) == 3
    narrow = _render(FitDiagram(source), 30)  # a sidebar: top-down instead, and it says so
    top = narrow.index("┌───────┐")
    assert " ".join(" ".join(narrow[:top]).split()) == (
        "left to right needs 50 columns, 30 here: drawn top-down")
    assert narrow[top:top + 3] == ["┌───────┐", "│ Look  │", "└───────┘"]
    assert "▼" in narrow[top + 5]
    tiny = _render(FitDiagram(source), 8)  # nothing fits: the source
    assert tiny[0].startswith("mermaid") and any("Look" in line for line in tiny)
