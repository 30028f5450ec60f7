"""The command line around the host: `attach` with nothing live, the `ui.detach` switch,
the question at start, `--continue` of a live session attaching."""

from __future__ import annotations

import io
import os
import signal

from raw_tui.host.choose import attach_target, detach_wanted, offer_attach
from raw_tui.host.transport import locate_or_start
from raw_tui.program import program
from tests.config_kit import raw_tui
from tests.host.host_kit import request_of, setup, start, wait_gone


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_attach_with_nothing_live_says_so(tmp_path):
    args = setup(tmp_path, [])
    proc = raw_tui("--config", args.config, "--cwd", args.cwd, "attach")
    assert proc.returncode == 1
    # the hint names the program as it was run: here `python -m raw_tui`
    me = program("-c")
    assert proc.stderr.strip() == f"raw-tui: no live session in {args.cwd} " \
                                  f"({me} sessions list shows them all)"
    proc = raw_tui("attach", "s-gone")
    assert proc.returncode == 1
    assert f"session s-gone is not live ({me} --resume s-gone reopens it" in proc.stderr


def test_ui_detach_false_and_no_detach_keep_the_session_in_process(tmp_path):
    args = setup(tmp_path, [])
    args.no_detach = False
    assert detach_wanted(request_of(args))
    args.no_detach = True
    assert not detach_wanted(request_of(args))
    args = setup(tmp_path / "off", [], ui={"detach": False})
    args.no_detach = False
    assert not detach_wanted(request_of(args))


def test_offer_attach_asks_on_a_terminal_and_continue_attaches(tmp_path):
    args = setup(tmp_path, [])
    host = start(args)
    try:
        out = Tty()
        assert offer_attach(request_of(args), stdin=Tty("\n"), out=out) == host.session_id
        assert f"raw-tui: session {host.session_id} in this directory is live (idle). " \
               f"Attach to it? [Y/n] " == out.getvalue()
        assert offer_attach(request_of(args), stdin=Tty("n\n"), out=Tty()) is None
        assert offer_attach(request_of(args), stdin=io.StringIO("\n"), out=Tty()) is None  # no terminal
        assert attach_target(request_of(args)).session_id == host.session_id
        args.continue_ = True
        assert locate_or_start(request_of(args)) == host.socket  # no second host for a live session
    finally:
        os.kill(host.pid, signal.SIGTERM)
        assert wait_gone(host.pid)
