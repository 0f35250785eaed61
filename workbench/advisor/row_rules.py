"""Advisor rules about rows, cells and families: long names (G01), limits (G10, G19, G20),
unbounded rows (G02, G12), versions without GC (G03, G13), families (G18, G30), counters kept
by hand (G29), a row per device (G24).

The limits and the family count are items of Google's schema checklist (``rule_base.CHECKLIST``:
key < 4 KB, ideally 10–100 bytes; qualifier < 16 KB; < 100 families; cell < 10 MB; row
< 100 MB): each such finding cites its item.

Why one module: these rules all read the design's cells row by row (sizes, versions, families,
qualifiers) through the same few helpers; split, each part would import the others'."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from functools import partial

import numpy as np
import pandas as pd

from ..datasets.workload import Workload
from ..schema import (
    Family,
    NewCells,
    RowKey,
    TimeBucket,
    Wide,
    max_age,
    max_versions,
    union,
)
from ..schema.limits import QUALIFIER_MAX, ROW_KEY_MAX
from ..schema.time_text import LONGEST_US, PRECISIONS, US_PER_S
from ..units import human_bytes
from .context import Context
from .findings import Finding
from .rule_base import (
    NAME_LIKE,
    NEAR,
    carried_columns,
    duration_text,
    lossless_tall,
    make_finding,
    rendered_keys,
    rule,
    tall_at,
)
from .suggest import (
    first_lossless,
    is_time,
    renamed,
    replace_segment,
    short_names,
    with_family_gc,
)

# ----------------------------------------------------------------------------- G01: long names


@rule("long_names", "G01")
def long_names(c: Context) -> Iterable[Finding]:
    if c.cells is None or len(c.cells.frame) == 0:
        return
    f = c.cells.frame
    total = int(c.cell_bytes.sum())
    costs: list[tuple[str, str, int, int]] = []  # kind, name, length, cells
    for fam, n in f["family"].value_counts(sort=False).items():
        costs.append(("family", fam, len(fam.encode()), int(n)))
    raw = f[c.raw_mask]
    for _fam, g in raw.groupby("family", sort=False):
        qc = g["qualifier"].value_counts(sort=False)
        if len(qc) <= NAME_LIKE:
            costs += [("qualifier", q, len(q.encode()), int(n)) for q, n in qc.items()]
    saving = sum((ln - 1) * n for _, _, ln, n in costs)
    names = sum(ln * n for _, _, ln, n in costs)
    share = saving / max(total, 1)
    long = sorted([x for x in costs if x[2] > 4], key=lambda x: -x[2] * x[3])
    if share >= 0.20:
        sev = "warning"
    elif share >= 0.10 and long:
        sev = "info"
    else:
        return
    ev = [
        f"{kind} name {name!r} costs {ln} bytes × {n:,} cells = {human_bytes(ln * n)}"
        for kind, name, ln, n in long[:3]
    ]
    ev.append(
        f"names are {names / max(total, 1):.0%} of the {human_bytes(total)} stored; one-byte names would save "
        f"{human_bytes(saving)} ({share:.0%}) — stored and sent again with every cell"
    )
    shorter = short_names(c.schema, c.ds.measures, carried_columns(c, c.schema.key))
    sugg = (
        renamed(shorter, "short names", "Short family and qualifier names (G01).")
        if shorter != c.schema
        else None
    )
    yield make_finding(
        "long_names",
        sev,
        ("G01",),
        "Long family/qualifier names",
        ev,
        fix="Use short but meaningful names (a letter or two) and document them",
        suggestion=sugg,
        saving_share=share,
        saving_bytes=saving,
    )


# ----------------------------------------------------------------------------- G10 / G19 / G20: limits

IDEAL_KEY_BYTES = (10, 100)  # Google's checklist: row keys ideally 10–100 bytes


def _key_bytes(c: Context) -> tuple[np.ndarray, np.ndarray]:
    """The design's distinct row keys and their lengths in bytes (UTF-8)."""
    keys = pd.unique(c.frame["row_key"])
    return keys, np.fromiter((len(k.encode()) for k in keys), np.int64, len(keys))


