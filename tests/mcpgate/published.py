"""Published MCP servers no one here wrote: the npm reference servers, installed once into
`~/.cache/raw-tui-tests/npm-mcp/` (outside the repository: setuptools and pytest never walk
node_modules), and `mcp-server-time` from PyPI (the `test` extra). Tests that need npm skip
with the reason when it cannot install them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

NPM_DIR = Path.home() / ".cache" / "raw-tui-tests" / "npm-mcp"
NPM_PACKAGES = {
    "@modelcontextprotocol/server-everything": "2026.8.31",
    "@modelcontextprotocol/server-memory": "2026.8.31",
}


def npm_bin(name: str) -> Path:
    return NPM_DIR / "node_modules" / ".bin" / name


def install_npm_servers() -> str | None:
    """Install the npm servers (once); None when ready, else why not."""
    wanted = ["mcp-server-everything", "mcp-server-memory"]
    if all(npm_bin(n).exists() for n in wanted):
        return None
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        return "node and npm are not installed (scripts/test installs them)"
    NPM_DIR.mkdir(parents=True, exist_ok=True)
    specs = [f"{name}@{version}" for name, version in NPM_PACKAGES.items()]
    proc = subprocess.run([npm, "install", "--prefix", str(NPM_DIR), "--no-audit", "--no-fund",
                           "--loglevel=error", *specs], capture_output=True, text=True,
                          timeout=600)
    if proc.returncode != 0 or not all(npm_bin(n).exists() for n in wanted):
        return f"npm install failed: {proc.stderr.strip()[-300:]}"
    return None


@pytest.fixture(scope="session")
def npm_servers() -> dict[str, dict]:
    reason = install_npm_servers()
    if reason:
        pytest.skip(reason)
    return {
        "everything": {"transport": "stdio", "command": str(npm_bin("mcp-server-everything")),
                       "args": ["stdio"]},
        "memory": {"transport": "stdio", "command": str(npm_bin("mcp-server-memory")),
                   "env": {"MEMORY_FILE_PATH": "${RAW_TEST_MEMORY_FILE}"}},
    }


def time_server() -> dict:
    script = Path(sys.executable).parent / "mcp-server-time"
    if not script.exists():
        pytest.skip("mcp-server-time is not installed (pip install -e '.[test]')")
    return {"transport": "stdio", "command": str(script), "args": ["--local-timezone", "UTC"]}


def env_with(**extra: str) -> dict[str, str]:
    return {**os.environ, **extra}
