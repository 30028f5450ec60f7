"""The theme chosen in the palette is remembered: the next start uses it (issue 11)."""

from __future__ import annotations

import json

from raw_tui.ui.app import RawApp

from .fake_session import connect


async def _choose_theme(pilot, name: str) -> None:
    await pilot.press("ctrl+p")
    await pilot.pause()
    await pilot.press(*"Theme")
    await pilot.pause(0.3)
    await pilot.press("enter")
    await pilot.pause(0.3)
    await pilot.press(*name)
    await pilot.pause(0.3)
    await pilot.press("enter")
    await pilot.pause()


async def test_a_theme_chosen_in_the_palette_is_used_at_the_next_start(session, tmp_path):
    prefs = tmp_path / "state" / "ui.json"
    app = RawApp(connect(session), prefs_path=prefs)
    async with app.run_test(size=(80, 24)) as pilot:
        default = app.theme
        assert default != "nord"
        await _choose_theme(pilot, "nord")
        assert app.theme == "nord"
    assert json.loads(prefs.read_text()) == {"theme": "nord"}

    again = RawApp(connect(session), prefs_path=prefs)
    async with again.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert again.theme == "nord"


async def test_an_unreadable_or_unknown_theme_file_starts_with_the_default(session, tmp_path):
    prefs = tmp_path / "ui.json"
    default = RawApp(connect(session)).theme
    for text in ("{not json", json.dumps({"theme": "no-such-theme"}), '{"theme": 3}'):
        prefs.write_text(text)
        app = RawApp(connect(session), prefs_path=prefs)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert app.theme == default