@rule("key_size", "G20")
def ideal_key_size(c: Context) -> Iterable[Finding]:
    """Keys outside the checklist's ideal 10–100 bytes (a note; ``limits`` speaks for the 4 KiB
    limit and keys over half of it)."""
    if c.cells is None or not len(c.frame):
        return
    keys, size = _key_bytes(c)
    lo, hi = IDEAL_KEY_BYTES
    longest, shortest = int(size.max()), int(size.min())
    if hi < longest < NEAR * ROW_KEY_MAX:  # nearer the limit the warning below speaks
        over = int((size > hi).sum())
        yield make_finding(
            "key_size",
            "info",
            ("G20",),
            f"Row keys longer than the ideal {hi} bytes",
            [
                f"{over:,} of {len(keys):,} row keys are over {hi} bytes (median "
                f"{int(np.median(size))}, longest {longest}): {keys[int(size.argmax())]!r}",
                "every cell stores its row key again, and keys are held in memory by the "
                "tablet index: longer keys cost memory and disk",
            ],
            fix="Shorten segments (short IDs, coarser or binary-free time text) while keeping "
            "them readable (G20, G22)",
            checklist="key_size",
            row_key=str(keys[int(size.argmax())]),
            longest_key_bytes=longest,
            keys_over_ideal=over,
        )
    if shortest < lo:
        under = int((size < lo).sum())
        yield make_finding(
            "key_size",
            "info",
            ("G20",),
            f"Row keys shorter than the ideal {lo} bytes",
            [
                f"{under:,} of {len(keys):,} row keys are under {lo} bytes (shortest "
                f"{shortest}): {keys[int(size.argmin())]!r}",
                "so short a key usually means few rows for much data: check that the key "
                "still separates what the queries read (G04, G20)",
            ],
            checklist="key_size",
            row_key=str(keys[int(size.argmin())]),
            shortest_key_bytes=shortest,
            keys_under_ideal=under,
        )


@rule("limits", "G10", "G19", "G20")
def limits(c: Context) -> Iterable[Finding]:
    if c.limit_error is not None:
        msg = str(c.limit_error)
        m = re.search(r"\((G\d\d)\)", msg)
        g = m.group(1) if m else "G10"
        what = (
            {"G20": "Row key", "G19": "Qualifier", "G10": "Row or cell"}[g]
            if g in ("G10", "G19", "G20")
            else "Limit"
        )
        item = {"G20": "key_size", "G19": "qualifier"}.get(g)
        if g == "G10":
            item = "cell" if "cell" in msg.lower() else "row"
        yield make_finding(
            "limits",
            "error",
            (g,),
            f"{what} over a Cloud Bigtable hard limit",
            [msg, "the emulator would accept it; Cloud Bigtable rejects the write"],
            fix="Shorten keys/qualifiers or bound rows and cells before going to production",
            checklist=item,
        )
        return
    a = c.analysis
    if a is None:
        return
    rs, st = a.rowsizes, c.settings
    if rs.max_key_bytes >= NEAR * ROW_KEY_MAX:
        longest = max((k for k in c.example_keys(c.schema.table, 10**9)), key=len)
        yield make_finding(
            "limits",
            "warning",
            ("G20",),
            "Row keys near the 4 KiB limit",
            [
                f"the longest key is {rs.max_key_bytes:,} bytes ({rs.max_key_bytes / ROW_KEY_MAX:.0%} of "
                f"{ROW_KEY_MAX:,}): {longest[:60]!r}…",
                "keys are stored with every cell and read on every lookup",
            ],
            fix="Keep keys short: drop or shorten segments (G20)",
            checklist="key_size",
            row_key=longest,
            max_key_bytes=rs.max_key_bytes,
        )
    if rs.max_qualifier_bytes >= NEAR * QUALIFIER_MAX:
        yield make_finding(
            "limits",
            "warning",
            ("G19",),
            "Qualifiers near the 16 KiB limit",
            [
                f"the longest qualifier is {rs.max_qualifier_bytes:,} bytes "
                f"({rs.max_qualifier_bytes / QUALIFIER_MAX:.0%} of {QUALIFIER_MAX:,})"
            ],
            fix="Keep qualifiers short; put large data in the value (G19)",
            checklist="qualifier",
            max_qualifier_bytes=rs.max_qualifier_bytes,
        )
    if rs.max_cell_bytes > st.cell_advisory_bytes:
        yield make_finding(
            "limits",
            "warning",
            ("G10",),
            f"Cells over the {human_bytes(st.cell_advisory_bytes)} advice",
            [
                f"the largest cell is {human_bytes(rs.max_cell_bytes)} (advice {human_bytes(st.cell_advisory_bytes)}, "
                f"hard limit {human_bytes(st.cell_hard_bytes)})"
            ]
            + [str(x) for x in c.limit_findings if "cell" in x.message][:2],
            fix="Split large values or store them elsewhere and keep a reference",
            checklist="cell",
            max_cell_bytes=rs.max_cell_bytes,
        )
    if rs.max_bytes > st.row_advisory_bytes:
        over = int((rs.bytes > st.row_advisory_bytes).sum())
        yield make_finding(
            "limits",
            "warning",
            ("G10", "G02"),
            f"Rows over the {human_bytes(st.row_advisory_bytes)} advice",
            [
                f"{over:,} rows are over {human_bytes(st.row_advisory_bytes)}; the largest, {rs.largest_row!r}, "
                f"holds {human_bytes(rs.max_bytes)} (hard limit {human_bytes(st.row_hard_bytes)})"
            ],
            fix="Bound rows with a narrower time bucket in the key, or use tall rows (G02)",
            checklist="row",
            row_key=rs.largest_row,
            max_row_bytes=rs.max_bytes,
        )


