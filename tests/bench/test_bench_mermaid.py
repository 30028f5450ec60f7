"""Benchmark: the mermaid drawer on hostile but legal blocks (at most 16 KiB) must take time
linear in their size. It parses on every render; `graph TD\\nA` + 16,000 spaces + `B` took
2 s when the arrow pattern rescanned each run of spaces. Prints the ratio of 16k to 4k (a
linear parser gives about 4, a quadratic one 16); the target is below 8.

Run: .venv/bin/python -m pytest tests/bench/test_bench_mermaid.py -q -s
"""

from __future__ import annotations

import pytest

from raw_tui.ui import mermaid
from tests.bench.bench_util import best_of

SHAPES = {
    "spaces": lambda n: "graph TD\nA" + " " * n + "B",
    "spaces-before-arrow": lambda n: "graph TD\nA" + " " * n + "-->B",
    "open-label": lambda n: "graph TD\nA[[" + "]" * n,
    "dashes": lambda n: "graph TD\nA" + "-" * n + ">B",
    "many-edges": lambda n: "graph TD\n" + "A-->B\n" * (n // 6),
}
TARGET = 8.0


@pytest.mark.parametrize("shape", list(SHAPES))
def test_drawing_time_grows_linearly(shape):
    make = SHAPES[shape]
    small, large = make(4000), make(16000)
    assert len(large.encode()) <= 16 * 1024 + 64
    t_small = best_of(lambda: mermaid.drawings(small), repeat=7, number=5)
    t_large = best_of(lambda: mermaid.drawings(large), repeat=7, number=5)
    ratio = t_large / t_small
    print(f"\n[bench] mermaid {shape}: 4k {t_small * 1e3:.2f} ms, 16k {t_large * 1e3:.2f} ms "
          f"→ {ratio:.1f}× (linear ≈ 4, target < {TARGET})")
    assert ratio < TARGET
