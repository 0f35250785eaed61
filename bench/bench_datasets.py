"""Generation speed of the sample datasets, workshop and large sizes.

    .venv/bin/python bench/bench_datasets.py [--sizes workshop,large] [--repeat 3]

Two baselines, both measured in this process on the same machine state:

* floor — pandas building a frame of the same length, columns and dtypes from
  ready-made numpy arrays (``pd.DataFrame({...})`` of copies of the generated
  columns): what any generator must pay at least. Reported as ``× floor``
  (the generator's time / the floor's; lower is better).
* naive — a per-event Python loop that draws each event's values with
  ``random`` and appends a dict, then builds the frame (timed on a 20k-event
  slice and extrapolated). It does none of the physics or validation, so it is
  a generous baseline; reported as ``speed-up`` (naive time / generator time).

Also shown: the share of the generator's time spent in validation
(``build_dataset``, the same code path as ``from_dataframe``).
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
import pandas as pd

import workbench as wb
from workbench.datasets import registry, validate
from workbench.datasets._frames import rng_for
from workbench.datasets.sizes import resolve_size

NAIVE_SLICE = 20_000


def _best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def _floor(ds: wb.Dataset) -> float:
    """Seconds for pandas to build the same frame from plain numpy arrays (int64 µs, object str, floats)."""
    arrays: dict[str, tuple[str, np.ndarray]] = {}
    for c in ds.frame.columns:
        s = ds.frame[c]
        if isinstance(s.dtype, pd.DatetimeTZDtype):
            arrays[c] = (
                "time",
                s.dt.tz_convert(None).to_numpy().astype("datetime64[us]").astype(np.int64),
            )
        elif pd.api.types.is_string_dtype(s.dtype):
            arrays[c] = ("str", s.to_numpy(dtype=object))
        else:
            arrays[c] = ("num", s.to_numpy(copy=True))

    def column(kind: str, a: np.ndarray) -> pd.Series:
        if kind == "time":
            return pd.Series(pd.DatetimeIndex(a.astype("datetime64[us]")).tz_localize("UTC"))
        if kind == "str":
            return pd.Series(a, dtype="str")
        return pd.Series(a.copy())

    return _best(lambda: pd.DataFrame({c: column(k, a) for c, (k, a) in arrays.items()}), 3)


def _naive_per_event(ds: wb.Dataset, n: int) -> float:
    """Seconds for a per-event Python loop producing n rows shaped like ds (then extrapolate)."""
    ent_values = {c: ds.frame[c].drop_duplicates().tolist()[:50] for c in ds.entity}
    t0 = ds.frame[ds.time].iloc[0]
    rnd = random.Random(0)

    def run() -> pd.DataFrame:
        rows = []
        for i in range(n):
            row = {c: rnd.choice(v) for c, v in ent_values.items()}
            row[ds.time] = t0 + pd.Timedelta(seconds=i)
            for m in ds.measures:
                row[m] = rnd.gauss(0.0, 1.0)
            rows.append(row)
        return pd.DataFrame(rows)

    return _best(run, 1)


def _load_split(name: str, size: str) -> tuple[float, float, wb.Dataset]:
    """load_dataset's two steps timed apart: (generate seconds, validate seconds, dataset)."""
    module = registry.generator(name)
    label, n = resolve_size(size)
    t0 = time.perf_counter()
    frame, queries = module.generate(n, rng_for(name, 0))
    t1 = time.perf_counter()
    ds = validate.build_dataset(
        frame,
        entity=module.ENTITY,
        time=module.TIME,
        measures=module.MEASURES,
        attributes=[],
        units=dict(module.UNITS),
        name=name,
        queries=queries,
        size=label,
        seed=0,
        empty_ok=getattr(module, "EMPTY_OK", ()),
    )
    return t1 - t0, time.perf_counter() - t1, ds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="workshop,large")
    ap.add_argument(
        "--repeat", type=int, default=3, help="runs per workshop measurement (large: 1)"
    )
    args = ap.parse_args()
    print(
        f"{'dataset':<20}{'size':<10}{'events':>11}{'seconds':>9}{'events/s':>12}"
        f"{'× floor':>9}{'speed-up':>10}{'valid.':>8}"
    )
    for size in args.sizes.split(","):
        for name in wb.dataset_names():
            repeat = 1 if size == "large" else args.repeat
            runs = [_load_split(name, size) for _ in range(repeat)]
            secs, i = min((g + v, i) for i, (g, v, _) in enumerate(runs))
            valid, ds = runs[i][1], runs[i][2]
            if size != "large":  # the split path builds exactly what load_dataset builds
                assert ds.frame.equals(wb.load_dataset(name, size=size, seed=0).frame)
            n = len(ds)
            floor = _floor(ds)
            naive = _naive_per_event(ds, min(NAIVE_SLICE, n)) * n / min(NAIVE_SLICE, n)
            print(
                f"{name:<20}{size:<10}{n:>11,}{secs:>9.3f}{n / secs:>12,.0f}"
                f"{secs / floor:>8.1f}×{naive / secs:>9.1f}×{valid / secs:>7.0%}",
                flush=True,
            )
            del runs, ds
    print(
        "× floor: generator time / pandas building the same frame from ready arrays (lower is better).\n"
        "speed-up: a per-event Python loop (random values, no physics, 20k-event slice extrapolated) / generator.\n"
        "valid.: share of the generator's time in build_dataset (the validation from_dataframe uses)."
    )


if __name__ == "__main__":
    main()
