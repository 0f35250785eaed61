"""The advisor's rules: one small function per guideline family, registered in ``RULES``.

A rule reads the :class:`~workbench.advisor.context.Context` (the design's cells,
their loss report and the analysis of them) and returns findings whose
evidence is *measured* on the user's data: hotspot shares from
``workbench.analysis.keyspace``, row sizes from ``analysis.rowsizes``, rows seen
vs returned from ``analysis.querycost``, limits and collisions from
``workbench.schema.limits``. A suggestion is a better schema built with the
schema engine (``suggest.py``); the tests apply each one and check that the
finding it answers goes away.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ..schema import (
    Family,
    Field,
    Hashed,
    Int,
    NewCells,
    PaddedInt,
    ReversedId,
    ReversedTimestamp,
    RowKey,
    Salt,
    Schema,
    Table,
    Tags,
    TimeBucket,
    Timestamp,
    Wide,
    max_age,
    max_versions,
    union,
)
from ..schema.codecs import time_us
from ..schema.keys import BaseTimestamp, RenderContext
from ..schema.limits import QUALIFIER_MAX, ROW_KEY_MAX
from .context import Context
from .findings import Finding
from .suggest import (
    at_precision,
    finer_precisions,
    first_lossless,
    is_time,
    key_of,
    lead_index,
    promote,
    renamed,
    replace_segment,
    sequential_ints,
    short_names,
    tall_layout,
    with_family_gc,
    with_key,
    without_salt,
)

NEAR = 0.5  # "near a hard limit": half of it (G19, G20)
_NAME_LIKE = 64  # more distinct qualifiers than this carry data (G12, G19), not names (G01)
_BUCKET_S = {
    "month": 31 * 86400,
    "week": 7 * 86400,
    "day": 86400,
    "hour": 3600,
    "minute": 60,
    "second": 1,
    "ms": 1e-3,
    "us": 1e-6,
}


@dataclass(frozen=True)
class Rule:
    name: str
    guidelines: tuple[str, ...]
    fn: Callable[[Context], Iterable[Finding]]

    def __call__(self, c: Context) -> list[Finding]:
        return list(self.fn(c) or ())


RULES: list[Rule] = []


def rule(name: str, *guidelines: str):
    def deco(fn: Callable[[Context], Iterable[Finding]]) -> Callable[[Context], Iterable[Finding]]:
        RULES.append(Rule(name, guidelines, fn))
        return fn

    return deco


def _finding(
    rule_name: str,
    severity: str,
    ids: tuple[str, ...],
    title: str,
    evidence: Iterable[str],
    fix: str = "",
    suggestion: Schema | None = None,
    table: str = "main",
    row_key: str | None = None,
    **data: Any,
) -> Finding:
    ev = tuple(e for e in evidence if e)
    return Finding(
        guideline=ids[0],
        message=ev[0] if ev else title,
        row_key=row_key,
        table=table,
        severity=severity,
        title=title,
        evidence=ev,
        fix=fix,
        suggestion=suggestion,
        rule=rule_name,
        guidelines=ids,
        data=data,
    )


# ----------------------------------------------------------------------------- helpers


def _fmt_bytes(n: float) -> str:
    for unit, f in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(n) >= f:
            return f"{n / f:,.1f} {unit}"
    return f"{n:,.0f} bytes"


def _dur(seconds: float) -> str:
    for unit, f in (("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= f:
            return f"{seconds / f:,.1f} {unit}"
    return f"{seconds:,.1f} s"


def _render(
    key: RowKey, ds: Any, overrides: dict[str, list] | None = None, rows: int | None = None
) -> np.ndarray:
    """Row keys of the dataset's events (or of its first event with columns overridden), rendered by the key."""
    f = ds.frame.reset_index(drop=True)
    if overrides:
        n = len(next(iter(overrides.values())))
        f = f.iloc[[0] * n].reset_index(drop=True).copy()
        for col, vals in overrides.items():
            f[col] = pd.Series(vals, dtype=ds.frame[col].dtype)
    elif rows is not None:
        f = f.head(rows)
    ctx = RenderContext({c: f[c] for c in f.columns}, time_us(f[ds.time]))
    ctx.metric = ds.measures[0] if key.metric is not None else None
    return key.render(ctx)


def _ds_key(c: Context, table: str) -> RowKey:
    return key_of(c.schema, table)


def _carried(c: Context, key: RowKey) -> list[str]:
    rec = set(key.recovers())
    return [x for x in (*c.ds.entity, *c.ds.attributes) if x not in rec]


