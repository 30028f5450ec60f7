"""The redactor: every registered secret out of text, JSON, events and streamed pieces."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, strategies as st

from raw_tui.protocol import bus as ev
from raw_tui.protocol.redact import REDACTED, Redactor

SECRET = "sk-abc123XYZ"


def redactor(*values):
    r = Redactor()
    for value in values:
        r.register(value)
    return r


def test_short_values_and_non_strings_are_not_secrets():
    r = redactor("true", "8080", None, 12345678)
    assert not r and r.text("true 8080") == "true 8080"


def test_a_bearer_header_registers_its_token_too():
    r = redactor("Bearer tok-0123456789")
    assert r.text("Authorization: Bearer tok-0123456789") == f"Authorization: {REDACTED}"
    assert r.text("token tok-0123456789 echoed") == f"token {REDACTED} echoed"


def test_json_keys_and_values_and_encoded_json():
    r = redactor(SECRET, 'we"ird\\key-123')
    value = {SECRET: [f"x{SECRET}y", 1, None, {"k": 'a we"ird\\key-123'}]}
    assert r.json(value) == {REDACTED: [f"x{REDACTED}y", 1, None, {"k": f"a {REDACTED}"}]}
    data = json.dumps(value).encode()
    assert json.loads(r.encoded(data)) == r.json(value)
    clean = b'{"a":"nothing here"}'
    assert r.encoded(clean) is clean


def test_an_event_is_rebuilt_only_when_it_holds_a_secret():
    r = redactor(SECRET)
    plain = ev.RunEnd(status="error", code="model_error", message="HTTP 500")
    assert r.struct(plain) is plain
    leaked = ev.ToolCall(call_id="c", identity="builtin/bash", name="bash",
                         arguments={"commands": [{"command": f"curl -H 'x: {SECRET}'"}]})
    clean = r.struct(leaked)
    assert isinstance(clean, ev.ToolCall) and SECRET not in ev.encode(clean).decode()
    assert clean.arguments["commands"][0]["command"] == f"curl -H 'x: {REDACTED}'"


@given(st.text(max_size=40), st.text(max_size=40), st.lists(st.integers(0, 200), max_size=8))
def test_streamed_pieces_give_the_same_text_as_the_whole(before, after, cuts):
    r = redactor(SECRET, SECRET[:-2] + "QQQQ")
    whole = before + SECRET + after
    bounds = sorted({min(c, len(whole)) for c in cuts} | {0, len(whole)})
    stream = r.stream()
    shown = "".join(stream.feed(whole[a:b]) for a, b in zip(bounds, bounds[1:]))
    shown += stream.flush()
    assert shown == r.text(whole)
    assert SECRET not in shown


REDIRECTED = """
import os, subprocess, sys
from raw_tui.protocol.redact import Redactor, RedactedLog
r = Redactor()
r.register(sys.argv[2])
end = RedactedLog(sys.argv[1], r).redirect_std(restore=sys.argv[3] == "restore")
print("print", sys.argv[2])
os.write(2, ("fd 2 " + sys.argv[2] + "\\n").encode())
subprocess.run(["sh", "-c", "echo child $0 >&2", sys.argv[2]], check=True)
end()
print("after on fd 1")
print("after on fd 2", file=sys.stderr)
"""


@pytest.mark.parametrize("restore", [True, False])
def test_redirect_std_sends_fds_1_and_2_through_the_redactor(tmp_path, restore):
    """What the process and its children write to fds 1 and 2 reaches the log redacted; the
    end puts both back (or on /dev/null) and drains the copy."""
    log = tmp_path / "x.log"
    proc = subprocess.run([sys.executable, "-c", REDIRECTED, str(log), SECRET,
                           "restore" if restore else "devnull"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert log.read_text() == f"print {REDACTED}\nfd 2 {REDACTED}\nchild {REDACTED}\n"
    if restore:
        assert (proc.stdout, proc.stderr) == ("after on fd 1\n", "after on fd 2\n")
    else:
        assert (proc.stdout, proc.stderr) == ("", "")
