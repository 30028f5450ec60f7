"""Benchmark: the mermaid drawer on hostile but legal blocks (at most 16 KiB) must take time
linear in their size. It parses on every render; `graph TD\\nA` + 16,000 spaces + `B` took
2 s when the arrow pattern rescanned each run of spaces. Prints the ratio of 16k to 4k
characters: a linear drawer gives about 4, a quadratic one 16; the target is below 8
(measured interleaved, best of several rounds, so a busy machine slows both alike).

Run: .venv/bin/python -m pytest tests/bench/test_bench_mermaid.py -q -s
"""

from __future__ import annotations

import time

import pytest

from raw_tui.ui import flowchart

SHAPES = {
    "spaces": lambda n: "graph TD\nA" + " " * n + "B",
    "spaces-before-arrow": lambda n: "graph TD\nA" + " " * n + "-->B",
    "open-label": lambda n: "graph TD\nA[[" + "]" * n,
    "long-labels": lambda n: "graph TD\n" + "".join(f"N{i}[{'x' * 100}]-->" for i in range(30))
                             + "Z" + " " * (n - 3200),
    "dashes": lambda n: "graph TD\nA" + "-" * n + ">B",
}
TARGET = 8.0
ROUNDS = 9


def timed(source: str) -> float:
    start = time.perf_counter()
    flowchart.drawings(source)
    return time.perf_counter() - start


@pytest.mark.parametrize("shape", list(SHAPES))
def test_drawing_time_grows_linearly(shape):
    make = SHAPES[shape]
    small, large = make(4000), make(16000)
    assert len(large.encode()) <= 16 * 1024 + 64
    t_small = t_large = float("inf")
    for _ in range(ROUNDS):  # interleaved: load on the machine hits both sizes alike
        t_small = min(t_small, min(timed(small) for _ in range(2)))
        t_large = min(t_large, timed(large))
    ratio = t_large / t_small
    print(f"\n[bench] mermaid {shape}: 4k {t_small * 1e3:.2f} ms, 16k {t_large * 1e3:.2f} ms "
          f"→ {ratio:.1f}× (linear ≈ 4, quadratic ≈ 16, target < {TARGET:.0f})")
    assert ratio < TARGET


def test_a_label_too_wide_for_any_panel_is_not_drawn():
    assert flowchart.draw("graph TD\nA[" + "x" * 120 + "] --> B") is not None
    assert flowchart.draw("graph TD\nA[" + "x" * 121 + "] --> B") is None  # shown as source
