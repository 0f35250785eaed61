"""How long a designer widget change takes to update what is shown, on workshop-size data.

Drives the widgets from Python (set a control's value; the observers run
synchronously, so the time until the call returns is the time until every
visible output — headline numbers and the open tab's figure — is updated) and
compares with a baseline measured in the same run on the same data: plain
``analyze(ds, schema)`` plus drawing the same one figure, with no widgets and
no cache.

    .venv/bin/python bench/bench_widgets.py [dataset] [--repeat N]

Kinds of change:
* display  – the heat map's writes/reads toggle (no new analysis);
* revisit  – back to a design already seen (cached analysis and figure);
* nodes    – the model's cluster size (key model re-run on the cached cells);
* new      – a design not seen yet (analysis + figure), the worst case.
Then, per tab (heat map, row sizes, query costs, compare): a new design with that tab open,
against the same analysis plus the matplotlib figure of that tab (ratio < 1: faster).
Target: under 250 ms per change. The designer draws its heat map as HTML around a raster
(workbench/plots/heatmap.py: key_heatmap_html); the baseline draws the matplotlib figure that notebooks and reports show.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import workbench as wb  # noqa: E402
from workbench.analysis import analyze  # noqa: E402
from workbench.schema.gallery import schema_for  # noqa: E402
from workbench.ui._render import figure_png  # noqa: E402
from workbench.ui.app import TABS  # noqa: E402
from workbench.ui.model import Workspace  # noqa: E402

BUDGET_MS = 250.0


def _ms(fn, *args) -> float:
    t0 = time.perf_counter()
    fn(*args)
    return (time.perf_counter() - t0) * 1e3


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dataset", nargs="?", default="fx_prices")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--tab", default="heatmap", choices=TABS[:5])
    args = ap.parse_args(argv)

    ws = Workspace()
    ds = ws.dataset(args.dataset, "workshop")
    d = wb.designer(ds, workspace=ws)
    d.tabs.selected_index = TABS.index(args.tab)
    c = d.controls
    patterns = list(c.pattern.options)
    print(
        f"{args.dataset}: {len(ds):,} events (workshop); open tab: {args.tab}; patterns: {', '.join(patterns)}"
    )

    # baseline: the same work without widgets or caches, on the same data
    base = []
    for p in patterns:
        s = schema_for(ds, p)
        try:
            base.append(_ms(lambda s=s: figure_png(analyze(ds, s), args.tab)))
        except wb.WorkbenchError:
            pass
    base_ms = statistics.median(base)

    results: dict[str, list[float]] = {"display": [], "revisit": [], "nodes": [], "new": []}
    for _rep in range(args.repeat):
        ws.clear()  # every repeat starts cold: "new" is really new
        for p in patterns:
            results["new"].append(_ms(setattr, c.pattern, "value", p))
            if (
                d.error is not None
            ):  # a design that cannot be stored (e.g. collisions): shown, not timed
                results["new"].pop()
        for p in patterns:
            t = _ms(setattr, c.pattern, "value", p)
            if d.error is None:
                results["revisit"].append(t)
        for what in ("reads", "writes"):
            results["display"].append(_ms(setattr, c.heatmap_what, "value", what))
        for n in (5, 3):
            results["nodes"].append(_ms(setattr, c.nodes, "value", n))

    print(
        f"baseline (analyze + draw {args.tab}, no widgets): median {base_ms:,.0f} ms over {len(base)} designs"
    )
    print(
        f"{'change':<9} {'median ms':>10} {'p90 ms':>8} {'ratio vs baseline':>18} {'≤ 250 ms':>9}"
    )
    for k, v in results.items():
        v = sorted(v)
        med = statistics.median(v)
        p90 = v[min(len(v) - 1, int(round(0.9 * (len(v) - 1))))]
        print(
            f"{k:<9} {med:>10,.0f} {p90:>8,.0f} {med / base_ms:>17.2f}× {'yes' if med <= BUDGET_MS else 'NO':>9}"
        )
    print(f"cache: {ws.hits} hits, {ws.misses} misses")

    # every tab that draws a picture: a design change with that tab open, against drawing the
    # same picture as the matplotlib figure (what the designer did before its HTML bars)
    print(f"\n{'tab':<9} {'change ms':>10} {'matplotlib ms':>14} {'ratio':>7} {'≤ 250 ms':>9}")
    for tab in ("heatmap", "nodes", "hotspot", "rowsizes", "queries", "compare"):
        d.tabs.selected_index = TABS.index(tab)
        if tab == "compare":
            d.pin()
        times, mpl = [], []
        for p in patterns:
            ws.clear()
            if d.pinned is not None:  # the pinned design was analysed when it was pinned
                ws.analysis(ds, d.pinned, nodes=int(c.nodes.value))
            t = _ms(setattr, c.pattern, "value", p)
            if d.error is not None:
                continue
            times.append(t)
            a = d.analysis
            if tab == "compare":
                from workbench.analysis.comparison import compare_analyses
                from workbench.plots import figure_html
                from workbench.plots.compare import plot_comparison

                cmp = compare_analyses(ds, {"a": a, "b": a})
                mpl.append(d.timings_ms["analysis"] + _ms(figure_html, plot_comparison, cmp))
            else:
                mpl.append(d.timings_ms["analysis"] + _ms(figure_png, a, tab))
        med, mmed = statistics.median(times), statistics.median(mpl)
        print(
            f"{tab:<9} {med:>10,.0f} {mmed:>14,.0f} {med / mmed:>6.2f}× {'yes' if med <= BUDGET_MS else 'NO':>9}"
        )

    # the advisor on a nodes change: a fresh advise (cells rebuilt) against the designer's way
    # (Context.at_nodes: the cells of the design already advised are reused), same analysis
    from workbench.advisor import advise

    s0 = schema_for(ds, patterns[0])
    ctx = advise(ds, s0, nodes=3, analysis=analyze(ds, s0, nodes=3)).context
    fresh, reused = [], []
    for n in (4, 5, 6, 7):
        a = analyze(ds, s0, nodes=n)
        fresh.append(_ms(lambda a=a, n=n: advise(ds, s0, nodes=n, analysis=a)))
        reused.append(_ms(lambda a=a, n=n: advise(ds, s0, nodes=n, analysis=a, context=ctx)))
    med, fmed = statistics.median(reused), statistics.median(fresh)
    print(
        f"\nadvise on another node count: {med:,.0f} ms reusing the cells, {fmed:,.0f} ms fresh "
        f"({med / fmed:.2f}×)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
