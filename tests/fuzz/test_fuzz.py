"""Fuzzing (docs/security.md, "Hostile input"), the short version: a few hundred generated inputs per target, each
ending as a value or the documented error, never a traceback. `scripts/fuzz` runs the same
targets with 100,000 inputs each and prints the counts."""

from __future__ import annotations

import os

import pytest

from tests.fuzz.targets import explore, targets

COUNT = int(os.environ.get("RAW_TUI_FUZZ_COUNT", "200"))
TARGETS = {target.name: target for target in targets()}


@pytest.mark.parametrize("name", list(TARGETS))
def test_no_input_ends_in_a_traceback(name):
    target = TARGETS[name]
    explore(target, COUNT, shrink=True)
    counts = target.counts
    print(f"\n[fuzz] {name}: {counts}")
    assert counts["tracebacks"] == 0
    assert counts["inputs"] >= COUNT // 2  # hypothesis really generated them


def test_a_long_run_mutates_what_hypothesis_made_and_finds_what_it_did_not():
    """Past the corpus, inputs are mutations of it: each keeps its input's shape at the top,
    and they reach what the corpus never held (here, one value the parser chokes on)."""
    import json

    from hypothesis import strategies as st

    from tests.fuzz import targets as module

    def run(pair: tuple[str, bool]) -> None:
        text, flag = pair
        assert isinstance(text, str) and isinstance(flag, bool)  # the shape is kept
        data = json.loads(text)  # ValueError: the documented refusal
        if isinstance(data, dict) and "a" not in data:
            raise KeyError("a")  # a bug no corpus input shows

    target = module.Target("toy", st.tuples(st.just('{"a": 1, "b": [2]}'), st.booleans()),
                           run, (ValueError,))
    explore(target, module.CORPUS + 3000)
    counts = target.counts
    assert counts["inputs"] == module.CORPUS + 3000
    assert counts["refused"] > 0 and counts["accepted"] > 0
    assert counts["tracebacks"] > 0 and all("KeyError" in t for t in target.tracebacks)


def test_a_finding_keeps_its_whole_input_and_replays_from_it(tmp_path):
    """A traceback prints its input cut short; the whole input is kept in a file, and
    `scripts/fuzz --replay TARGET FILE` runs that input again."""
    import ast
    import subprocess
    import sys
    from pathlib import Path

    from hypothesis import strategies as st

    from tests.fuzz import targets as module

    def run(data: bytes) -> None:
        if len(data) > 5000:
            raise RuntimeError("long")

    target = module.Target("toy", st.just(b"x"), run, (ValueError,), findings=tmp_path)
    found = target.check(b"\n[" * 4000)
    assert found and "RuntimeError: long" in found
    kept = Path(found.split("whole input: ")[1].split(" ")[0])
    assert kept.parent == tmp_path and ast.literal_eval(kept.read_text()) == b"\n[" * 4000

    replayed = subprocess.run(
        [sys.executable, "scripts/fuzz", "--replay", "acp-lines", str(kept)],
        capture_output=True, text=True, timeout=120,
        cwd=Path(__file__).resolve().parents[2])
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert replayed.stdout.strip() == "ended as documented"  # 4,000 refused lines, then more
