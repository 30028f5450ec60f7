"""`mcp.servers` in raw.json, MCP tool ids, aliases, and `config list` (docs/mcp.md)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from raw_tui.protocol.errors import ConfigError
from raw_tui.mcp.config import alias
from tests.config_kit import raw_tui

from .mcp_kit import fixture_server, load, mcp_config


def test_alias_is_sanitised_cut_and_hashed():
    assert alias("search", "web_search") == "mcp_search_web_search_" + \
        __import__("hashlib").sha256(b"search\0web_search").hexdigest()[:12]
    long = alias("srv.x", "a" * 80)
    assert long.startswith("mcp_srv_x_aaa") and len(long) == 47 + 13
    assert alias("a", "b c") != alias("a", "b_c")  # the hash tells them apart


@pytest.mark.parametrize("servers, use, where", [
    ({"fx": {"transport": "sse", "url": "http://x"}}, [], "mcp.servers.fx.transport"),
    ({"fx": {**fixture_server(), "oops": 1}}, [], "mcp.servers.fx: unknown field `oops`"),
    ({"fx": {"transport": "stdio", "command": " "}}, [], "mcp.servers.fx.command"),
    ({"fx": {"transport": "streamable-http", "url": "ftp://secret@x"}}, [], "mcp.servers.fx.url"),
    ({"fx": {**fixture_server(), "timeout_ms": 0}}, [], "mcp.servers.fx.timeout_ms"),
    ({"fx": {**fixture_server(), "panels": [{"id": "p", "title": "P"}]}}, [],
     "mcp.servers.fx.panels[0].tool"),
    ({"fx": fixture_server()}, ["mcp/other/echo"], "agents.main.tools.use[0]: mcp/other/echo: "
                                                   "no MCP server 'other'"),
    ({"fx": fixture_server()}, ["mcp/fx"], "agents.main.tools.use[0]: invalid tool id"),
])
def test_config_errors_name_the_path(tmp_path, servers, use, where):
    with pytest.raises(ConfigError) as err:
        load(mcp_config(tmp_path, servers, use), tmp_path)
    assert where in err.value.line()
    assert "secret" not in err.value.line()


def test_an_effects_predicate_on_an_mcp_tool_is_a_config_error(tmp_path):
    rules = [{"match": "mcp/*", "effect": "ask",
              "when": {"source": "effects", "any": "files[*].path", "regex": "x"}}]
    with pytest.raises(ConfigError) as err:
        load(mcp_config(tmp_path, {"fx": fixture_server()}, ["mcp/fx/echo"], rules=rules),
             tmp_path)
    assert "agents.main.tools.rules[0].when.source" in err.value.line()


def test_an_argument_predicate_that_cannot_bind_skips_the_tool(tmp_path):
    rules = [{"match": "mcp/fx/*", "effect": "ask",
              "when": {"source": "arguments", "any": "nothing", "regex": "x"}}]
    path = mcp_config(tmp_path, {"fx": fixture_server()}, ["mcp/fx/echo"], rules=rules)
    proc = raw_tui("--config", str(path), "config", "list", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    tool = json.loads(proc.stdout)["agents"]["main"]["tools"][0]
    assert (tool["status"], tool["exposed"]) == ("skipped", False)
    assert 'mcp/fx/echo skipped' in proc.stderr and '"nothing"' in proc.stderr


def test_config_list_starts_selected_servers_and_marks_tools(tmp_path):
    servers = {"fx": fixture_server(), "bad": fixture_server(MCP_MODE="crash"),
               "idle": {"transport": "stdio", "command": "/no/such/server"}}
    use = ["mcp/fx/echo", "mcp/fx/nope", "mcp/bad/echo"]
    path = mcp_config(tmp_path, servers, use,
                      rules=[{"match": "mcp/fx/echo", "effect": "deny"}])
    proc = raw_tui("--config", str(path), "config", "list", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    listing = json.loads(proc.stdout)
    tools = {t["identity"]: (t["status"], t["exposed"])
             for t in listing["agents"]["main"]["tools"]}
    assert tools == {"mcp/fx/echo": ("found", False), "mcp/fx/nope": ("missing", False),
                     "mcp/bad/echo": ("skipped", False)}
    assert listing["mcp_servers"]["idle"] == {"transport": "stdio", "timeout_ms": 120000}
    assert "/no/such/server" not in proc.stderr  # never started: nobody selects it
    assert proc.stderr.count("raw-tui: warning: MCP server bad could not start") == 1
    text = raw_tui("--config", str(path), "config", "list", cwd=tmp_path).stdout
    assert "tool mcp/fx/nope as " + alias("fx", "nope") + " (MCP)  (missing)" in text


def test_servers_defined_but_none_selected_import_nothing(tmp_path):
    path = mcp_config(tmp_path, {"fx": fixture_server(MCP_PID_FILE=str(tmp_path / "pid"))},
                      ["builtin/read_file"])
    code = ("import sys\nfrom raw_tui import cli\nrc = cli.main(sys.argv[1:])\n"
            "assert 'mcp' not in sys.modules and 'anyio' not in sys.modules, 'imported'\n"
            "sys.exit(rc)\n")
    for argv in (["config", "list"], ["call", "read_file", "--args", '{"path": "x"}']):
        proc = subprocess.run([sys.executable, "-c", code, "--config", str(path), *argv],
                              capture_output=True, text=True, cwd=tmp_path)
        assert "imported" not in proc.stderr and proc.returncode in (0, 1), proc.stderr
    assert not (tmp_path / "pid").exists()
