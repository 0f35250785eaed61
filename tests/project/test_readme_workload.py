"""The README's "Your production, stated once" block runs as written and states the production
in its lines (G06, G07): every input it names reads as the user's under the figures, and the
peak it states is what the nodes are sized for."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import workbench as wb
from workbench.analysis import analyze

pytestmark = pytest.mark.slow  # the block compares every preset of stocks (about 15 s)

ROOT = Path(__file__).resolve().parents[2]


def _block() -> str:
    text = (ROOT / "README.md").read_text()
    section = text.split("### Your production, stated once", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_readme_states_a_workload_once_and_its_uses_run():
    import vega_datasets

    code = _block()
    # Workload (2 lines), then 3 uses: compare, advise, the production sheet
    assert len([ln for ln in code.splitlines() if ln.strip()]) == 5
    stocks = Path(vega_datasets.__file__).parent / "_data" / "stocks.csv"
    ds = wb.from_csv(
        stocks,
        entity="symbol",
        time="date",
        measures="price",
        naive_tz="UTC",
        queries=["latest 1 per symbol", "symbol=IBM over 365 days"],
    )
    ns = {"wb": wb, "ds": ds}
    exec(compile(code, "README.md", "exec"), ns)  # noqa: S102 - the README's own lines
    w = ns["w"]
    said = set(w.stated())
    assert {"events_per_s", "peak_factor", "retention_months", "entities", "queries_per_s"} <= said
    cap = analyze(ds, wb.preset(ds, "entity_first"), workload=w).capacity
    yours = cap.production.inputs_line().split(" · defaults: ")[0]
    for shown in ("50,000 events/s", "2× the mean", "6 months", "5,000", "200 queries/s"):
        assert shown in yours, (shown, yours)
    # by hand: nodes are sized for the peak, 2 × 50,000 = 100,000 events/s, one write each
    assert cap.writes_per_s == pytest.approx(100_000)
