"""Labels for the key axis: the keys' delimiter, prefix-hierarchy labels and a key range's name.

Pure functions over arrays of keys; the load model (keyspace.py) uses them to name the key
buckets of its pictures and the busiest key range.
"""

from __future__ import annotations

import numpy as np

from ._index import CellIndex

DELIMITERS = ("#", "|", "/", ":", ",", ".", "_", "-")


def key_delimiter(keys: np.ndarray) -> str:
    """The segment delimiter the keys use most (``#`` as in the paper's keys when tied)."""
    sample = "".join(keys[:: max(1, len(keys) // 200)][:200]) if len(keys) else ""
    counts = {d: sample.count(d) for d in DELIMITERS}
    best = max(DELIMITERS, key=lambda d: (counts[d], d == "#"))
    return best if counts[best] else "#"


def common_prefix(a: str, b: str) -> str:
    """The longest common prefix of two strings."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return a[:n]


def prefix_labels(
    first_keys: np.ndarray, *, delimiter: str = "#", max_labels: int = 14, max_chars: int = 28
) -> list[tuple[int, str]]:
    """Label positions (bucket index, text) at boundaries of the key-prefix hierarchy.

    Uses the deepest segment depth whose groups still fit ``max_labels``; when
    even the first segment changes too often (a timestamp first), evenly spaced
    group starts are labelled instead.
    """
    if len(first_keys) == 0:
        return []
    segs = [k.split(delimiter) for k in first_keys]
    best: list[tuple[int, str]] = []
    for depth in (1, 2, 3, 4):
        pref = [delimiter.join(s[:depth]) for s in segs]
        starts = [0] + [i for i in range(1, len(pref)) if pref[i] != pref[i - 1]]
        if len(starts) > max_labels:
            if len(best) < 2:  # too coarse above, too fine here (a timestamp): sample evenly
                pick = np.unique(np.linspace(0, len(starts) - 1, max_labels).round().astype(int))
                best = [(starts[i], pref[starts[i]]) for i in pick]
            break
        best = [(i, pref[i]) for i in starts]
        if all(len(s) <= depth for s in segs):
            break
    out = []
    for pos, text in best or []:
        out.append((pos, text if len(text) <= max_chars else text[: max_chars - 1] + "…"))
    return out


def range_label(index: CellIndex, lo: int, hi: int) -> str:
    """A name for the key range of rows ``lo``..``hi``: the key itself, the common prefix + "…",
    or the two ends when the range spans several top-level prefixes."""
    first, last = index.key(lo), index.key(hi)
    pref = common_prefix(first, last)
    if first == last:
        return first
    if len(pref) >= 4:
        return pref + "…"
    return f"{first[:24]} … {last[:24]}"


def bucket_labels(
    index: CellIndex, first_rows: np.ndarray
) -> tuple[np.ndarray, str, list[tuple[int, str]]]:
    """(each key bucket's first key, the delimiter, the axis labels) for buckets starting at
    ``first_rows``; with several tables each label names its table."""
    first_keys = index.keys(first_rows) if index.n_rows else np.zeros(0, dtype=object)
    delim = key_delimiter(first_keys)
    labels = prefix_labels(first_keys, delimiter=delim)
    if len(index.tables) > 1:
        tb = index.row_table[first_rows]
        labels = [(p, f"{index.tables[tb[p]]}: {t}") for p, t in labels]
    return first_keys, delim, labels
