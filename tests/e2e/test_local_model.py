"""`raw-tui run` against a real local model: llama.cpp's `llama-server` serving SmolLM2-135M
(built by `scripts/local-model build`). Runs only when that binary and model are present;
the model is too small to call tools, so the tool path stays with the protocol servers.

A streamed answer, a cancel mid-stream, token usage reported, and a reply cut by
`max_tokens` reported as a truncation."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.config_kit import REPO, write_config

SCRIPT = REPO / "scripts" / "local-model"


def _paths() -> tuple[Path, Path] | None:
    out = subprocess.run([str(SCRIPT), "path"], capture_output=True, text=True)
    lines = out.stdout.split()
    if len(lines) != 2 or not all(Path(p).is_file() for p in lines):
        return None
    return Path(lines[0]), Path(lines[1])


PATHS = _paths()
pytestmark = pytest.mark.skipif(
    PATHS is None, reason="no local llama-server: run `scripts/local-model build` first")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def server_url():
    binary, model = PATHS
    port = _free_port()
    proc = subprocess.Popen([str(binary), "--jinja", "-m", str(model), "--host", "127.0.0.1",
                             "--port", str(port), "-c", "2048"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url + "/health", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            assert proc.poll() is None, "llama-server exited"
            assert time.monotonic() < deadline, "llama-server did not become healthy"
            time.sleep(0.3)
        yield url + "/v1"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _config(tmp_path: Path, url: str, **model: object) -> tuple[Path, Path]:
    cfg = tmp_path / "cfg"
    entry = {"method": "openai-chat-completions", "base_url": url, "model_id": "smollm2",
             "context_window_tokens": 2048, **model}
    write_config(cfg, {"tools": {"use": []}}, models={"m": entry})
    work = tmp_path / "work"
    work.mkdir()
    return cfg / "raw.json", work


def _popen(config: Path, work: Path, prompt: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "raw_tui.cli", "--config", str(config),
                             "--cwd", str(work), "run", prompt, "--output", "jsonl"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ))


def _events(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def test_a_streamed_answer_with_usage(tmp_path, server_url):
    config, work = _config(tmp_path, server_url, max_tokens=48)
    proc = _popen(config, work, "Name three colours.")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    events = _events(out)
    deltas = [e["text"] for e in events if e["type"] == "assistant_delta"]
    assert len(deltas) > 3 and "".join(deltas).strip()
    usage = [e for e in events if e["type"] == "usage"]
    assert len(usage) == 1 and usage[0]["input_tokens"] > 0 and usage[0]["output_tokens"] > 0
    assert usage[0]["context_window_tokens"] == 2048
    assert [e["type"] for e in events].count("run_end") == 1


def test_a_reply_cut_by_max_tokens_is_a_truncation(tmp_path, server_url):
    config, work = _config(tmp_path, server_url, max_tokens=4)
    proc = _popen(config, work, "Write a long story about the sea.")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    events = _events(out)
    end = [e for e in events if e["type"] == "run_end"][-1]
    assert (end["status"], end.get("code")) == ("completed", "truncated")
    assert any(e["type"] == "notice" and "max_tokens" in e["message"] for e in events)


def test_cancel_mid_stream(tmp_path, server_url):
    config, work = _config(tmp_path, server_url, max_tokens=1024)
    proc = _popen(config, work, "Write a very long story about the sea, in many chapters.")
    first = ""
    while '"assistant_delta"' not in first:  # wait until text is streaming
        first = proc.stdout.readline()
        assert first, proc.stderr.read()
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=30)
    events = _events(first + out)
    assert proc.returncode == 130
    ends = [e for e in events if e["type"] == "run_end"]
    assert [e["status"] for e in ends] == ["cancelled"]
