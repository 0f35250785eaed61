"""Entity values as the row-key text they become: spaces around a value stripped (one sensor,
one series; a note says so), and values refused that would be wrong key text — bytes (``str(b"a")``
is ``"b'a'"``), lone surrogates UTF-8 cannot encode, distinct values with one text (``1`` and
``"1"``), integers beyond 64 bits (their key text reads back as text)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from pandas.api import types as ptypes

from workbench.errors import DatasetError


def strip_entities(
    frame: pd.DataFrame, entity: list[str], word: str
) -> tuple[pd.DataFrame, list[str]]:
    """Entity text with spaces around it (`` a , 1`` in a CSV) is the same entity as ``a``:
    one sensor must not become two series, nor a row key carry invisible spaces. The spaces
    are stripped (checked once per distinct value) and a note says which values changed."""
    notes: list[str] = []
    for col in entity:
        s = frame[col]
        if s.dtype != object and not ptypes.is_string_dtype(s.dtype):
            continue
        uniq = pd.unique(s)
        padded = {v: v.strip() for v in uniq if isinstance(v, str) and v != v.strip() and v.strip()}
        if not padded:
            continue
        frame = frame.assign(**{col: s.replace(padded)})
        hit = s.isin(list(padded)).to_numpy(dtype=bool)
        first = s.index[int(np.flatnonzero(hit)[0])]
        shown = ", ".join(f"{k!r} → {v!r}" for k, v in list(padded.items())[:3])
        joined = sorted(set(padded.values()) & {u for u in uniq if u not in padded})
        notes.append(
            f"entity column {col!r}: spaces around {len(padded):,} value(s) stripped ({shown}; "
            f"{int(hit.sum()):,} events, first at {word} {first})"
            + (f", so they join the series {joined[:3]}" if joined else "")
            + "; a row key holds no invisible spaces."
        )
    return frame, notes


def check_key_collisions(frame: pd.DataFrame, entity: list[str], word: str) -> None:
    """Distinct values that would render to the same row-key text (``1`` and ``'1'``) are refused,
    and so are values UTF-8 cannot encode (a lone surrogate: row keys are UTF-8 bytes) and
    integers no int64/uint64 holds (``2**70``: its key text cannot read back as that number)."""
    for col in entity:
        s = frame[col]
        if s.dtype != object:
            continue
        uniq = pd.unique(s)
        for v in uniq:
            if isinstance(v, (bytes, bytearray)):  # str(b"a") is "b'a'": not the entity's name
                row = s.index[int(np.flatnonzero((s == v).to_numpy())[0])]
                raise DatasetError(
                    f"Entity column {col!r} holds bytes ({v!r}, {word} {row}), not text: a row "
                    f"key would spell them {str(v)!r}. Decode them first, e.g. df[{col!r}] = "
                    f"df[{col!r}].str.decode('utf-8'). Nothing was written."
                )
            if (
                isinstance(v, int | np.integer)
                and not isinstance(v, bool)
                and not (-(2**63) <= int(v) < 2**64)
            ):  # no int64/uint64 holds it: the key's digits would read back as text, not it
                row = s.index[int(np.flatnonzero((s == v).to_numpy())[0])]
                raise DatasetError(
                    f"Entity column {col!r} holds the integer {v} ({word} {row}), beyond 64 bits: "
                    "pandas keeps it as a Python object, and its row-key text would read back as "
                    "the text of its digits, not that number, so the events read back would not "
                    f"be the events written. Make the column text (df[{col!r}] = "
                    f"df[{col!r}].astype(str): the same key) or map the IDs to integers below "
                    "2^63. Nothing was written."
                )
            try:
                str(v).encode("utf-8")
            except UnicodeEncodeError as exc:
                row = s.index[int(np.flatnonzero((s == v).to_numpy())[0])]
                raise DatasetError(
                    f"Entity column {col!r} holds {v!r} ({word} {row}): character {exc.start} is a "
                    "lone surrogate, which UTF-8 cannot encode (row keys are UTF-8 bytes). Fix or "
                    "drop that value. Nothing was written."
                ) from None
        text = pd.Series(
            [str(v) for v in uniq], dtype=object
        )  # a lone surrogate is no Arrow string
        dup = text.duplicated(keep=False).to_numpy()
        if dup.any():
            same = [repr(v) for v in np.asarray(uniq, dtype=object)[dup][:4]]
            raise DatasetError(
                f"Entity column {col!r} holds distinct values that would share one row key: "
                f"{', '.join(same)} all render as {text[dup].iloc[0]!r}. Make the column one type, "
                f"e.g. df[{col!r}] = df[{col!r}].astype(str) (if they are the same entity) or rename them."
            )
