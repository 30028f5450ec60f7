"""One registry per concept: every block kind the engine validates has a drawer of the same
name in the UI, and every icon name the engine accepts has a glyph the UI draws."""

from __future__ import annotations

from pathlib import Path

from rich.cells import cell_len

from raw_tui.protocol import glyphs
from raw_tui.panels.blocks import KINDS as ENGINE_KINDS
from raw_tui.panels.declaration import ICONS as ACCEPTED_ICONS
from raw_tui.ui import blocks as ui_blocks
from raw_tui.ui.app import RawApp

from . import events as samples
from .fake_session import connect
from .screenshot_kit import screen_text

ROOT = Path(__file__).resolve().parents[2] / "raw_tui"
SHARED = {"__init__", "base"}


def _modules(folder: Path) -> set[str]:
    return {p.stem for p in folder.glob("*.py")} - SHARED


def test_block_kinds_agree_between_the_engine_and_the_ui():
    engine = _modules(ROOT / "panels" / "blocks")
    ui = _modules(ROOT / "ui" / "blocks")
    assert engine == ui == set(ENGINE_KINDS) == set(ui_blocks.KINDS)
    for kind in ui_blocks.KINDS:
        assert callable(ui_blocks.kind_module(kind).rows), kind


def test_every_accepted_icon_has_one_glyph_one_cell_wide():
    assert set(ACCEPTED_ICONS) == set(glyphs.ICONS)
    assert all(cell_len(glyph) == 1 for glyph in glyphs.ICONS.values())


async def test_an_accepted_icon_is_drawn_with_its_own_glyph(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 30)) as pilot:
        state = samples.panel([samples.BLOCKS["steps"]], title="Launch")
        state.icon = "rocket"
        session.publish(state)
        await pilot.pause()
        assert f"{glyphs.ICONS['rocket']} Launch" in screen_text(app)
        assert f"{glyphs.ICONS['panel']} Launch" not in screen_text(app)
