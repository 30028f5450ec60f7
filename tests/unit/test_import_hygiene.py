"""Only raw_tui/ui imports textual: the engine and the non-UI commands never load it."""

import subprocess
import sys

ENGINE = [
    "raw_tui.config", "raw_tui.protocol.bus", "raw_tui.protocol.commands", "raw_tui.tools.dispatch",
    "raw_tui.policy", "raw_tui.cli", "raw_tui.host.process", "raw_tui.host.server",
    "raw_tui.host.transport",
]


def test_engine_does_not_import_textual():
    code = (
        "import sys\n"
        f"for m in {ENGINE!r}: __import__(m)\n"
        "bad = [m for m in sys.modules if m == 'textual' or m.startswith('textual.')]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_config_list_and_call_do_not_import_textual(tmp_path):
    code = (
        "import sys, runpy\n"
        "from raw_tui import cli\n"
        "rc = cli.main(sys.argv[1:])\n"
        "assert 'textual' not in sys.modules, 'textual imported'\n"
        "sys.exit(rc)\n"
    )
    for argv in (["config", "list"],
                 ["call", "read_file", "--args", '{"path": "missing.txt"}']):
        proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True,
                              text=True, cwd=tmp_path)
        assert "textual imported" not in proc.stderr, proc.stderr
        assert proc.returncode in (0, 1), proc.stderr


def test_acp_builds_the_engine_without_textual_and_other_commands_skip_the_sdk(tmp_path):
    """`raw-tui acp` loads the ACP SDK and the engine, never textual; `config list` never
    loads the SDK (its import costs ≈0.8 s)."""
    code = (
        "import sys\n"
        "import raw_tui.acp.agent, raw_tui.acp.bridge, raw_tui.acp.command\n"
        "import raw_tui.session.session, raw_tui.session.store\n"
        "bad = [m for m in sys.modules if m == 'textual' or m.startswith('textual.')]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
    listing = (
        "import sys\n"
        "from raw_tui import cli\n"
        "rc = cli.main(['config', 'list'])\n"
        "assert 'acp' not in sys.modules and 'raw_tui.acp.agent' not in sys.modules, 'acp'\n"
        "sys.exit(rc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", listing], capture_output=True, text=True,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
