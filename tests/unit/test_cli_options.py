"""A command line of the main parser's options only is read without argparse
(`global_options` in raw_tui/cli/parse.py); it must give exactly what argparse gives, and
leave every other command line (abbreviations, help, errors, subcommands) to argparse."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from raw_tui.cli import parse

WORDS = ["--config", "--agent", "--model", "--cwd", "--resume", "--continue", "--no-detach",
         "--agent=x", "--cwd=", "--no-detach=1", "--ag", "--no", "-h", "--help", "--", "run",
         "config", "list", "x", "", "-", "-x", "a=b", "--resume=ID"]


@given(st.lists(st.sampled_from(WORDS), max_size=6))
def test_the_fast_path_reads_what_argparse_reads_or_leaves_it_to_argparse(argv):
    fast = parse.global_options(argv)
    if fast is None:
        return
    assert fast == vars(parse.build_parser(argv).parse_args(argv))


@pytest.mark.parametrize("argv", [[], ["--no-detach"], ["--continue", "--agent", "a"],
                                  ["--agent=x", "--model", "m", "--cwd", "/tmp",
                                   "--config", "c.json", "--resume", "ID"],
                                  ["--agent", ""], ["--resume", "A", "--resume", "B"]])
def test_the_ui_options_spelled_in_full_take_the_fast_path(argv):
    assert parse.global_options(argv) == vars(parse.build_parser(argv).parse_args(argv))


@pytest.mark.parametrize("argv", [["--ag", "x"], ["run", "p"], ["--agent", "-x"], ["-h"],
                                  ["--no-detach=1"], ["--"], ["--agent"], ["--bogus"]])
def test_anything_else_goes_to_argparse(argv):
    assert parse.global_options(argv) is None


def test_a_bare_raw_tui_does_not_import_argparse():
    import subprocess
    import sys

    code = ("import sys\nfrom raw_tui.cli import parse\n"
            "assert parse.global_options(['--no-detach']) is not None\n"
            "print('argparse' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("argv", [[], ["run", "p"], ["config", "list"]])
def test_every_global_option_not_given_reads_its_default(argv):
    args = vars(parse.parse_args(argv))
    assert {name: args[name] for name in parse.DEFAULTS} == parse.DEFAULTS


def test_an_option_before_the_subcommand_is_kept():
    assert parse.parse_args(["--config", "X", "run", "p"]).config == "X"
    assert parse.parse_args(["run", "p", "--config", "Y"]).config == "Y"
