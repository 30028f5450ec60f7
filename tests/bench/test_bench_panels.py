"""Benchmark: 200 patch updates to a 200-item checklist in one call, against validating the
final document once. Prints the ratio; the target is the whole call within one frame (16 ms).

Run: .venv/bin/python -m pytest tests/bench/test_bench_panels.py -q -s
"""

from __future__ import annotations

import asyncio
import time

from raw_tui.protocol.bus import Bus
from raw_tui.frozen import thaw
from raw_tui.panels import PanelHost, checked_document, parse_declarations

FRAME_MS = 16.0
ITEMS = 200
UPDATES = 200
DECLS = parse_declarations([{"id": "plan", "title": "Plan"}], where=["panels"], file=None)


def document() -> dict:
    return {"title": "Plan", "summary": "0 done", "blocks": [{
        "id": "c", "kind": "checklist",
        "items": [{"id": f"i{k}", "label": f"Step number {k} of the plan", "status": "pending",
                   "note": "details"} for k in range(ITEMS)]}]}


def update(k: int) -> dict:
    return {"op": "patch", "patches": [
        {"op": "upsert_items", "block": "c", "items": [
            {"id": f"i{k}", "label": f"Step number {k} of the plan", "status": "done"}]},
        {"op": "set", "field": "summary", "value": f"{k + 1} done"}]}


async def one_call() -> tuple[float, dict]:
    bus = Bus()
    bus.subscribe(lambda event: None)  # a history writer is always attached
    host = PanelHost(bus)
    first = host.open_call(owner="builtin/bench", declarations=DECLS, call_id="a",
                           source="model", turn_id="t")
    await first.update("plan", {"op": "replace", "document": document()})
    first.close()
    call = host.open_call(owner="builtin/bench", declarations=DECLS, call_id="b",
                          source="model", turn_id="t")
    start = time.perf_counter()
    for k in range(UPDATES):
        await call.update("plan", update(k))
    call.close()
    elapsed = time.perf_counter() - start
    return elapsed, thaw(call.get("plan")[1])


def best(fn, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def test_200_patches_against_one_validation():
    results = [asyncio.run(one_call()) for _ in range(5)]
    patched = min(t for t, _ in results)
    final = results[0][1]
    assert final["summary"] == "200 done" and all(
        i["status"] == "done" for i in final["blocks"][0]["items"])
    once = best(lambda: checked_document(final))
    ratio = patched / once
    print(f"\n200 patch updates: {patched * 1000:.2f} ms; validating the final document once: "
          f"{once * 1000:.3f} ms; ratio {ratio:.1f}x; frame budget {FRAME_MS:.0f} ms")
    # The sanity line: well inside a few frames even on a busy 2-core machine.
    assert patched * 1000 < FRAME_MS * 4
