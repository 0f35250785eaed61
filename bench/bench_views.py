"""How long the designer's Views (CMV) and Schema & cbt tabs take on workshop-size data.

    .venv/bin/python bench/bench_views.py [dataset] [pattern]

Drives the widgets from Python. Inside a running event loop (a kernel) a new view draws its SQL
at once ("sql") and its costs on the loop's next turn ("costs", cold: the derived rows built and
analysed); a view seen before is drawn from the Workspace cache ("cached"). Then the Schema & cbt
tab after a design change (row-key schema and conformance from the analysis's keys), and the
advisor's two view rules against advise without them. Target: under 250 ms per change; each
views change is also shown as a ratio to computing the same rollup's costs without widgets or
cache in the same run (the SQL should be a small fraction of it, a cached view smaller still).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import workbench as wb  # noqa: E402
from workbench.advisor import advise, rule_names  # noqa: E402
from workbench.ui.model import Workspace  # noqa: E402
from workbench.ui.views_tab import INDEX, NONE, ROLLUP  # noqa: E402


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1e3


def _ms_of(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return _ms(t0)


async def _views(d) -> list[tuple[str, float, float]]:
    c, out = d.controls, []

    async def change(label: str, control, value) -> None:
        t0 = time.perf_counter()
        control.value = value
        sql = _ms(t0)
        while (
            "data-view-row" not in d.views_panel.value and "data-error" not in d.views_panel.value
        ):
            await asyncio.sleep(0.005)
        out.append((label, sql, _ms(t0)))

    await change("rollup hour (cold)", c.view_kind, ROLLUP)
    await change("rollup day (cold)", c.view_bucket, "day")
    await change("rollup hour (cached)", c.view_bucket, "hour")
    await change("stats max only (cold)", c.view_stats, ("max",))
    await change("async index (cold)", c.view_kind, INDEX)
    c.view_kind.value = NONE
    await change("rollup again (cached)", c.view_kind, ROLLUP)
    return out


def main(argv: list[str]) -> int:
    name = argv[0] if argv else "energy_meters"
    pattern = argv[1] if len(argv) > 1 else "hourly_aggregates"
    ws = Workspace()
    ds = ws.dataset(name, "workshop")
    d = wb.designer(ds, workspace=ws)
    d.controls.pattern.value = pattern
    d.show_tab("views")
    print(f"{name} ({len(ds):,} events, workshop) on {pattern}")
    # baseline, same run and data: the rollup's costs computed without widgets or cache
    from workbench.analysis.views import view_effect
    from workbench.ui.views_tab import current_view

    d.controls.view_kind.value = ROLLUP
    view, schema = current_view(d), d.schema
    d.controls.view_kind.value = NONE
    ws.clear()
    base_ms = statistics.median(
        _ms_of(lambda: view_effect(ds, schema, view, table_id="bench")) for _ in range(3)
    )
    print(f"baseline (view_effect, no widgets, no cache): {base_ms:,.0f} ms")
    print(
        f"{'views tab change':<24} {'SQL ms':>8} {'× base':>7} {'costs ms':>9} {'× base':>7} "
        f"{'≤ 250 ms':>9}"
    )
    for label, sql, full in asyncio.run(_views(d)):
        verdict = "yes" if full <= 250 else "SQL only" if sql <= 250 else "NO"
        print(
            f"{label:<24} {sql:>8,.0f} {sql / base_ms:>6.2f}× {full:>9,.0f} "
            f"{full / base_ms:>6.2f}× {verdict:>9}"
        )

    d.show_tab("schema")
    times = []
    for p in d.controls.pattern.options:
        d.controls.pattern.value = p  # the analysis (cached after the first visit) and the tab
        if d.error is not None:
            continue
        d.controls.pattern.value = d.controls.pattern.options[0]
        t0 = time.perf_counter()
        d.controls.pattern.value = p
        times.append(_ms(t0))
    print(
        f"\nSchema & cbt tab, a design change (analysis cached): median {statistics.median(times):,.0f} ms, max {max(times):,.0f} ms over {len(times)} designs"
    )

    s = wb.preset(name, pattern)
    others = [r for r in rule_names() if r not in ("cmv_rollup", "async_index")]
    a = wb.analyze(ds, s)
    with_all, without = [], []
    for _ in range(3):
        t0 = time.perf_counter()
        advise(ds, s, analysis=a)
        with_all.append(_ms(t0))
        t0 = time.perf_counter()
        advise(ds, s, analysis=a, rules=others)
        without.append(_ms(t0))
    print(
        f"advise: {statistics.median(with_all):,.0f} ms with the view rules, {statistics.median(without):,.0f} ms without"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
