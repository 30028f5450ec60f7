"""Only raw_tui/ui imports textual: the engine and the non-UI commands never load it."""

import subprocess
import sys

ENGINE = [
    "raw_tui.config", "raw_tui.bus", "raw_tui.commands", "raw_tui.tools.dispatch",
    "raw_tui.policy", "raw_tui.cli",
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