def _precision_name(seg: Any) -> str:
    return getattr(seg, "precision", "?")


def _lossless_tall(c: Context, key: RowKey) -> Schema | None:
    """A new row per reading: the key plus a time segment at the coarsest precision that loses nothing."""
    lay = tall_layout(c.schema.layout)
    cands = [
        lambda p=p: replace(
            c.schema, key=RowKey((*key.segments, Timestamp(p)), key.delimiter), layout=lay
        )
        for p in ("minute", "second", "ms", "us")
    ]
    return first_lossless(cands, c.ds)


# ----------------------------------------------------------------------------- G06 / G09: time first


@rule("time_first", "G06", "G09")
def time_first(c: Context) -> Iterable[Finding]:
    for tname, key in c.tables:
        i = lead_index(key)
        if i is None or not is_time(key.segments[i]):
            continue
        seg = key.segments[i]
        rev = seg.time_order < 0
        ev = [
            f"the row key {('of table ' + repr(tname) + ' ') if tname != c.schema.table else ''}starts with "
            f"{'a reversed timestamp' if rev else 'the time'}: e.g. {', '.join(repr(k) for k in c.example_keys(tname))}"
        ]
        data: dict[str, Any] = {}
        a = c.analysis
        if a is not None and a.keyspace.n_writes:
            kd = a.keyspace
            win = (
                (kd.window_edges_us[1] - kd.window_edges_us[0]) / 1e6
                if len(kd.window_edges_us) > 1
                else 0
            )
            ev.append(
                f"the busiest of {kd.nodes} nodes takes {kd.mean_share:.0%} of the writes in each {_dur(win)} "
                f"window vs a fair {kd.fair_share:.0%} (hotspot factor {kd.hotspot_factor:.1f}×)"
            )
            br = kd.busiest_range
            if br:
                ev.append(
                    f"{br['window_share']:.0%} of the busiest window's writes land on one tablet "
                    f"(keys {br['name']!r})"
                )
            data.update(
                busiest_share=kd.mean_share,
                fair_share=kd.fair_share,
                hotspot_factor=kd.hotspot_factor,
            )
        sugg = with_key(c.schema, tname, promote(key, c.ds))
        new_key = key_of(sugg, tname)
        sugg = renamed(sugg, "entity first", f"Field promotion: {new_key.template()} (G07, G06).")
        ids = ("G09", "G06") if rev else ("G06", "G07")
        yield _finding(
            "time_first",
            "error",
            ids,
            "Reversed timestamp first in the row key"
            if rev
            else "Timestamp first in the row key: write hotspot",
            ev,
            fix=f"Put the entity first and the time after it: {new_key.template()} (field promotion, G07)"
            + (
                "; reversed timestamps belong after the entity, for latest-N reads (G09)"
                if rev
                else ""
            ),
            suggestion=sugg,
            table=tname,
            **data,
        )


# ----------------------------------------------------------------------------- G23: sequential IDs


def _int_values(c: Context, seg: Any) -> np.ndarray | None:
    col = getattr(seg, "column", None)
    if col is None or col not in c.ds.frame:
        return None
    s = c.ds.frame[col]
    if isinstance(seg, (Int, PaddedInt)) or (type(seg) is Field and s.dtype.kind in "iu"):
        return s.to_numpy(dtype=np.int64) if s.dtype.kind in "iu" else None
    if type(seg) is Field:
        u = pd.unique(s.astype(object))
        if len(u) and all(isinstance(x, str) and x.isdigit() for x in u):
            return np.asarray([int(x) for x in u], dtype=np.int64)
    return None


