"""Benchmark helpers. Benchmarks print ratios against a baseline measured in the same run (this machine is
noisy). They are ordinary tests, so CI runs them; each asserts its target with a margin
only where the issue sets one."""

import statistics
import time


def best_of(fn, *, repeat: int = 5, number: int = 1) -> float:
    """The best (least disturbed) time of `repeat` runs of `number` calls, per call."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return min(times)


def report(name: str, value: float, baseline: float, target: float | None = None) -> float:
    ratio = value / baseline
    goal = f" (target ≤ {target}×)" if target is not None else ""
    print(f"\n[bench] {name}: {value * 1e6:.1f} µs vs baseline {baseline * 1e6:.1f} µs "
          f"→ {ratio:.2f}×{goal}")
    return ratio


__all__ = ["best_of", "report", "statistics"]
