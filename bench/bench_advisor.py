"""Advisor overhead: wb.advise(ds, schema) vs the analysis it builds on (wb.analyze), same data, same process.

The advisor runs to_cells + analyze once and then its rules; suggestions that need a collision
check build candidate schemas' cells too. Printed as a ratio advise ÷ analyze per design
(the machine is shared and noisy: best of 3 rounds each), plus absolute milliseconds.

    .venv/bin/python bench/bench_advisor.py [size]
"""

from __future__ import annotations

import sys
import time

import workbench as wb
from workbench.schema import pattern_names, preset


def best(fn, rounds: int = 3) -> float:
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return min(out)


def main(size: str = "workshop") -> None:
    print(f"{'design':42s} {'events':>8s} {'analyze ms':>11s} {'advise ms':>10s} {'ratio':>6s}")
    for name in wb.dataset_names():
        ds = wb.load_dataset(name, size=size)
        for pattern in (pattern_names(name)[0], "timestamp_first"):
            s = preset(name, pattern)
            base = best(lambda: wb.analyze(ds, s))
            adv = best(lambda: wb.advise(ds, s))
            print(
                f"{name + '/' + pattern:42s} {len(ds):8,d} {base * 1e3:11.0f} {adv * 1e3:10.0f} {adv / base:6.2f}"
            )


if __name__ == "__main__":
    main(*sys.argv[1:])
