"""MCP tools through a whole session, against the hand-written fixture server: discovery,
the result mapping, every failure of docs/mcp.md, cancel, progress, panels, clean-up."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from raw_tui.protocol import bus as ev
from raw_tui.mcp.config import alias

from .mcp_kit import alive, call_line, fixture_server, kill_quietly, mcp_session

ECHO = "mcp/fx/echo"


async def run_calls(tmp_path: Path, values: list[str], *, server: dict | None = None,
                    interactive: bool = True, **kw):
    """One turn calling echo once per value; the harness after the session closed."""
    lines = [call_line("fx", "echo", {"value": v}, f"c{i}") for i, v in enumerate(values)]
    h = mcp_session(tmp_path, {"fx": server or fixture_server()}, [ECHO], lines,
                    interactive=interactive, **kw)
    await h.session.open()
    try:
        await h.session.run_turn("go")
    finally:
        await h.session.close()
    return h


def results(h) -> list[ev.ToolResultEvent]:
    return h.of(ev.ToolResultEvent)


async def test_discovery_over_pages_exposes_selected_tools_sorted_by_alias(tmp_path):
    use = ["builtin/read_file", "mcp/fx/sleepy", "mcp/fx/echo", "mcp/fx/hidden_2"]
    h = mcp_session(tmp_path, {"fx": fixture_server(MCP_COUNT="3")}, use, [{"text": "hi"}])
    await h.session.open()
    outcome = await h.session.run_turn("go")
    await h.session.close()
    assert outcome.status == "completed", outcome
    names = [t.name for t in h.model.requests[0].tools]
    mcp_names = sorted([alias("fx", "sleepy"), alias("fx", "echo"), alias("fx", "hidden_2")])
    assert names == ["read_file", *mcp_names]  # hidden_2 is on the second page
    echo = next(t for t in h.model.requests[0].tools if t.name == alias("fx", "echo"))
    assert echo.input_schema["required"] == ["value"] and echo.description == "Echo a value"
    sleepy = next(t for t in h.model.requests[0].tools if t.name == alias("fx", "sleepy"))
    assert sleepy.description == "MCP tool"  # none given


async def test_a_call_goes_through_and_the_identity_is_the_mcp_one(tmp_path):
    h = await run_calls(tmp_path, ["hello"])
    call = h.of(ev.ToolCall)[0]
    assert call.identity == ECHO and call.name == alias("fx", "echo")
    assert results(h)[0].content == [{"type": "text", "text": "fx:echo:hello"}]
    assert results(h)[0].isError is False


@pytest.mark.parametrize("value, code, content", [
    ("image", None, [{"type": "image", "mimeType": "image/png"}]),
    ("jpeg", None, [{"type": "text", "text": "a picture:"},
                    {"type": "image", "mimeType": "image/jpeg"}]),
    ("structured", None, [{"type": "json", "value": {"answer": 42, "items": ["a", "b"]}}]),
    ("error", "mcp_error", [{"type": "text", "text": "the server says no"}]),
    ("resource", "unsupported_content", [{"type": "text",
                                          "text": "unsupported MCP content: resource_link"}]),
    ("audio", "unsupported_content", [{"type": "text", "text": "unsupported MCP content: audio"}]),
    ("badimage", "unsupported_content", [{"type": "text",
                                          "text": "unsupported MCP content: image (image/png)"}]),
])
async def test_result_mapping(tmp_path, value, code, content):
    result = results(await run_calls(tmp_path, [value]))[0]
    assert result.isError is (code is not None)
    assert result.code == (code or msgspec_unset())
    got = [{k: v for k, v in b.items() if k != "data"} for b in result.content]
    assert got == content


def msgspec_unset():
    import msgspec

    return msgspec.UNSET


async def test_a_result_over_16_mib_is_result_too_large_and_the_next_call_works(tmp_path):
    first, second = results(await run_calls(tmp_path, ["big", "after"]))
    assert first.code == "result_too_large" and first.isError
    assert "too large" in first.content[0]["text"] and len(first.content[0]["text"]) < 200
    assert second.content[0]["text"] == "fx:echo:after"


async def test_a_call_that_hangs_times_out_and_the_connection_stays_usable(tmp_path):
    h = await run_calls(tmp_path, ["hang", "after"],
                        server={**fixture_server(), "timeout_ms": 400})
    first, second = results(h)
    assert (first.code, first.content[0]["text"]) == ("mcp_call_error",
                                                      "MCP call timed out: fx")
    assert second.content[0]["text"] == "fx:echo:after"


async def test_progress_restarts_the_timer_and_is_published(tmp_path):
    # the call takes 1 s with a progress notification every 100 ms; the timeout is 350 ms
    h = await run_calls(tmp_path, ["progress"], server={**fixture_server(), "timeout_ms": 350})
    assert results(h)[0].content[0]["text"] == "done after progress"
    progress = h.of(ev.ToolProgress)
    assert len(progress) == 10 and progress[-1].progress == 10 and progress[-1].total == 10
    assert progress[0].call_id == "c0" and progress[0].message == "step 1"


async def test_a_server_crashing_mid_call_is_a_call_error_and_a_notice(tmp_path):
    h = await run_calls(tmp_path, ["crash", "after"])
    first, second = results(h)
    assert (first.code, first.content[0]["text"]) == ("mcp_call_error", "MCP call failed: fx")
    # the server is gone: its tools are no longer exposed (no restart: docs/mcp.md)
    assert (second.code, second.content[0]["text"]) == (
        "tool_not_exposed", f"tool unavailable: {alias('fx', 'echo')}")
    notices = [n.message for n in h.of(ev.Notice)]
    assert len([n for n in notices if "MCP server fx ended" in n]) == 1, notices
    assert "exit status 4" in notices[-1], notices


async def test_a_server_dying_while_idle_is_said_at_once(tmp_path):
    """The death is a notice as it happens (which server, its exit status, its stderr's
    last words), not news at the next call; its tools then leave the model's list and a call
    of one is `tool_not_exposed`."""
    lines = [call_line("fx", "echo", {"value": "exitlater"}, "c0"), {"text": "ok"},
             call_line("fx", "echo", {"value": "x"}, "c1"), {"text": "done"}]
    h = mcp_session(tmp_path, {"fx": fixture_server()}, [ECHO], lines, interactive=True)
    await h.session.open()
    try:
        await h.session.run_turn("first")
        assert results(h)[0].content[0]["text"] == "will exit"
        notice = await h.wait_for(ev.Notice, timeout=5)  # no call made meanwhile
        assert notice.level == "warning"
        assert "MCP server fx ended (exit status 7)" in notice.message, notice.message
        assert "THE-LAST-WORDS" in notice.message, notice.message
        assert "tools are unavailable" in notice.message, notice.message
        await h.session.run_turn("second")
    finally:
        await h.session.close()
    second = results(h)[1]
    assert (second.code, second.content[0]["text"]) == (
        "tool_not_exposed", f"tool unavailable: {alias('fx', 'echo')}")
    names = [t.name for t in h.model.requests[-1].tools]
    assert alias("fx", "echo") not in names, names
    assert len(h.of(ev.Notice)) == 1


async def test_cancel_sends_mcp_cancellation_and_the_connection_survives(tmp_path):
    events = tmp_path / "events.txt"
    server = fixture_server(MCP_EVENTS=str(events))
    lines = [call_line("fx", "echo", {"value": "hang"}), call_line("fx", "echo", {"value": "x"})]
    h = mcp_session(tmp_path, {"fx": server}, [ECHO], lines, interactive=True)
    await h.session.open()
    turn = asyncio.create_task(h.session.run_turn("go"))
    await h.wait_for(ev.ToolCall)
    await asyncio.sleep(0.2)
    h.session.cancel()
    outcome = await turn
    assert outcome.status == "cancelled"
    assert results(h)[0].code == "cancelled"
    await h.session.run_turn("again")  # the same connection answers the next call
    assert results(h)[-1].content[0]["text"] == "fx:echo:x"
    await h.session.close()
    assert "notifications/cancelled" in events.read_text().split()


@pytest.mark.parametrize("mode, words", [
    ("crash", "could not start"),
    ("hang", "did not answer within 400 ms"),
    ("garbage", "did not answer within 400 ms"),
    ("cycle", "MCP pagination cycle from bad"),
    ("duplicate", "lists tool 'echo' twice"),
])
async def test_a_server_that_cannot_start_is_skipped_with_one_warning(tmp_path, mode, words):
    servers = {"bad": {**fixture_server(MCP_MODE=mode), "timeout_ms": 400},
               "fx": fixture_server()}
    lines = [call_line("bad", "echo", {"value": "x"}, "c0"),
             call_line("fx", "echo", {"value": "y"}, "c1")]
    h = mcp_session(tmp_path, servers, ["mcp/bad/echo", ECHO], lines, interactive=True)
    await h.session.open()
    await h.session.run_turn("go")
    await h.session.close()
    warnings = [n.message for n in h.of(ev.Notice) if n.level == "warning"]
    assert len(warnings) == 1 and words in warnings[0], warnings
    assert [t.name for t in h.model.requests[0].tools] == [alias("fx", "echo")]
    first, second = results(h)
    assert first.code == "tool_not_exposed"
    assert second.content[0]["text"] == "fx:echo:y"


async def test_a_missing_tool_and_an_invalid_schema_are_skipped_with_a_warning(tmp_path):
    use = [ECHO, "mcp/fx/nope", "mcp/fx/hidden_0"]
    h = mcp_session(tmp_path, {"fx": fixture_server(MCP_MODE="badschema")}, use,
                    [{"text": "hi"}], interactive=True)
    await h.session.open()
    await h.session.run_turn("go")
    await h.session.close()
    warnings = [n.message for n in h.of(ev.Notice) if n.level == "warning"]
    assert any("does not list tool 'nope'" in w for w in warnings)
    assert any(w.startswith("mcp/fx/hidden_0 skipped: MCP server fx tool hidden_0") for w in warnings)
    assert [t.name for t in h.model.requests[0].tools] == [alias("fx", "echo")]
    assert h.session.mcp_status == {ECHO: "found", "mcp/fx/nope": "missing",
                                    "mcp/fx/hidden_0": "skipped"}


async def test_a_headless_session_warns_on_stderr(tmp_path, capfd):
    h = mcp_session(tmp_path, {"fx": fixture_server()}, [ECHO, "mcp/fx/nope"], [{"text": "x"}])
    await h.session.open()
    await h.session.run_turn("go")
    await h.session.close()
    err = capfd.readouterr().err
    assert err.count("raw-tui: warning: MCP server fx does not list tool 'nope'") == 1
    assert "THIS-IS-SERVER-STDERR" not in err  # the server's stderr goes to its log


async def test_server_stderr_goes_to_the_log_file(tmp_path, capfd):
    await run_calls(tmp_path, ["stderr"])
    out = capfd.readouterr()
    assert "THIS-IS-SERVER-STDERR" not in out.err + out.out
    log = Path(os.environ["XDG_STATE_HOME"]) / "raw-tui" / "mcp" / "fx.log"
    assert "THIS-IS-SERVER-STDERR during a call" in log.read_text()


async def test_stdio_servers_get_the_full_environment_the_cwd_and_expanded_env(tmp_path,
                                                                           monkeypatch):
    monkeypatch.setenv("RAW_TEST_PARENT", "from-parent")
    monkeypatch.setenv("RAW_TEST_SECRET", "s3cr3t")
    server = fixture_server(TOKEN="Bearer ${RAW_TEST_SECRET}")
    h = await run_calls(tmp_path, ["env:RAW_TEST_PARENT", "envcheck:TOKEN=Bearer s3cr3t", "cwd"],
                        server=server)
    texts = [r.content[0]["text"] for r in results(h)]
    assert texts == ["from-parent", "match", str(tmp_path / "work")]


async def test_an_echoed_credential_is_redacted(tmp_path, monkeypatch):
    monkeypatch.setenv("RAW_TEST_SECRET", "s3cr3t-value-42")
    server = fixture_server(TOKEN="${RAW_TEST_SECRET}")
    from .mcp_kit import load, mcp_config

    if not hasattr(load(mcp_config(tmp_path / "probe", {"fx": server}, [ECHO]), tmp_path),
                   "redactor"):
        pytest.skip("this version has no redactor yet (docs/security.md)")
    h = await run_calls(tmp_path, ["env:TOKEN"], server=server)
    assert results(h)[0].content[0]["text"] == "[redacted]"
    assert "s3cr3t-value-42" not in repr(h.events)


async def test_a_missing_variable_skips_the_server_without_echoing_secrets(tmp_path,
                                                                          monkeypatch):
    monkeypatch.delenv("RAW_TEST_NOT_SET", raising=False)
    servers = {"fx": fixture_server(TOKEN="${RAW_TEST_NOT_SET}", OTHER="plain-secret-value")}
    h = mcp_session(tmp_path, servers, [ECHO], [{"text": "x"}], interactive=True)
    await h.session.open()
    await h.session.run_turn("go")
    await h.session.close()
    warnings = [n.message for n in h.of(ev.Notice) if n.level == "warning"]
    assert warnings == ["MCP server fx: TOKEN: environment variable RAW_TEST_NOT_SET is not "
                        "set; its tools are skipped"]


async def test_http_errors_never_show_the_url_or_headers(tmp_path, monkeypatch):
    monkeypatch.setenv("RAW_TEST_TOKEN", "tok-123456")
    server = {"transport": "streamable-http", "url": "http://127.0.0.1:9/mcp?key=url-secret",
              "headers": {"Authorization": "Bearer ${RAW_TEST_TOKEN}"}, "timeout_ms": 2000}
    h = mcp_session(tmp_path, {"web": server}, ["mcp/web/search"], [{"text": "x"}],
                    interactive=True)
    await h.session.open()
    await h.session.run_turn("go")
    await h.session.close()
    warnings = [n.message for n in h.of(ev.Notice) if n.level == "warning"]
    assert len(warnings) == 1 and warnings[0].startswith("MCP server web ")
    text = repr(h.events)
    for secret in ("url-secret", "127.0.0.1:9", "tok-123456", "Bearer"):
        assert secret not in text


async def test_every_server_process_ends_with_the_session(tmp_path):
    pid_a, pid_b = tmp_path / "a.pid", tmp_path / "b.pid"
    servers = {"fx": fixture_server(MCP_PID_FILE=str(pid_a)),
               "fy": fixture_server(MCP_PID_FILE=str(pid_b))}
    lines = [call_line("fx", "echo", {"value": "hang"})]
    h = mcp_session(tmp_path, servers, [ECHO, "mcp/fy/echo"], lines, interactive=True)
    await h.session.open()
    turn = asyncio.create_task(h.session.run_turn("go"))
    await h.wait_for(ev.ToolCall)  # a call is running when the session closes
    pids = [int(pid_a.read_text()), int(pid_b.read_text())]
    try:
        assert all(alive(p) for p in pids)
        await h.session.close()
        await turn
        assert not any(alive(p) for p in pids)
    finally:
        for pid in pids:
            kill_quietly(pid)


async def test_the_first_model_request_waits_for_servers_started_in_parallel(tmp_path):
    servers = {"fx": fixture_server(), "fy": fixture_server(MCP_LABEL="fy")}
    h = mcp_session(tmp_path, servers, [ECHO, "mcp/fy/echo"], [call_line("fy", "echo", {"value": "v"})])
    await h.session.open()  # returns at once: the servers start in the background
    await h.session.run_turn("go")
    await h.session.close()
    assert results(h)[0].content[0]["text"] == "fy:echo:v"


async def test_meta_panels_are_committed_like_a_local_tools_and_kept_from_the_model(tmp_path):
    h = await run_calls(tmp_path, ["panel"])  # no declaration: an implicit owner
    receipt = h.of(ev.PanelReceipt)[0]
    assert (receipt.owner, receipt.panel, receipt.revision) == (ECHO, "fxpanel", 1)
    assert results(h)[0].content == [{"type": "text", "text": "panel sent"}]
    assert "Fixture" not in h.model.requests[-1].wire()


async def test_declared_mcp_panels_refuse_undeclared_ids(tmp_path):
    server = {**fixture_server(), "panels": [{"tool": "echo", "id": "fxpanel",
                                              "title": "Declared"}]}
    h = await run_calls(tmp_path, ["panels"], server=server)
    receipts = h.of(ev.PanelReceipt)
    assert receipts[0].panel == "fxpanel"
    texts = [b["text"] for b in results(h)[0].content]
    assert texts[0] == "panel sent"
    assert texts[1].startswith("panel other update rejected: panel_undeclared")


async def test_closing_while_a_server_starts_does_not_wait_for_its_timeout(tmp_path):
    pid_file = tmp_path / "hang.pid"
    server = {**fixture_server(MCP_MODE="hang", MCP_PID_FILE=str(pid_file)), "timeout_ms": 60000}
    h = mcp_session(tmp_path, {"fx": server}, [ECHO], [{"text": "x"}], interactive=True)
    await h.session.open()
    for _ in range(400):  # until the server runs (the SDK imports first)
        if pid_file.exists() and pid_file.read_text():
            break
        await asyncio.sleep(0.025)
    pid = int(pid_file.read_text())
    try:
        loop = asyncio.get_running_loop()
        start = loop.time()
        await h.session.close()
        assert loop.time() - start < 10
        assert not alive(pid)
    finally:
        kill_quietly(pid)


async def test_an_ask_rule_on_an_mcp_tool_asks_and_runs_once_approved(tmp_path):
    from raw_tui.protocol import commands as cmd

    rules = [{"match": "mcp/fx/*", "effect": "ask",
              "when": {"source": "arguments", "any": "value", "regex": "^risky"}}]
    lines = [call_line("fx", "echo", {"value": "risky one"})]
    h = mcp_session(tmp_path, {"fx": fixture_server()}, [ECHO], lines, interactive=True,
                    rules=rules)
    await h.session.open()
    turn = asyncio.create_task(h.session.run_turn("go"))
    asked = await h.wait_for(ev.ApprovalRequest)
    assert (asked.identity, asked.name) == (ECHO, alias("fx", "echo"))
    await h.session.handle(cmd.ApprovalAnswer(call_id=asked.call_id, allow=True))
    await turn
    await h.session.close()
    assert results(h)[0].content[0]["text"] == "fx:echo:risky one"


async def test_a_dead_servers_last_words_are_redacted_on_stderr_and_in_its_log(tmp_path, capfd):
    """A headless session says the death on stderr; the stderr tail it quotes, and the
    server's log file, hold no configured secret (the server's own `env` value here)."""
    secret = "tok-0123456789-LASTWORDS-SECRET"
    server = fixture_server(MCP_LAST_WORDS=secret)
    lines = [call_line("fx", "echo", {"value": "exitlater"}, "c0"), {"text": "ok"}]
    state = tmp_path / "state"
    h = mcp_session(tmp_path, {"fx": server}, [ECHO], lines, interactive=False)
    h.session.mcp.log_dir = state
    err = ""
    await h.session.open()
    try:
        await h.session.run_turn("first")
        for _ in range(500):
            err += capfd.readouterr().err
            if "MCP server fx ended" in err:
                break
            await asyncio.sleep(0.01)
    finally:
        await h.session.close()
    err += capfd.readouterr().err
    log = (state / "fx.log").read_text()
    assert "raw-tui: warning: MCP server fx ended (exit status 7)" in err, err
    assert "fixture giving up: [redacted]" in err, err
    assert secret not in err and secret not in log
    assert "fixture giving up: [redacted]" in log, log