# ----------------------------------------------------------------------------- G02 / G12: unbounded rows


def _bucket_seconds(key: RowKey) -> float | None:
    widths = [s.bucket_us(longest=True) / 1e6 or 1.0 for s in key.time_segments]
    return max(widths) if widths else None


@rule("unbounded_rows", "G02", "G12")
def unbounded_rows(c: Context) -> Iterable[Finding]:
    a = c.analysis
    if a is None:
        return
    rs, st = a.rowsizes, c.settings
    key = c.schema.key
    lay = c.schema.layout
    if not key.time_segments:
        if len(c.ds) <= c.ds.n_entities():
            return
        sev = "error" if rs.projected_max_bytes > st.row_hard_bytes else "warning"
        rate = rs.max_bytes / max(rs.data_span_s, 1e-6)  # bytes per second into the busiest row
        bucket = next(
            (
                b
                for b in ("month", "week", "day", "hour")
                if rate * (LONGEST_US[b] // US_PER_S) <= 10e6
            ),
            "hour",
        )
        sugg = None
        if lay.multi_event or lay.versioned:
            nk = RowKey((*key.segments, TimeBucket(bucket)), key.delimiter)
            sugg = renamed(
                replace(c.schema, key=nk),
                f"{bucket} buckets",
                f"Rows bounded by a {bucket} bucket in the key: {nk.template()} (G02, G12, G13).",
            )
        ev = [
            f"the row key {key.template()!r} has no time: {rs.n_rows:,} rows take every event and never close",
            f"the largest row holds {human_bytes(rs.max_bytes)} ({int(rs.cells.max()):,} cells) after "
            f"{duration_text(rs.data_span_s)} of data and would reach {human_bytes(rs.projected_max_bytes)} after "
            f"{rs.retention_months:g} months (advice {human_bytes(st.row_advisory_bytes)}, hard limit "
            f"{human_bytes(st.row_hard_bytes)})",
        ]
        yield make_finding(
            "unbounded_rows",
            sev,
            ("G02", "G12", "G10"),
            "Rows grow without bound",
            ev,
            fix=f"Bound each row with a time bucket in the key (e.g. {bucket}) or write a row per reading",
            checklist="row",
            suggestion=sugg,
            row_key=rs.largest_row,
            projected_max_bytes=rs.projected_max_bytes,
        )
        return
    if not lay.multi_event:
        return
    bucket_s = _bucket_seconds(key) or 0.0
    # the row-size projection already runs each filling row to its key's time bound (G16)
    est = rs.projected_max_bytes
    if est <= st.row_advisory_bytes:
        return
    sugg = None
    idx = next((j for j, s in enumerate(key.segments) if s.bucket_choice() in PRECISIONS), None)
    if idx is not None:
        p = str(key.segments[idx].bucket_choice())
        finer = (
            PRECISIONS[PRECISIONS.index(p) + 1]
            if PRECISIONS.index(p) + 1 < len(PRECISIONS)
            else None
        )
        if finer in ("week", "day", "hour"):
            nk = replace_segment(key, idx, TimeBucket(finer))
            sugg = renamed(
                replace(c.schema, key=nk), f"{finer} buckets", f"Narrower {finer} buckets (G02)."
            )
    yield make_finding(
        "unbounded_rows",
        "warning",
        ("G02", "G10"),
        "Time buckets too wide for the data rate",
        [
            f"rows fill at {human_bytes(rs.max_bytes / max(rs.data_span_s, 1e-6))}/s; a full {duration_text(bucket_s)} bucket "
            f"would hold about {human_bytes(est)} (advice {human_bytes(st.row_advisory_bytes)})"
        ],
        fix="Use a narrower bucket",
        checklist="row",
        suggestion=sugg,
        estimated_row_bytes=est,
    )


# ----------------------------------------------------------------------------- G03 / G13: versions without GC


@rule("versions_without_gc", "G13", "G03")
def versions_without_gc(c: Context) -> Iterable[Finding]:
    lay = c.schema.layout
    if not isinstance(lay, NewCells) or lay.family.gc is not None or c.cells is None:
        return
    f = c.cells.frame
    f = f[(f["family"] == lay.family.name).to_numpy() & c.raw_mask]
    if not len(f):
        return
    per_col = f.groupby(["table", "row_key", "family", "qualifier"], sort=False).size()
    if per_col.max() <= 1:
        return
    (_table, rk, fam, q), mx = per_col.idxmax(), int(per_col.max())
    days = int(round((c.workload or Workload()).retention_months * 30))
    sugg = renamed(
        with_family_gc(c.schema, fam, max_age(f"{days}D")),
        f"maxage={days}d",
        f"Family {fam} keeps {days} days of versions (G13).",
    )
    yield make_finding(
        "versions_without_gc",
        "warning",
        ("G13", "G03"),
        f"Versions pile up: family {fam!r} has no GC rule",
        [
            f"column {fam}:{q} of row {rk!r} holds {mx:,} versions (mean {per_col.mean():,.1f} per column); "
            "without a GC rule every version is kept forever"
        ],
        fix=f"Give family {fam} a GC rule (maxage for time series, maxversions for amended values), or "
        "write new rows instead of versions (G03)",
        suggestion=sugg,
        row_key=rk,
        max_versions=mx,
    )


# ----------------------------------------------------------------------------- G18 / G30: families

MAX_FAMILIES = 100  # Google's checklist: "Limit to < 100 families"


@rule("families", "G18", "G30")
def families(c: Context) -> Iterable[Finding]:
    for tname, fams in c.table_families.items():
        if len(fams) >= MAX_FAMILIES:
            sugg = None
            if isinstance(c.schema.layout, Wide):
                key = c.schema.key
                segs = tuple(s for s in key.segments if not is_time(s))
                sugg = first_lossless(
                    [
                        partial(tall_at, c.schema, segs, key.delimiter, p)
                        for p in ("minute", "second", "ms", "us")
                    ],
                    c.ds,
                )
                if sugg is not None:
                    sugg = renamed(
                        sugg,
                        "one family",
                        "Related columns grouped in one family, a row per reading (G18).",
                    )
            yield make_finding(
                "families",
                "warning",
                ("G18",),
                f"{len(fams)} column families in table {tname!r}",
                [
                    f"table {tname!r} has {len(fams)} families ({', '.join(f.name for f in fams[:5])}, …); "
                    f"Google's checklist keeps a table under {MAX_FAMILIES}, and each family is "
                    "read and garbage-collected separately"
                ],
                fix="Group related columns in one family; split families only by retention (GC) or access tier",
                checklist="families",
                suggestion=sugg,
                table=tname,
                n_families=len(fams),
            )
    agg = c.schema.aggregates
    if agg is None:
        return
    raw = {f.name: f for f in c.schema.layout.families(tuple(c.ds.measures))}
    if agg.family.name in raw:
        shared = raw[agg.family.name]
        n_agg = int((~c.raw_mask).sum()) if c.cells is not None else 0
        n_raw = int(c.raw_mask.sum()) if c.cells is not None else 0
        used = set(raw) | {f.name for fams in c.table_families.values() for f in fams}
        name = next(n for n in ("s", "agg", "stats", "s2") if n not in used)
        sugg = renamed(
            replace(
                c.schema,
                aggregates=replace(
                    agg, family=Family(name, gc=union(max_age("730D"), max_versions(1)))
                ),
            ),
            f"aggregates in family {name}",
            f"Aggregates in their own family {name} (G30).",
        )
        yield make_finding(
            "families",
            "error",
            ("G30", "G18"),
            f"Raw readings and aggregates share family {shared.name!r}",
            [
                f"{n_raw:,} raw cells and {n_agg:,} pre-aggregated cells live in family {shared.name!r}: one GC "
                f"rule ({shared.cbt_gc() or 'none'}) decides both retentions — the aggregate's own rule "
                f"({agg.family.cbt_gc() or 'none'}) is ignored"
            ],
            fix="Give the aggregates their own family with their own GC rule (raw / stats tiers, G30)",
            suggestion=sugg,
        )


# ----------------------------------------------------------------------------- G29: counters

COUNTABLE = {"count": "sum", "sum": "sum", "min": "min", "max": "max"}  # stat → aggregate type


@rule("counters", "G29")
def counters(c: Context) -> Iterable[Finding]:
    """Summary rows whose counts, sums, minima or maxima the client computes and writes as plain
    cells: kept up to date as events arrive, each is a read-modify-write; an aggregate family
    (``AddToCell``) lets Bigtable keep them (Google's skill: "Counters for real-time metrics")."""
    agg = c.schema.aggregates
    if agg is None or agg.family.aggregate is not None:
        return
    stats = [s for s in agg.stats if s in COUNTABLE]
    if not stats:
        return
    n_rows = 0
    if c.cells is not None:
        lead = agg.lead(c.schema.key.delimiter) + c.schema.key.delimiter
        n_rows = int(
            pd.Series(pd.unique(c.frame["row_key"]), dtype=object).str.startswith(lead).sum()
        )
    kinds = ", ".join(f"{s} → {COUNTABLE[s]}" for s in stats)
    ents = ", ".join(c.ds.entity)
    yield make_finding(
        "counters",
        "info",
        ("G29",),
        f"The {agg.name} {', '.join(stats)} can be counters in an aggregate family",
        [
            f"{n_rows:,} {agg.name} rows hold {', '.join(stats)} as plain cells in family "
            f"{agg.family.name!r}: written by the client after the fact, or a read-modify-write "
            "per event to keep them current",
            f"an int64 aggregate family keeps each as events arrive ({kinds}; AddToCell, no "
            "read; mean = sum ÷ count)",
        ],
        fix=f"Count with wb.Counters(entity=({ents!r},), bucket={agg.bucket!r}) in a family "
        "with aggregate='sum' (min/max families for extremes), or a CMV rollup (G29)",
        checklist="counters",
        stats=tuple(stats),
    )


# ----------------------------------------------------------------------------- G24: one row per device


@rule("row_per_device", "G24", "G03")
def row_per_device(c: Context) -> Iterable[Finding]:
    key = c.schema.key
    if key.time_segments or len(c.ds) <= c.ds.n_entities():
        return
    keys = pd.Series(rendered_keys(key, c.ds), dtype=object)
    per_row = keys.value_counts()
    nk_sugg = lossless_tall(c, key)
    sugg = (
        renamed(
            nk_sugg, "row per reading", f"A new row per reading: {nk_sugg.key.template()} (G24)."
        )
        if nk_sugg
        else None
    )
    yield make_finding(
        "row_per_device",
        "warning",
        ("G24", "G03"),
        "One row updated for every reading",
        [
            f"{len(c.ds):,} readings go to {len(per_row):,} rows ({key.template()!r}): {per_row.mean():,.0f} "
            f"writes per row on average, {int(per_row.max()):,} to {per_row.index[0]!r}",
            "every write rewrites the same row: one tablet serves each device's whole history, and "
            "old readings are only reachable as versions",
        ],
        fix="Write a new row per reading: add the time to the key (entity first, then time)",
        suggestion=sugg,
        row_key=str(per_row.index[0]),
        writes_per_row=float(per_row.mean()),
    )
