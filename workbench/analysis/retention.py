"""How much of each column family a table keeps: the retention its GC rule implies (G13, G18, G30).

Bigtable keeps a cell until its family's garbage-collection rule makes it garbage: ``max_age``
by the cell's timestamp, ``max_versions`` by the newest cells of each column. So the storage a
design needs after months of writing is not "everything written" but, per family:

* **how long**: the rule's age limit, capped by the planning horizon
  (``Workload.retention_months``); a family with no age limit keeps the whole horizon;
* **how much of it**: the share of the family's cells that survive the versions limit, measured
  on the design's own cells (the newest ``n`` cells of each row/family/qualifier).

A union (garbage when *any* rule says so) takes the tighter of its rules; an intersection
(garbage only when *every* rule says so) keeps a cell that any rule keeps, so a limit counts
only when every rule of the intersection sets it. The versions share is measured on the sample;
a column rewritten far more often in production than in the sample keeps a smaller share.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..schema.families import Family, GcRule, Intersection, MaxAge, MaxVersions, Union_
from ._index import CellIndex
from .load_windows import CHUNK_CELLS, row_slices

SECONDS_PER_DAY = 86_400.0


def limits(rule: GcRule | None) -> tuple[float | None, int | None]:
    """(age limit in seconds, versions limit) a GC rule sets; None where it sets none."""
    if rule is None:
        return None, None
    if isinstance(rule, MaxAge):
        return float(rule.seconds), None
    if isinstance(rule, MaxVersions):
        return None, int(rule.n)
    parts = [limits(r) for r in rule.rules]
    ages = [a for a, _ in parts]
    versions = [v for _, v in parts]
    if isinstance(rule, Union_):  # garbage when any rule says so: the tightest limit counts
        known_a = [a for a in ages if a is not None]
        known_v = [v for v in versions if v is not None]
        return (min(known_a) if known_a else None), (min(known_v) if known_v else None)
    assert isinstance(rule, Intersection)  # kept while any rule keeps it
    age = max(ages) if all(a is not None for a in ages) else None  # type: ignore[type-var]
    ver = max(versions) if all(v is not None for v in versions) else None  # type: ignore[type-var]
    return age, ver


@dataclass(frozen=True)
class FamilyRetention:
    """What one family keeps: its rule, the months of history and the share of cells kept."""

    table: str
    family: str
    rule: str  # as ``cbt setgcpolicy`` writes it; "none" when the family has no rule
    max_age_s: float | None
    max_versions: int | None
    months: float  # history kept on the planning horizon
    versions_share: float  # share of the family's bytes that survive the versions limit
    bytes: int  # the family's bytes in the sample


def retention(
    index: CellIndex,
    families: Mapping[str, Sequence[Family]] | None,
    horizon_months: float,
    *,
    days_per_month: float,
) -> list[FamilyRetention]:
    """Each (table, family) of ``index`` with the history its GC rule keeps on the horizon.

    ``families``: the design's families per table (``Schema.table_families()``); a family
    missing there (or ``families=None``) keeps everything for the whole horizon."""
    out: list[FamilyRetention] = []
    if not index.n_cells:
        return out
    rules: dict[tuple[str, str], Family] = {
        (t, f.name): f for t, fams in (families or {}).items() for f in fams
    }
    nf = len(index.families)
    fam_code = {str(f): i for i, f in enumerate(index.families)}
    limited = {  # (table, family) code -> versions limit, for families that set one
        index.tables.index(t) * nf + fam_code[f]: v
        for (t, f), spec in rules.items()
        if t in index.tables and f in fam_code and (v := limits(spec.gc)[1])
    }
    size = len(index.tables) * nf
    total_b = np.zeros(size, dtype=np.int64)
    count = np.zeros(size, dtype=np.int64)
    kept_b = np.zeros(size, dtype=np.int64)
    # in slices of whole rows (a column's cells never cross one): no per-cell int64 temporary
    # of every cell, which on the 10M-event path cost ~700 MB at once
    for a, b in row_slices(index.row, CHUNK_CELLS):
        row = index.row[a:b]
        pair = index.row_table[row].astype(np.int64) * nf + index.family[a:b]
        nbytes = index.nbytes[a:b]
        count += np.bincount(pair, minlength=size)
        total_b += np.bincount(pair, weights=nbytes, minlength=size).astype(np.int64)
        if not limited:
            continue
        # a column's cells are contiguous, newest first: rank = position within its run
        col = np.empty(b - a, dtype=bool)
        col[0] = True
        col[1:] = (
            (row[1:] != row[:-1])
            | (index.family[a + 1 : b] != index.family[a : b - 1])
            | (index.qualifier[a + 1 : b] != index.qualifier[a : b - 1])
        )
        starts = np.flatnonzero(col)
        rank = np.arange(b - a) - np.repeat(starts, np.diff(np.append(starts, b - a)))
        for c, v in limited.items():
            kept_b[c] += int(nbytes[(pair == c) & (rank < v)].sum())
    for code in np.flatnonzero(count):
        t, f = divmod(int(code), nf)
        table, fam = index.tables[t], str(index.families[f])
        spec = rules.get((table, fam))
        age, versions = limits(spec.gc if spec is not None else None)
        total = int(total_b[code])
        kept = int(kept_b[code]) if versions else total
        months = horizon_months
        if age is not None:
            months = min(horizon_months, age / SECONDS_PER_DAY / days_per_month)
        out.append(
            FamilyRetention(
                table=table,
                family=fam,
                rule=(spec.cbt_gc() or "none") if spec is not None else "none",
                max_age_s=age,
                max_versions=versions,
                months=float(months),
                versions_share=kept / max(total, 1),
                bytes=total,
            )
        )
    return out


__all__ = ["FamilyRetention", "limits", "retention"]