@rule("sequential_id", "G23")
def sequential_id(c: Context) -> Iterable[Finding]:
    for tname, key in c.tables:
        i = lead_index(key)
        if i is None:
            continue
        seg = key.segments[i]
        vals = _int_values(c, seg)
        if vals is None or not sequential_ints(vals):
            continue
        u = np.unique(vals)
        k = min(10, len(u))
        newest = u[-k:]
        width = getattr(seg, "width", 0) if isinstance(seg, PaddedInt) else 0
        as_key = [str(v).zfill(width) for v in newest]
        rev = [str(v)[::-1] for v in newest]
        shared = 0
        while shared < min(len(x) for x in as_key) and len({x[shared] for x in as_key}) == 1:
            shared += 1
        firsts_now, firsts_rev = len({x[0] for x in as_key}), len({x[0] for x in rev})
        ev = [
            f"{seg.column} holds {len(u):,} consecutive IDs {u[0]}–{u[-1]} ({len(u):,} of {u[-1] - u[0] + 1:,} values "
            "used), so every new ID is the highest and sorts at the end of the key space",
            f"the {k} newest IDs share the key prefix {as_key[0][:shared]!r} ({firsts_now} distinct first "
            f"character{'s' if firsts_now != 1 else ''}): one tablet takes all their writes; reversed they start "
            f"with {firsts_rev} different characters",
        ]
        sugg = None
        col = c.ds.frame[seg.column]
        if col.dtype.kind in "iu":
            nk = replace_segment(key, i, ReversedId(seg.column))
            sugg = renamed(
                with_key(c.schema, tname, nk),
                "reversed IDs",
                f"Reversed sequential IDs: {nk.template()} (G23).",
            )
        yield _finding(
            "sequential_id",
            "warning",
            ("G23", "G06"),
            "Sequential numeric IDs lead the row key",
            ev,
            fix=f"Reverse the ID ({seg.column} 100042 → 240001) so new IDs spread over the key space",
            suggestion=sugg,
            table=tname,
            distinct_first_chars=firsts_now,
            distinct_first_chars_reversed=firsts_rev,
        )


# ----------------------------------------------------------------------------- G26: personal data

