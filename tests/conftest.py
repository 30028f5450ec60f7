"""Shared fixtures: an isolated XDG home per test. Helpers live in tests/helpers.py."""

from __future__ import annotations

import os

import pytest

from raw_tui.client import TRANSPORT_ENV, TRANSPORTS


def pytest_addoption(parser):
    parser.addoption("--transport", choices=TRANSPORTS, default=None,
                     help="the transport between the UI and its session in the UI and "
                          "end-to-end tests (default: in-process; also RAW_TUI_TRANSPORT)")


def pytest_configure(config):
    """Set RAW_TUI_TRANSPORT for this process and the apps the tests start (tmux, ssh)."""
    name = config.getoption("--transport")
    if name:
        os.environ[TRANSPORT_ENV] = name


def pytest_report_header(config):
    return f"UI transport: {os.environ.get(TRANSPORT_ENV) or 'in-process'}"


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)  # session host sockets: never the user's
    return home
