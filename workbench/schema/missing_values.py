"""Missing values (NaN, None, NaT, pd.NA) as cells: none by default (Bigtable is sparse, an
absent cell costs nothing and reads back as nothing), or a stated sentinel text
(``Schema(missing="NaN")``). The layouts mark which cells hold a value; ``Schema.to_cells`` drops
the others after the collision and limit checks, and ``from_cells`` reads either back as missing.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import numpy as np
import pandas as pd

from ..errors import SchemaError
from .value_text import encode_text, json_fragment


def missing_mask(values: pd.Series) -> np.ndarray | None:
    """Where a column has no value (NaN, None, NaT, pd.NA); None when every value is present."""
    if values.dtype.kind in "iub":  # NumPy integers and bools cannot be missing
        return None
    absent = values.isna().to_numpy(dtype=bool)
    return absent if absent.any() else None


def fill_missing(values: pd.Series, absent: np.ndarray) -> pd.Series:
    """The column with a placeholder where a value is missing, so it encodes as text; the
    placeholder's cells are dropped or given the sentinel. Floats (NaN → "nan") and times
    (NaT → a number) encode as they are."""
    if values.dtype.kind in "fM":
        return values
    return values.astype(object).where(~absent, "")


def check_sentinel(equal: np.ndarray, absent: np.ndarray, col: str, sentinel: str) -> None:
    """A present value written as the missing-value text would read back as missing: refuse."""
    clash = np.asarray(equal, dtype=bool) & ~absent
    if clash.any():
        row = int(np.flatnonzero(clash)[0])
        raise SchemaError(
            f"Column {col!r} holds the value {sentinel!r} (event {row:,} and "
            f"{int(clash.sum()) - 1:,} more), the text this schema writes for a missing value: "
            f"it would read back as missing. Choose another missing= text, or missing=None "
            "(no cell for a missing value)."
        )


def present_mask(absent: np.ndarray | None, sentinel: str | None) -> np.ndarray | None:
    return None if absent is None or sentinel is not None else ~absent


def json_payloads(
    column: Callable[[str], pd.Series], cols: tuple[str, ...], n: int, sentinel: str | None
) -> np.ndarray:
    """Each event as a JSON object (text): a missing value's field is left out, or holds the
    sentinel text as a JSON string."""
    payload: np.ndarray | None = None
    gaps = False  # a payload so far may be empty (its event's values were all missing)
    for c in cols:
        col = column(c)
        absent = missing_mask(col)
        name = json.dumps(c) + ":"
        if absent is None:
            frag = name + json_fragment(col)
        elif sentinel is None:
            frag = np.where(absent, "", name + json_fragment(fill_missing(col, absent)))
        else:
            check_sentinel(encode_text(fill_missing(col, absent)) == sentinel, absent, c, sentinel)
            frag = np.where(
                absent,
                name + json.dumps(sentinel),
                name + json_fragment(fill_missing(col, absent)),
            )
        if payload is None:
            payload = frag
        elif not gaps and (absent is None or sentinel is not None):
            payload = payload + "," + frag
        else:
            payload = payload + np.where((payload != "") & (frag != ""), ",", "") + frag
        gaps = gaps or (absent is not None and sentinel is None)
    if payload is None:
        return np.full(n, "{}", dtype=object)
    return "{" + payload + "}"
