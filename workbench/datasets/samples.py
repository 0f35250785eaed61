"""The small CSV samples committed under ``datasets/`` (for people who want to look without Python).

Each sample is a few hundred rows cut from the ``tiny`` dataset with seed 0, so
the files always equal what the generators produce today (a test checks it;
``python datasets/regenerate.py`` rewrites them after a generator changes).
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from workbench.datasets.registry import dataset_names, load_dataset

SAMPLE_ROWS = 300
# how to cut: "entity" = the first readings of every series; "time" = the earliest events of all series
_CUT = {
    "garden_temperature": "entity",
    "weather_balloons": "entity",
    "game_scores": "time",
    "fx_prices": "time",
    "server_metrics": "time",
    "energy_meters": "time",
}


def sample_frame(name: str, rows: int = SAMPLE_ROWS) -> pd.DataFrame:
    """The committed sample of dataset ``name``: rows of ``load_dataset(name, "tiny", seed=0)``."""
    ds = load_dataset(name, size="tiny", seed=0)
    f = ds.frame
    if _CUT[name] == "entity":
        k = max(1, math.ceil(rows / ds.n_entities()))
        cut = f.groupby(ds.entity, sort=False).head(k).head(rows)
    else:
        cut = f.sort_values(ds.time, kind="stable").head(rows)
        cut = cut.sort_values([*ds.entity, ds.time], kind="stable")
    return cut[ds.columns].reset_index(drop=True)


def sample_csv(name: str) -> str:
    """The sample as CSV text (times in ISO 8601 with their UTC offset)."""
    return sample_frame(name).to_csv(index=False, lineterminator="\n")


def write_samples(directory: str | Path) -> list[Path]:
    """Write ``<name>.csv`` for every dataset into ``directory``; returns the paths."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in dataset_names():
        path = out / f"{name}.csv"
        path.write_text(sample_csv(name), encoding="utf-8")
        paths.append(path)
    return paths
