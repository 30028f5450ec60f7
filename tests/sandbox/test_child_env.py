"""The environment rule, through the real command line: bash commands, hooks and MCP
servers never see a variable a model names in `api_key_env`, nor raw-tui's internal ones
(the process-accounting variable stays); mode `off` included."""

from __future__ import annotations

import json
from tests.engine.hooks.hook_kit import write_hook
from tests.config_kit import raw_tui, write_config
from tests.mcpgate.mcp_kit import fixture_server

MODELS = {"m": {"method": "openai-chat-completions", "model_id": "x",
                "base_url": "http://127.0.0.1:9/v1", "api_key_env": "MY_PROVIDER_CRED"}}
ENV = {"MY_PROVIDER_CRED": "sk-cred-123", "RAW_TUI_WELCOME": "internal-1",
       "PLAIN_VAR": "plain-1", "OTHER_TOKEN": "tok-1"}


def call(cfg, tmp_path, tool, args):
    proc = raw_tui("--config", str(cfg), "--cwd", str(tmp_path), "call", tool,
                   "--args", json.dumps(args), env=ENV)
    assert proc.stdout, proc.stderr
    return json.loads(proc.stdout)


def test_bash_in_mode_off_lacks_the_key_and_internal_variables(tmp_path):
    cfg = write_config(tmp_path / "cfg", {"tools": {"use": ["builtin/bash"]},
                                          "sandbox": {"mode": "off"}}, models=MODELS)
    report = call(cfg, tmp_path, "bash", {"commands": [{"command": "env"}]})
    text = report["result"]["content"][0]["text"]
    assert "PLAIN_VAR=plain-1" in text
    assert "OTHER_TOKEN=tok-1" in text  # mode off drops only the named and internal ones
    assert "RAW_TUI_PROC=" in text
    assert "sk-cred-123" not in text and "MY_PROVIDER_CRED" not in text
    assert "RAW_TUI_WELCOME" not in text


def test_a_hook_lacks_them(tmp_path):
    out = tmp_path / "hook-env.json"
    cfg_dir = tmp_path / "cfg"
    write_hook(cfg_dir, "dump", f"""
        json.dump(dict(os.environ), open({str(out)!r}, "w"))
        print(json.dumps({{"outcome": "allow"}}))
    """)
    cfg = write_config(cfg_dir, {"tools": {"use": ["builtin/bash"]},
                                 "hooks": {"use": ["agent/dump"]}}, models=MODELS)
    call(cfg, tmp_path, "bash", {"commands": [{"command": "true"}]})
    env = json.loads(out.read_text())
    assert env["PLAIN_VAR"] == "plain-1" and "RAW_TUI_PROC" in env
    assert "MY_PROVIDER_CRED" not in env and "RAW_TUI_WELCOME" not in env


def test_an_mcp_server_lacks_them(tmp_path):
    cfg = write_config(tmp_path / "cfg", {"tools": {"use": ["mcp/fx/echo"]}}, models=MODELS,
                       extra={"mcp": {"servers": {"fx": fixture_server(MCP_LABEL="fx")}}})
    seen = {}
    for name in ("MY_PROVIDER_CRED", "RAW_TUI_WELCOME", "PLAIN_VAR"):
        report = call(cfg, tmp_path, "mcp/fx/echo", {"value": f"env:{name}"})
        seen[name] = report["result"]["content"][0]["text"]
    assert "plain-1" in seen["PLAIN_VAR"]
    assert "sk-cred-123" not in seen["MY_PROVIDER_CRED"]
    assert "internal-1" not in seen["RAW_TUI_WELCOME"]
