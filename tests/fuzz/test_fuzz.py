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
