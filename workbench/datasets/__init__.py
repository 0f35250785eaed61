"""Datasets: named deterministic samples and bring-your-own data, validated the same way.

ds = load_dataset("fx_prices", size="workshop", seed=0)
ds = from_dataframe(df, entity=["symbol"], time="date", measures=["price"], naive_tz="UTC")
ds = from_csv("stocks.csv", entity=["symbol"], time="date", measures=["price"], naive_tz="UTC")
"""

from __future__ import annotations

from workbench.datasets.byo import from_csv, from_dataframe
from workbench.datasets.model import Dataset, QueryIntent
from workbench.datasets.parquet import from_parquet
from workbench.datasets.registry import dataset_names, load_dataset
from workbench.datasets.sizes import MAX_EVENTS, MIN_EVENTS, SIZES

__all__ = [
    "Dataset",
    "QueryIntent",
    "dataset_names",
    "load_dataset",
    "from_dataframe",
    "from_csv",
    "from_parquet",
    "SIZES",
    "MIN_EVENTS",
    "MAX_EVENTS",
]
