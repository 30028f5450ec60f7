"""Errors quoting a key someone else wrote stay one line (found by tests/fuzz): a newline
or an ESC in a key is shown escaped in panel errors, hook output errors and config errors."""

from __future__ import annotations

import pytest

from raw_tui.protocol.bus import Bus
from raw_tui.protocol.errors import ConfigError
from raw_tui.hooks.response import InvalidOutput, parse_response
from raw_tui.panels import PanelError, PanelHost, parse_declarations

KEY = "a\r\nb\x1b[2J"


async def test_a_panel_error_naming_a_hostile_key_is_one_line():
    host = PanelHost(Bus())
    call = host.open_call(owner="agent/t", declarations=parse_declarations(
        [{"id": "p", "title": "P"}], where=["panels"], file=None), call_id="c",
        source="model", turn_id="t")
    for body in ({"op": "replace", KEY: 1},
                 {"op": "replace", "document": {"title": "T", KEY: 1}}):
        with pytest.raises(PanelError) as info:
            await call.update("p", body)
        assert "\n" not in info.value.message and "\x1b" not in info.value.message
        assert "a\\x0d\\x0ab\\x1b[2J" in info.value.message


def test_a_hook_answer_with_a_hostile_key_is_one_line():
    with pytest.raises(InvalidOutput) as info:
        parse_response(b'{"decision": "continue", "a\\r\\nb\\u001b[2J": 1}', gate=True)
    assert "\n" not in str(info.value) and "a\\x0d\\x0ab\\x1b[2J" in str(info.value)


def test_a_config_error_naming_a_hostile_key_is_one_line():
    err = ConfigError(f"unknown field `{KEY}`", file="raw.json", path=f"agents.{KEY}")
    assert "\n" not in err.line() and "\x1b" not in err.line()
    assert err.line() == ("raw.json: agents.a\\x0d\\x0ab\\x1b[2J: "
                          "unknown field `a\\x0d\\x0ab\\x1b[2J`")