_EMAIL = re.compile(r"^[A-Za-z0-9._%+'-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$")
_PHONE = re.compile(r"^\+?[0-9(][0-9 ().-]{5,20}[0-9]$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
_IPV4 = re.compile(r"^\d{1,3}(\.\d{1,3}){3}$")


def pii_kind(value: Any) -> str | None:
    """``"e-mail address"``, ``"phone number"`` or None for one value."""
    if not isinstance(value, str):
        return None
    v = value.strip()
    if _EMAIL.match(v):
        return "e-mail address"
    if _PHONE.match(v) and not _DATE.match(v) and not _IPV4.match(v):
        nd = sum(ch.isdigit() for ch in v)
        if 7 <= nd <= 15 and (v.startswith(("+", "0", "(")) or any(ch in v for ch in " ()-")):
            return "phone number"
    return None


def _mask(v: str) -> str:
    if "@" in v:
        user, _, dom = v.partition("@")
        return user[:1] + "•••@" + dom
    return v[:3] + "".join("•" if ch.isdigit() else ch for ch in v[3:-2]) + v[-2:]


def _pii_columns(c: Context, key: RowKey) -> dict[str, tuple[str, int, int, str]]:
    """Key columns whose values look like personal data: column → (kind, hits, distinct, example)."""
    out = {}
    for seg in key.segments:
        if isinstance(seg, Hashed):
            continue
        for col in seg.sources():
            if col not in c.ds.frame or c.ds.frame[col].dtype.kind in "iufb":
                continue
            u = pd.unique(c.ds.frame[col].astype(object))[:5000]
            kinds = [pii_kind(x) for x in u]
            hits = [k for k in kinds if k]
            if hits and len(hits) >= max(1, 0.3 * len(u)):
                kind = max(set(hits), key=hits.count)
                ex = next(x for x, k in zip(u, kinds) if k == kind)
                out[col] = (kind, len(hits), len(u), ex)
    return out


@rule("personal_data", "G26")
def personal_data(c: Context) -> Iterable[Finding]:
    for tname, key in c.tables:
        cols = _pii_columns(c, key)
        for col, (kind, hits, n, ex) in cols.items():
            in_tags = any(isinstance(s, Tags) and col in s.columns for s in key.segments)
            sugg = None
            if not in_tags:
                idx = [j for j, s in enumerate(key.segments) if getattr(s, "column", None) == col]
                nk = key
                for j in idx:
                    nk = replace_segment(nk, j, Hashed(col, 16))
                sugg = renamed(
                    with_key(c.schema, tname, nk),
                    f"{col} pseudonymised",
                    f"{col} replaced by a 16-hex-digit hash in the key (G26); the value rides in a cell.",
                )
            keyex = _render(key, c.ds, {col: [ex]})[0]
            yield _finding(
                "personal_data",
                "warning",
                ("G26",),
                f"Personal data in the row key ({col})",
                [
                    f"{hits:,} of {n:,} distinct {col} values look like {kind}s, e.g. {_mask(ex)!r}",
                    f"row keys carry them in clear text: {keyex.replace(ex, _mask(ex))!r} — keys appear in "
                    "logs, Key Visualizer and split points, and cannot be deleted selectively",
                ],
                fix=f"Key by an opaque ID (or a hash of {col}) and keep the {kind} in a cell or another system",
                suggestion=sugg,
                table=tname,
                column=col,
                kind=kind,
                hits=hits,
            )
    names = {f.name for fams in c.table_families.values() for f in fams}
    for name in sorted(names):
        if pii_kind(name):
            yield _finding(
                "personal_data",
                "warning",
                ("G26",),
                "Personal data in a family name",
                [f"family {_mask(name)!r} looks like a {pii_kind(name)}"],
                fix="Name families by content",
            )


# ----------------------------------------------------------------------------- G22: hashed / raw bytes

_HEX = re.compile(r"^[0-9a-fA-F]{16,}$")


@rule("hashed_key", "G22")
def hashed_key(c: Context) -> Iterable[Finding]:
    pii = {}
    for tname, key in c.tables:
        pii.update(
            {
                col: v
                for col, v in _pii_columns(
                    c,
                    RowKey(
                        tuple(
                            Field(s.column) if isinstance(s, Hashed) else s for s in key.segments
                        ),
                        key.delimiter,
                    ),
                ).items()
            }
        )
        for i, seg in enumerate(key.segments):
            if isinstance(seg, Hashed):
                ex = _render(key, c.ds, rows=1)[0]
                readable = _render(replace_segment(key, i, Field(seg.column)), c.ds, rows=1)[0]
                ev = [
                    f"key {ex!r} instead of the readable {readable!r}: the {seg.column} cannot be read from the key "
                    f"and related {seg.column} values no longer sort together"
                ]
                lay = c.schema.layout
                if c.cells is not None and hasattr(lay, "qname"):
                    f = c.cells.frame
                    m = (
                        (f["family"] == lay.family.name) & (f["qualifier"] == lay.qname(seg.column))
                    ).to_numpy()
                    if m.any():
                        ev.append(
                            f"{seg.column} rides along as a cell: {int(m.sum()):,} extra cells, "
                            f"{_fmt_bytes(int(c.cell_bytes[m].sum()))}"
                        )
                if seg.column in pii:
                    yield _finding(
                        "hashed_key",
                        "info",
                        ("G22", "G26"),
                        f"Hashed {seg.column} in the key (deliberate: it holds personal data)",
                        ev[:1],
                        table=tname,
                    )
                    continue
                nk = replace_segment(key, i, Field(seg.column))
                sugg = renamed(
                    with_key(c.schema, tname, nk),
                    f"readable {seg.column}",
                    f"Readable key segments: {nk.template()} (G22).",
                )
                yield _finding(
                    "hashed_key",
                    "warning",
                    ("G22",),
                    f"Hashed {seg.column} in the row key",
                    ev,
                    fix=f"Use {seg.column} itself (human-readable, G22); spread writes by field promotion instead",
                    suggestion=sugg,
                    table=tname,
                )
            elif (
                type(seg) is Field
                and seg.column in c.ds.frame
                and c.ds.frame[seg.column].dtype.kind not in "iufb"
            ):
                u = pd.unique(c.ds.frame[seg.column].astype(object))[:2000]
                raw = [x for x in u if isinstance(x, str) and any(not ch.isprintable() for ch in x)]
                hexy = [x for x in u if isinstance(x, str) and _HEX.match(x)]
                if raw or (len(u) and len(hexy) == len(u)):
                    what = (
                        "raw bytes (non-printable characters)" if raw else "hash-like hex strings"
                    )
                    yield _finding(
                        "hashed_key",
                        "warning",
                        ("G22",),
                        f"{seg.column} in the key holds {what}",
                        [
                            f"{len(raw or hexy):,} of {len(u):,} distinct {seg.column} values are {what}, "
                            f"e.g. {(raw or hexy)[0]!r}"
                        ],
                        fix="Use readable identifiers in keys (G22)",
                        table=tname,
                    )


# ----------------------------------------------------------------------------- G21: unpadded numbers


def _natural(v: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", v))


def _inversion(values: list) -> tuple[Any, Any] | None:
    """Two values whose key text sorts against their numeric order (a sorts first as text, a > b)."""
    if not values:
        return None
    if isinstance(values[0], (int, np.integer)):
        txt = sorted(values, key=str)
        for a, b in zip(txt, txt[1:]):
            if a > b:
                return a, b
        return None
    txt = sorted(values)
    for a, b in zip(txt, txt[1:]):
        if _natural(a) > _natural(b):
            return a, b
    return None


_NUMBERED = re.compile(r"^([^\d]*)(\d+)$")


@rule("unpadded_number", "G21")
def unpadded_number(c: Context) -> Iterable[Finding]:
    for tname, key in c.tables:
        for i, seg in enumerate(key.segments):
            col = getattr(seg, "column", None)
            if (
                col is None
                or col not in c.ds.frame
                or isinstance(seg, (PaddedInt, Hashed, ReversedId))
            ):
                continue
            s = c.ds.frame[col]
            if isinstance(seg, Int) or (type(seg) is Field and s.dtype.kind in "iu"):
                vals = [int(v) for v in np.unique(s.to_numpy(dtype=np.int64))]
                pair = _inversion(vals)
                in_data = pair is not None
                if (
                    pair is None
                ):  # same width today: the first ID with one more digit breaks the order
                    hyp = 10 ** len(str(max(vals)))
                    partner = next((v for v in (max(vals), min(vals)) if str(hyp) < str(v)), None)
                    if partner is None:
                        continue
                    pair = (hyp, partner)
                width = max(10, len(str(max(vals))))
                nk = replace_segment(key, i, PaddedInt(col, width))
                sugg = renamed(
                    with_key(c.schema, tname, nk),
                    f"{col} zero-padded",
                    f"{col} zero-padded to {width} digits so keys sort numerically (G21).",
                )
            elif type(seg) is Field:
                u = [x for x in pd.unique(s.astype(object)) if isinstance(x, str)]
                ms = [_NUMBERED.match(x) for x in u]
                if not u or not all(ms) or len({m.group(1) for m in ms}) > 3:
                    continue
                pair = _inversion(u)
                if pair is None:
                    continue
                in_data, sugg = True, None
            else:
                continue
            a, b = pair
            ka, kb = _render(key, c.ds, {col: [a, b]})
            ev = [
                f"row key {ka!r} sorts before {kb!r} although {col} {a} > {b}: range scans over {col} return "
                "the wrong rows"
                + (
                    ""
                    if in_data
                    else f" (every {col} in this data has the same width today; "
                    f"the first with {len(str(a))} digits breaks the order)"
                )
            ]
            yield _finding(
                "unpadded_number",
                "warning",
                ("G21",),
                f"Unpadded number {col} in the row key",
                ev,
                fix=f"Zero-pad {col} to a fixed width so text order equals numeric order",
                suggestion=sugg,
                table=tname,
                in_data=in_data,
                pair=(a, b),
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
    for fam, g in raw.groupby("family", sort=False):
        qc = g["qualifier"].value_counts(sort=False)
        if len(qc) <= _NAME_LIKE:
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
        f"{kind} name {name!r} costs {ln} bytes × {n:,} cells = {_fmt_bytes(ln * n)}"
        for kind, name, ln, n in long[:3]
    ]
    ev.append(
        f"names are {names / max(total, 1):.0%} of the {_fmt_bytes(total)} stored; one-byte names would save "
        f"{_fmt_bytes(saving)} ({share:.0%}) — stored and sent again with every cell"
    )
    sugg = short_names(c.schema, c.ds.measures, _carried(c, c.schema.key))
    sugg = (
        renamed(sugg, "short names", "Short family and qualifier names (G01).")
        if sugg != c.schema
        else None
    )
    yield _finding(
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
        yield _finding(
            "limits",
            "error",
            (g,),
            f"{what} over a Cloud Bigtable hard limit",
            [msg, "the emulator would accept it; Cloud Bigtable rejects the write"],
            fix="Shorten keys/qualifiers or bound rows and cells before going to production",
        )
        return
    a = c.analysis
    if a is None:
        return
    rs, st = a.rowsizes, c.settings
    if rs.max_key_bytes >= NEAR * ROW_KEY_MAX:
        longest = max((k for k in c.example_keys(c.schema.table, 10**9)), key=len)
        yield _finding(
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
            row_key=longest,
            max_key_bytes=rs.max_key_bytes,
        )
    if rs.max_qualifier_bytes >= NEAR * QUALIFIER_MAX:
        yield _finding(
            "limits",
            "warning",
            ("G19",),
            "Qualifiers near the 16 KiB limit",
            [
                f"the longest qualifier is {rs.max_qualifier_bytes:,} bytes "
                f"({rs.max_qualifier_bytes / QUALIFIER_MAX:.0%} of {QUALIFIER_MAX:,})"
            ],
            fix="Keep qualifiers short; put large data in the value (G19)",
            max_qualifier_bytes=rs.max_qualifier_bytes,
        )
    if rs.max_cell_bytes > st.cell_advisory_bytes:
        yield _finding(
            "limits",
            "warning",
            ("G10",),
            f"Cells over the {_fmt_bytes(st.cell_advisory_bytes)} advice",
            [
                f"the largest cell is {_fmt_bytes(rs.max_cell_bytes)} (advice {_fmt_bytes(st.cell_advisory_bytes)}, "
                f"hard limit {_fmt_bytes(st.cell_hard_bytes)})"
            ]
            + [str(x) for x in c.limit_findings if "cell" in x.message][:2],
            fix="Split large values or store them elsewhere and keep a reference",
            max_cell_bytes=rs.max_cell_bytes,
        )
    if rs.max_bytes > st.row_advisory_bytes:
        over = int((rs.bytes > st.row_advisory_bytes).sum())
        yield _finding(
            "limits",
            "warning",
            ("G10", "G02"),
            f"Rows over the {_fmt_bytes(st.row_advisory_bytes)} advice",
            [
                f"{over:,} rows are over {_fmt_bytes(st.row_advisory_bytes)}; the largest, {rs.largest_row!r}, "
                f"holds {_fmt_bytes(rs.max_bytes)} (hard limit {_fmt_bytes(st.row_hard_bytes)})"
            ],
            fix="Bound rows with a narrower time bucket in the key, or use tall rows (G02)",
            row_key=rs.largest_row,
            max_row_bytes=rs.max_bytes,
        )


# ----------------------------------------------------------------------------- G02 / G12: unbounded rows


def _bucket_seconds(key: RowKey) -> float | None:
    widths = []
    for s in key.time_segments:
        if isinstance(s, BaseTimestamp):
            widths.append(2**s.bits / 1000)
        else:
            widths.append(_BUCKET_S.get(getattr(s, "precision", ""), 1.0))
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
            (b for b in ("month", "week", "day", "hour") if rate * _BUCKET_S[b] <= 10e6), "hour"
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
            f"the largest row holds {_fmt_bytes(rs.max_bytes)} ({int(rs.cells.max()):,} cells) after "
            f"{_dur(rs.data_span_s)} of data and would reach {_fmt_bytes(rs.projected_max_bytes)} after "
            f"{st.retention_months:g} months (advice {_fmt_bytes(st.row_advisory_bytes)}, hard limit "
            f"{_fmt_bytes(st.row_hard_bytes)})",
        ]
        yield _finding(
            "unbounded_rows",
            sev,
            ("G02", "G12", "G10"),
            "Rows grow without bound",
            ev,
            fix=f"Bound each row with a time bucket in the key (e.g. {bucket}) or write a row per reading",
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
    idx = next((j for j, s in enumerate(key.segments) if isinstance(s, TimeBucket)), None)
    if idx is not None:
        from ..schema.codecs import PRECISIONS

        p = key.segments[idx].precision
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
    yield _finding(
        "unbounded_rows",
        "warning",
        ("G02", "G10"),
        "Time buckets too wide for the data rate",
        [
            f"rows fill at {_fmt_bytes(rs.max_bytes / max(rs.data_span_s, 1e-6))}/s; a full {_dur(bucket_s)} bucket "
            f"would hold about {_fmt_bytes(est)} (advice {_fmt_bytes(st.row_advisory_bytes)})"
        ],
        fix="Use a narrower bucket",
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
    days = int(round(c.settings.retention_months * 30))
    sugg = renamed(
        with_family_gc(c.schema, fam, max_age(f"{days}D")),
        f"maxage={days}d",
        f"Family {fam} keeps {days} days of versions (G13).",
    )
    yield _finding(
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


@rule("families", "G18", "G30")
def families(c: Context) -> Iterable[Finding]:
    for tname, fams in c.table_families.items():
        if len(fams) > 100:
            sugg = None
            if isinstance(c.schema.layout, Wide):
                from ..schema import Tall

                key = c.schema.key
                segs = [s for s in key.segments if not is_time(s)]
                sugg = first_lossless(
                    [
                        lambda p=p: replace(
                            c.schema,
                            key=RowKey((*segs, Timestamp(p)), key.delimiter),
                            layout=Tall(Family("m")),
                        )
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
            yield _finding(
                "families",
                "warning",
                ("G18",),
                f"{len(fams)} column families in table {tname!r}",
                [
                    f"table {tname!r} has {len(fams)} families ({', '.join(f.name for f in fams[:5])}, …); "
                    "Cloud Bigtable advises about 100 at most and reads each family separately"
                ],
                fix="Group related columns in one family; split families only by retention (GC) or access tier",
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
        yield _finding(
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


# ----------------------------------------------------------------------------- G24: one row per device


@rule("row_per_device", "G24", "G03")
def row_per_device(c: Context) -> Iterable[Finding]:
    key = c.schema.key
    if key.time_segments or len(c.ds) <= c.ds.n_entities():
        return
    keys = pd.Series(_render(key, c.ds), dtype=object)
    per_row = keys.value_counts()
    nk_sugg = _lossless_tall(c, key)
    sugg = (
        renamed(
            nk_sugg, "row per reading", f"A new row per reading: {nk_sugg.key.template()} (G24)."
        )
        if nk_sugg
        else None
    )
    yield _finding(
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


# ----------------------------------------------------------------------------- G08: salting


@rule("salting", "G08")
def salting(c: Context) -> Iterable[Finding]:
    a = c.analysis
    for tname, key in c.tables:
        salts = [s for s in key.segments if isinstance(s, Salt)]
        if not salts or a is None:
            continue
        n = salts[0].n
        t = a.queries.table
        plans = a.queries.plans
        intents = {q.name: q for q in c.ds.queries if q.kind != "scan"}
        fan = {
            q: int(t.loc[q, "scans"])
            for q in intents
            if q in plans and plans[q].table == tname and int(t.loc[q, "scans"]) >= n
        }
        if not fan:
            continue
        total_w = sum(q.weight for q in intents.values())
        hurt_w = sum(intents[q].weight for q in fan)
        top = max(intents.values(), key=lambda q: q.weight).name
        sev = "warning" if (top in fan or hurt_w >= 0.5 * total_w) else "info"
        kd = a.keyspace
        ev = [
            f"{q}: {s} scans (one per salt bucket), {int(t.loc[q, 'rows_seen']):,} rows seen for "
            f"{int(t.loc[q, 'rows_returned']):,} returned"
            for q, s in sorted(fan.items(), key=lambda x: -intents[x[0]].weight)
        ]
        ev.append(
            f"{hurt_w / max(total_w, 1e-9):.0%} of the query workload fans out {n}×; the salt buys a write spread of "
            f"{kd.mean_share:.0%} on the busiest node vs a fair {kd.fair_share:.0%}"
        )
        nk = without_salt(key, c.ds)
        sugg = renamed(
            with_key(c.schema, tname, nk),
            "no salt, entity first",
            f"Field promotion instead of salting: {nk.template()} (G07, G08).",
        )
        yield _finding(
            "salting",
            sev,
            ("G08",),
            f"Salting fans every read out into {n} scans",
            ev,
            fix="Promote a high-cardinality field ahead of the time instead (G07); salt only when no field "
            "spreads writes and reads are rare",
            suggestion=sugg,
            table=tname,
            scans=fan,
        )


# ----------------------------------------------------------------------------- G31: collisions


@rule("collisions", "G31")
def collisions(c: Context) -> Iterable[Finding]:
    loss = c.loss
    if not loss:
        return
    key = c.schema.key
    ev = []
    row = None
    if loss.n_lost:
        keys = pd.Series(_render(key, c.ds), dtype=object).value_counts()
        row = str(keys.index[0])
        ts = [s for s in key.time_segments]
        prec = _precision_name(ts[0]) if ts else "no time"
        ev.append(
            f"{loss.n_lost:,} of {len(c.ds):,} events are overwritten by another event in the same cell "
            f"(key time precision: {prec}); Bigtable keeps one per cell"
        )
        ev.append(f"row {row!r} receives {int(keys.iloc[0]):,} events")
    if loss.n_truncated:
        ev.append(
            f"{loss.n_truncated:,} events have sub-millisecond times; cell timestamps keep milliseconds and the "
            "key has no microsecond segment, so they are rounded"
        )
    cands = []
    for i, seg in enumerate(key.segments):
        if is_time(seg) and not isinstance(seg, (TimeBucket, BaseTimestamp)):
            cands += [
                lambda i=i, seg=seg, p=p: replace(
                    c.schema, key=replace_segment(key, i, at_precision(seg, p))
                )
                for p in finer_precisions(seg)
            ]
    if isinstance(c.schema.layout, Wide):
        idx = next((j for j, s in enumerate(key.segments) if isinstance(s, TimeBucket)), None)
        if idx is not None:
            cands += [
                lambda b=b, q=q: replace(
                    c.schema,
                    key=replace_segment(key, idx, TimeBucket(b)),
                    layout=replace(c.schema.layout, qualifier=q),
                )
                for b, q in (("day", "hour"), ("hour", "minute"), ("minute", "second"))
            ]
    sugg = first_lossless(cands, c.ds)
    if sugg is None and not key.time_segments:
        sugg = _lossless_tall(c, key)
    if sugg is not None:
        sugg = renamed(
            sugg,
            "no collisions",
            f"Key precision that keeps every event: {sugg.key.template()} (G31).",
        )
    yield _finding(
        "collisions",
        "error",
        ("G31",),
        "Events collide: data would be lost",
        ev,
        fix="Use a finer time precision in the key (µs for sub-second data), or promote another field",
        suggestion=sugg,
        row_key=row,
        lost=loss.n_lost,
        truncated=loss.n_truncated,
    )


# ----------------------------------------------------------------------------- G04 / G05: full-table scans


@rule("full_scan", "G04", "G05")
def full_scan(c: Context) -> Iterable[Finding]:
    a = c.analysis
    if a is None:
        return
    t = a.queries.table
    for q in c.ds.queries:
        if q.kind == "scan" or q.name not in a.queries.plans:
            continue
        plan = a.queries.plans[q.name]
        if not plan.full_scan:
            continue
        seen, ret = int(t.loc[q.name, "rows_seen"]), int(t.loc[q.name, "rows_returned"])
        ev = [
            f"query {q.name!r} ({q.kind}, weight {q.weight:g}) has no key range: it reads all {seen:,} rows to "
            f"return {ret:,} ({float(t.loc[q.name, 'waste']):,.0f}× waste)"
        ]
        if not q.entity:
            yield _finding(
                "full_scan",
                "info",
                ("G05", "G04"),
                f"{q.name}: a slice across every entity is a full-table scan",
                ev
                + [
                    "expected with an entity-first key; if it matters, serve it from a second table or "
                    "pre-aggregated rows (G05, G29)"
                ],
                table=plan.table,
            )
            continue
        key = c.schema.key
        i = lead_index(key)
        if i is not None and is_time(key.segments[i]):
            sugg = renamed(
                replace(c.schema, key=promote(key, c.ds)), "entity first", "Entity first (G04)."
            )
        else:
            fixed = [e for e in c.ds.entity if e in q.entity]
            rest = [e for e in c.ds.entity if e not in q.entity]
            tseg = next(
                (s for s in key.time_segments if not isinstance(s, Salt)), None
            ) or Timestamp("us")
            nk = RowKey(tuple(Field(e) for e in (*fixed, *rest)) + (tseg,), key.delimiter)
            tname = re.sub(r"[^A-Za-z0-9_]", "_", f"by_{q.name}")[:30]
            sugg = None
            if tname not in [n for n, _ in c.tables]:
                sugg = renamed(
                    replace(c.schema, tables=(*c.schema.tables, Table(tname, nk))),
                    f"table {tname}",
                    f"A second table keyed for {q.name}: {nk.template()} (G05).",
                )
        yield _finding(
            "full_scan",
            "warning",
            ("G04", "G05"),
            f"{q.name} is served by a full-table scan",
            ev,
            fix="Key the table for this query (entity fields first, G04), or add a second table keyed for "
            "it instead of query-and-filter (G05)",
            suggestion=sugg,
            table=plan.table,
            rows_seen=seen,
            rows_returned=ret,
        )
    errors = a.queries.table["error"] if "error" in a.queries.table else pd.Series(dtype=object)
    for name, err in errors.items():
        if isinstance(err, str) and err:
            yield _finding(
                "full_scan",
                "info",
                ("G04",),
                f"{name}: this design cannot plan the query",
                [str(err)],
            )


# ----------------------------------------------------------------------------- G09: reversed timestamps


@rule("reversed_time_use", "G09")
def reversed_time_use(c: Context) -> Iterable[Finding]:
    key = c.schema.key
    i = lead_index(key)
    rev = [s for j, s in enumerate(key.segments) if isinstance(s, ReversedTimestamp) and j != i]
    if not rev or not c.ds.queries:
        return
    latest = sum(q.weight for q in c.ds.queries if q.kind == "latest")
    ranges = sum(q.weight for q in c.ds.queries if q.kind in ("range", "slice"))
    if latest >= ranges:
        return
    yield _finding(
        "reversed_time_use",
        "info",
        ("G09",),
        "Reversed timestamps, but latest-N is not the main query",
        [
            f"latest queries weigh {latest:g} vs {ranges:g} for time ranges: ranges must be given newest-first"
        ],
        fix="Keep reversed timestamps only when latest-N reads dominate",
    )


__all__ = ["RULES", "Rule", "rule", "pii_kind"]
