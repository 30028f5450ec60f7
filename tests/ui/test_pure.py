"""The UI's plain helpers: the flowchart drawer and the approval preview."""

from __future__ import annotations

import os

from raw_tui.ui import mermaid
from raw_tui.ui.preview import effect_lines, symlink_hops, write_file_diff


def test_simple_flowchart_is_drawn_with_box_characters():
    lines = mermaid.draw("graph TD\n  A[Start] --> B[End]")
    assert lines == ["┌───────┐", "│ Start │", "└───────┘", "    │", "    │", "    ▼",
                     " ┌─────┐", " │ End │", " └─────┘"]


def test_left_right_chain():
    lines = mermaid.draw("flowchart LR\n  a --> b --> c")
    assert lines[1] == "│ a │─────▶│ b │─────▶│ c │"


def test_what_cannot_be_drawn_returns_none():
    assert mermaid.draw("sequenceDiagram\n  A->>B: hi") is None
    assert mermaid.draw("graph TD\n  A -->|yes| B") is None  # edge labels
    assert mermaid.draw("graph TD\n  A --> B\n  B --> A") is None  # a cycle
    assert mermaid.draw("graph TD\n  A --> B\n  B --> C\n  A --> C") is None  # skips a layer


def test_symlink_hops_lists_every_linked_prefix(tmp_path):
    (tmp_path / "real").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "link")
    assert symlink_hops(str(tmp_path / "link" / "x")) == (str(tmp_path / "link"),)
    assert symlink_hops(str(tmp_path / "real" / "x")) == ()
    lines = effect_lines({"files": [{"path": str(tmp_path / "link" / "x"),
                                     "operation": "delete"}]})
    assert lines[0].operation == "delete" and lines[0].symlinks


def test_operations_diff_is_computed_in_memory(tmp_path):
    f = tmp_path / "f.txt"
    f.write_text("a\nb\nc\n")
    diff = write_file_diff({"operations": [
        {"mode": "replace_lines", "path": "f.txt", "start_line": 2, "end_line": 2,
         "content": "B"},
        {"mode": "append", "path": "f.txt", "content": "d\n"}]}, str(tmp_path))
    assert "-b" in diff and "+B" in diff and "+d" in diff
    assert f.read_text() == "a\nb\nc\n"


def test_a_bad_patch_gives_a_line_not_an_exception(tmp_path):
    assert write_file_diff({"patch": "nonsense"}, str(tmp_path)).startswith("(no preview:")


def _render(renderable, width: int) -> list[str]:
    from rich.console import Console

    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text().rstrip("\n").split("\n")


def test_a_wide_diagram_turns_to_fit_and_never_wraps():
    from raw_tui.ui.blocks import FitDiagram

    source = "graph LR\n  Look --> Plan\n  Plan --> Write\n  Write --> Ask"
    wide = _render(FitDiagram(source), 80)
    assert wide[1].startswith("│ Look │─────▶│ Plan │") and len(wide) == 3
    narrow = _render(FitDiagram(source), 30)  # a sidebar: top-down instead
    assert narrow[:3] == ["┌──────┐", "│ Look │", "└──────┘"] and "▼" in narrow[5]
    tiny = _render(FitDiagram(source), 8)  # nothing fits: the source
    assert tiny[0].startswith("mermaid") and any("Look" in line for line in tiny)
