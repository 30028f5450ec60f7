"""A pytest killed mid-test (a CI timeout: SIGKILL, no teardown) leaves no session host:
the reaper its conftest started ends what the run marked (tests/reaper.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.config_kit import alive

ROOT = Path(__file__).resolve().parents[2]
INNER = '''
import os, time
from pathlib import Path
from raw_tui.host.launch import start_host
from raw_tui.session.request import SessionRequest

def test_start_a_host_then_hang(tmp_path):
    started = start_host(SessionRequest(cwd=tmp_path))
    Path(os.environ["HOST_PID_FILE"]).write_text(str(started.pid))
    time.sleep(300)
'''


def test_a_killed_pytest_leaves_no_session_host(tmp_path):
    (tmp_path / "test_inner.py").write_text(INNER)
    pid_file = tmp_path / "host.pid"
    env = {**os.environ, "HOST_PID_FILE": str(pid_file)}
    env.pop("RAW_TUI_TEST_RUN", None)
    inner = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "tests.conftest",
                              "--rootdir", str(ROOT), "-c", str(ROOT / "pyproject.toml"),
                              str(tmp_path / "test_inner.py")],
                             cwd=ROOT, env=env, start_new_session=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    host = None
    try:
        deadline = time.monotonic() + 60
        while not pid_file.exists() or not pid_file.read_text():
            assert inner.poll() is None, "the inner pytest ended before its host started"
            assert time.monotonic() < deadline, "the inner test never started its host"
            time.sleep(0.1)
        host = int(pid_file.read_text())
        assert alive(host)
        os.killpg(inner.pid, signal.SIGKILL)  # as `timeout -s KILL` does: no teardown runs
        inner.wait()
        deadline = time.monotonic() + 20
        while alive(host) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not alive(host), "the session host outlived its killed test run"
    finally:
        if inner.poll() is None:
            os.killpg(inner.pid, signal.SIGKILL)
            inner.wait()
        if host is not None and alive(host):
            os.kill(host, signal.SIGKILL)
