"""Shared fixtures: an isolated XDG home per test. Helpers live in tests/config_kit.py."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from raw_tui.protocol.client import TRANSPORT_ENV, TRANSPORTS


def pytest_addoption(parser):
    parser.addoption("--transport", choices=TRANSPORTS, default=None,
                     help="the transport between the UI and its session in the UI and "
                          "end-to-end tests (default: in-process; also RAW_TUI_TRANSPORT)")


HOST_MARK_ENV = "RAW_TUI_TEST_RUN"  # inherited by every session host a test starts


def pytest_configure(config):
    """Set RAW_TUI_TRANSPORT for this process and the apps the tests start (tmux, ssh).
    Mark every process the tests start, and start the reaper that ends them when this
    pytest is gone, even killed (tests/reaper.py)."""
    os.environ[HOST_MARK_ENV] = str(os.getpid())
    # the first run's welcome screen only where a test asks for it (tests/ui/test_features.py)
    os.environ["RAW_TUI_WELCOME"] = "off"
    _start_reaper(os.environ[HOST_MARK_ENV])
    name = config.getoption("--transport")
    if name:
        os.environ[TRANSPORT_ENV] = name


def _start_reaper(mark: str) -> None:
    """Started through a launcher that exits at once, so the reaper is not a child of this
    process: raw-tui's process trees count a child they did not start as an adopted orphan
    (and take their slow path for it)."""
    import subprocess
    import sys
    from pathlib import Path

    env = {k: v for k, v in os.environ.items() if k != HOST_MARK_ENV}
    launcher = ("import subprocess, sys; subprocess.Popen(sys.argv[1:], start_new_session=True,"
                " stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,"
                " stderr=subprocess.DEVNULL)")
    subprocess.run([sys.executable, "-c", launcher, sys.executable, "-m", "tests.reaper", mark],
                   env=env, cwd=Path(__file__).resolve().parent.parent, check=True, timeout=60)


# Markers by folder, for a fast inner loop (`pytest -m "not e2e and not bench"`); the
# README's test command still runs everything. `slow` marks the tests that take tens of
# seconds each (soaks, fuzzing), wherever they live.
FOLDER_MARKS = {"tests/e2e/": "e2e", "tests/bench/": "bench"}
SLOW_FILES = ("tests/e2e/test_soaks.py", "tests/fuzz/")


def pytest_collection_modifyitems(config, items):
    for item in items:
        for folder, mark in FOLDER_MARKS.items():
            if item.nodeid.startswith(folder):
                item.add_marker(mark)
        if item.nodeid.startswith(SLOW_FILES):
            item.add_marker("slow")


def pytest_report_header(config):
    return f"UI transport: {os.environ.get(TRANSPORT_ENV) or 'in-process'}"


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory, no_session_host_left, monkeypatch):
    # no_session_host_left first: set up before monkeypatch, so it is torn down after a
    # test's patches (of `os`, say) are undone; ending hosts reads /proc
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    # session host sockets: never the user's, nor another test's (a short 0700 directory)
    runtime = tempfile.mkdtemp(prefix="rt", dir="/tmp")
    monkeypatch.setenv("XDG_RUNTIME_DIR", runtime)
    yield home
    shutil.rmtree(runtime, ignore_errors=True)


@pytest.fixture(autouse=True)
def no_session_host_left():
    """A UI started by a test (tmux, ssh, a benchmark) runs its session in a detached host;
    whatever host a test left running is ended (SIGTERM, then SIGKILL) when it is done."""
    yield
    from tests.config_kit import end_session_hosts

    end_session_hosts(os.environ[HOST_MARK_ENV])
