"""What the SVG snapshot tests share: the two terminal sizes, a working directory that is the
same on every machine (the status line shows it) and the app over a fake session."""

from __future__ import annotations

import pytest

from raw_tui.ui.app import RawApp

from .fake_session import FakeSession, connect

SIZES = [(80, 24), (120, 40)]
CWD = "/nonexistent-raw-demo"

at_each_size = pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")


def make_app(*, prefs_path=None) -> tuple[FakeSession, RawApp]:
    session = FakeSession(cwd=CWD)
    return session, RawApp(connect(session), prefs_path=prefs_path)
