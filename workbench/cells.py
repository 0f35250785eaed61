"""CellFrame: the one columnar picture of what Bigtable would store.

Every size, every key statistic and every write in the workbench comes from a
CellFrame, so the analysis and the emulator can never disagree about the data.

Columns (one row per cell):

==============  =========  ====================================================
``table``       str        logical table of the schema ("main", or a second
                           table when a design uses one table per query, G05)
``row_key``     str        the row key (UTF-8 text; keys are human-readable, G22)
``family``      str        column family
``qualifier``   str        column qualifier (may carry data, G12/G19)
``timestamp_us`` int64     cell timestamp in microseconds, a multiple of 1000
                           (the emulator and Cloud Bigtable keep milliseconds)
``value``       bytes      the cell value (b"" when the data is in the qualifier)
==============  =========  ====================================================
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

COLUMNS = ("table", "row_key", "family", "qualifier", "timestamp_us", "value")
TIMESTAMP_OVERHEAD = 8  # bytes of the cell timestamp in the size model
DEFAULT_TABLE = "main"


def utf8_len(s: pd.Series) -> np.ndarray:
    """Byte length of each string; character length when all of them are ASCII (the usual case).

    ``str.isascii`` is O(1) in CPython (a string knows its kind), so checking every value
    through C-level ``map`` is cheaper than hashing them to find the distinct ones."""
    if len(s) == 0:
        return np.zeros(0, dtype=np.int64)
    values = s.to_numpy()
    try:
        if all(map(str.isascii, values)):
            return np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    except TypeError:  # not all str: the general path below decides
        pass
    uniques = pd.unique(values)
    if all(u.isascii() for u in uniques):
        return s.str.len().to_numpy(dtype=np.int64)
    return s.map(lambda x: len(x.encode("utf-8"))).to_numpy(dtype=np.int64)


def bytes_len(s: pd.Series) -> np.ndarray:
    return np.fromiter((len(v) for v in s), dtype=np.int64, count=len(s))


@dataclass(eq=False)
class CellFrame:
    """A pandas DataFrame of cells with the columns above, plus size helpers."""

    frame: pd.DataFrame

    def __post_init__(self) -> None:
        missing = [c for c in COLUMNS if c not in self.frame.columns]
        if missing:
            raise ValueError(f"CellFrame is missing columns {missing}; it needs {list(COLUMNS)}.")

    # -- construction -----------------------------------------------------------------
    @classmethod
    def from_columns(
        cls,
        *,
        row_key: Iterable[str],
        family: Iterable[str] | str,
        qualifier: Iterable[str] | str,
        timestamp_us: Iterable[int],
        value: Iterable[bytes],
        table: Iterable[str] | str = DEFAULT_TABLE,
    ) -> CellFrame:
        keys = pd.Series(list(row_key), dtype=object)
        n = len(keys)

        def col(x: Iterable[Any] | str) -> pd.Series:
            if isinstance(x, (str, bytes)):
                return pd.Series([x] * n, dtype=object)
            return pd.Series(list(x), dtype=object)

        frame = pd.DataFrame(
            {
                "table": col(table),
                "row_key": keys,
                "family": col(family),
                "qualifier": col(qualifier),
                "timestamp_us": pd.Series(
                    np.asarray(
                        list(timestamp_us)
                        if not isinstance(timestamp_us, np.ndarray)
                        else timestamp_us,
                        dtype=np.int64,
                    )
                ),
                "value": col(value),
            }
        )
        return cls(frame)

    @classmethod
    def concat(cls, parts: Iterable[CellFrame]) -> CellFrame:
        frames = [p.frame for p in parts]
        if not frames:
            return cls.empty()
        return cls(pd.concat(frames, ignore_index=True))

    @classmethod
    def empty(cls) -> CellFrame:
        return cls(
            pd.DataFrame(
                {
                    c: pd.Series([], dtype=np.int64 if c == "timestamp_us" else object)
                    for c in COLUMNS
                }
            )
        )

    # -- views ------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.frame)

    @property
    def tables(self) -> list[str]:
        return sorted(self.frame["table"].unique().tolist())

    def table(self, name: str) -> CellFrame:
        return CellFrame(self.frame[self.frame["table"] == name].reset_index(drop=True))

    def sorted(self) -> CellFrame:
        """Cells in Bigtable's order: by row key, family, qualifier, newest timestamp first."""
        f = self.frame.sort_values(
            ["table", "row_key", "family", "qualifier", "timestamp_us"],
            ascending=[True, True, True, True, False],
            kind="stable",
        )
        return CellFrame(f.reset_index(drop=True))

    # -- sizes (bytes as Bigtable counts them: key + family + qualifier + timestamp + value) --
    def cell_bytes(self) -> np.ndarray:
        f = self.frame
        return (
            utf8_len(f["row_key"])
            + utf8_len(f["family"])
            + utf8_len(f["qualifier"])
            + TIMESTAMP_OVERHEAD
            + bytes_len(f["value"])
        )

    def row_stats(self) -> pd.DataFrame:
        """One row per (table, row key): cells and bytes, in key order."""
        f = self.frame
        stats = pd.DataFrame(
            {"table": f["table"], "row_key": f["row_key"], "bytes": self.cell_bytes()}
        )
        out = stats.groupby(["table", "row_key"], sort=True).agg(
            cells=("bytes", "size"), bytes=("bytes", "sum")
        )
        return out.reset_index()

    @property
    def n_rows(self) -> int:
        return int(self.frame[["table", "row_key"]].drop_duplicates().shape[0])

    @property
    def total_bytes(self) -> int:
        return int(self.cell_bytes().sum())

    def summary(self) -> dict[str, float]:
        rows = self.row_stats()
        return {
            "cells": len(self),
            "rows": len(rows),
            "tables": len(self.tables),
            "bytes": int(rows["bytes"].sum()) if len(rows) else 0,
            "max_row_bytes": int(rows["bytes"].max()) if len(rows) else 0,
            "max_row_cells": int(rows["cells"].max()) if len(rows) else 0,
        }

    def _repr_html_(self) -> str:
        s = self.summary()
        head = self.sorted().frame.head(8).copy()
        head["value"] = head["value"].map(
            lambda v: v[:40].decode("utf-8", "replace") if isinstance(v, bytes) else v
        )
        return (
            f"<p><b>CellFrame</b>: {s['cells']:,} cells in {s['rows']:,} rows, "
            f"{s['bytes']:,} bytes; largest row {s['max_row_bytes']:,} bytes / {s['max_row_cells']:,} cells</p>"
            + head.to_html(index=False)
        )

    def __repr__(self) -> str:
        s = self.summary()
        return f"<CellFrame {s['cells']:,} cells, {s['rows']:,} rows, {s['bytes']:,} bytes>"

    def equals(self, other: CellFrame) -> bool:
        a, b = self.sorted().frame, other.sorted().frame
        return a.shape == b.shape and all(
            (a[c].to_numpy() == b[c].to_numpy()).all() for c in COLUMNS
        )
