"""Advisor rules about the row key: time first (G06, G09), sequential IDs (G23), personal data
(G26), hashed or raw-byte segments (G22), unpadded numbers (G21), characters outside Google's
checklist set ``[a-zA-Z0-9-_#]`` (G20, G22).

Why one module: every rule here reads the same thing, the key's segments and the column values
that fill them, through shared helpers (``_pii_columns`` serves personal data and hashed
segments, ``_int_values`` sequential IDs, ``rendered_keys`` the examples of all of them); split
by guideline, the modules would import each other's helpers."""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import pairwise
from typing import Any

import numpy as np
import pandas as pd

from ..analysis.capacity import ONCE_FIXED
from ..formatting import counted, percent
from ..schema import (
    Hashed,
    PaddedInt,
    ReversedId,
    RowKey,
    Segment,
    Tall,
)
from ..units import human_bytes
from .context import Context
from .findings import Finding
from .measured import consequence_severity, effective_lead, measured_even
from .rule_base import duration_text, make_finding, rendered_keys, rule
from .suggest import (
    is_time,
    key_of,
    lead_index,
    promote,
    renamed,
    replace_segment,
    sequential_ints,
    with_key,
)

# ----------------------------------------------------------------------------- G06 / G09: time first


def load_evidence(c: Context) -> tuple[list[str], dict[str, Any]]:
    """The measured write spread and the busiest tablet's share of each window's load."""
    a = c.analysis
    if a is None or not a.keyspace.n_writes:
        return [], {}
    kd = a.keyspace
    win = (
        (kd.window_edges_us[1] - kd.window_edges_us[0]) / 1e6 if len(kd.window_edges_us) > 1 else 0
    )
    ev = [
        f"the busiest of {kd.nodes} nodes takes {percent(kd.mean_write_share)} of the writes in each "
        f"{duration_text(win)} window vs a fair {kd.fair_share:.0%} (hotspot factor {kd.factor_text})"
    ]
    br = kd.busiest_range
    if br:  # a share of one step's total load (never above 100 %)
        ev.append(
            f"{br['window_share']:.0%} of the busiest window's load (reads + writes) lands on one "
            f"tablet (keys {br['name']!r})"
        )
    if kd.ceiling is not None:  # the keyspace summary's own line: one ceiling everywhere
        ev.append(f"ceiling: {kd.ceiling.text()}")
    cap = a.capacity  # the capacity view's own figures: one node count everywhere
    nodes = counted(cap.nodes_needed, cap.storage + " node")
    if cap.hotspot_limited:  # no node count serves the rate: the count is the fixed design's
        ev.append(f"capacity: {cap.verdict()}; {nodes}{ONCE_FIXED}")
    else:
        ev.append(f"capacity at {cap.rate_text()}: {nodes} ({cap.bound_text})")
    data = {
        "busiest_share": kd.mean_write_share,
        "fair_share": kd.fair_share,
        "hotspot_factor": kd.hotspot_factor,
        "ceiling_writes_per_s": kd.ceiling.writes_per_s if kd.ceiling else float("inf"),
    }
    return ev, data


@rule("time_first", "G06", "G09")
def time_first(c: Context) -> Iterable[Finding]:
    for tname, key in c.tables:
        i = lead_index(key)
        if i is None:
            continue
        j = effective_lead(c, key)
        in_effect = not is_time(key.segments[i]) and j is not None and is_time(key.segments[j])
        if not is_time(key.segments[i]) and not in_effect:
            continue
        seg = key.segments[j if in_effect and j is not None else i]
        rev = seg.time_order < 0
        where = f"{('of table ' + repr(tname) + ' ') if tname != c.schema.table else ''}"
        examples = ", ".join(repr(k) for k in c.example_keys(tname))
        if in_effect:
            const = [s.column for s in key.segments[:j] if hasattr(s, "column")]
            ev = [
                f"the row key {where}starts with {', '.join(const) or 'fixed text'}, which has one "
                f"value in this dataset, then the time: e.g. {examples}; every write goes to the "
                "end of one series, so the key is time-first in effect"
            ]
        else:
            ev = [
                f"the row key {where}starts with "
                f"{'a reversed timestamp' if rev else 'the time'}: e.g. {examples}"
            ]
        load, data = load_evidence(c)
        ev += load
        why_not = measured_even(c)
        # the consequence at the workload's rate sets the severity: an error when no node count
        # serves it, a warning (the shape, and where it stops scaling) when it does
        sev = consequence_severity(c)
        if why_not is not None:
            # the shape says hotspot, the measurement says even: the measurement wins
            sev = "info"
            ev.append(
                why_not
                + "; the usual rule does not apply here: "
                + (
                    f"a {getattr(seg, 'precision', 'coarse')} bucket leads the key, so the rows of "
                    "every entity in the current bucket share the writes"
                    if getattr(seg, "precision", "") in ("week", "day", "month", "hour")
                    else "the writes of one time spread over the rows that follow it"
                )
            )
        sugg = None
        if not in_effect:
            sugg = with_key(c.schema, tname, promote(key, c.ds))
            new_key = key_of(sugg, tname)
            sugg = renamed(
                sugg, "entity first", f"Field promotion: {new_key.template()} (G07, G06)."
            )
            fix = f"Put the entity first and the time after it: {new_key.template()} (field promotion, G07)"
        else:
            fix = (
                "One series writes at one place whatever the key: spread it with a salt of the "
                "time (G08) or a coarse time bucket ahead of finer fields, or accept the single "
                "frontier if the rate is far below one node's"
            )
        ids = ("G09", "G06") if rev else ("G06", "G07")
        title = (
            "One series: the row key is time-first in effect"
            if in_effect
            else "Reversed timestamp first in the row key"
            if rev
            else "Timestamp first in the row key: write hotspot"
        )
        if sev == "info":
            title = (
                "One series (time-first in effect)" if in_effect else title.split(":")[0]
            ) + ", but the measured load is even"
        yield make_finding(
            "time_first",
            sev,
            ids,
            title,
            ev,
            fix=fix
            + (
                "; reversed timestamps belong after the entity, for latest-N reads (G09)"
                if rev and not in_effect
                else ""
            ),
            suggestion=sugg,
            table=tname,
            **data,
        )


# ----------------------------------------------------------------------------- G23: sequential IDs


def _int_values(c: Context, seg: Segment) -> np.ndarray | None:
    """The integers a segment writes as their digits (its column's values), else None."""
    col = seg.value_column
    if col is None or col not in c.ds.frame or seg.digits_width() is None:
        return None  # no column, or the key transforms its digits (hash, reversal)
    s = c.ds.frame[col]
    if seg.integer or s.dtype.kind in "iu":
        return s.to_numpy(dtype=np.int64) if s.dtype.kind in "iu" else None
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
        idcol = seg.value_column
        if idcol is None:  # only a column's values can be sequential IDs
            continue
        vals = _int_values(c, seg)
        if vals is None or not sequential_ints(vals):
            continue
        u = np.unique(vals)
        k = min(10, len(u))
        newest = u[-k:]
        width = seg.digits_width() or 0
        as_key = [str(v).zfill(width) for v in newest]
        rev = [str(v)[::-1] for v in newest]
        shared = 0
        while shared < min(len(x) for x in as_key) and len({x[shared] for x in as_key}) == 1:
            shared += 1
        firsts_now, firsts_rev = len({x[0] for x in as_key}), len({x[0] for x in rev})
        ev = [
            f"{idcol} holds {len(u):,} consecutive IDs {u[0]}–{u[-1]} ({len(u):,} of {u[-1] - u[0] + 1:,} values "
            "used), so every new ID is the highest and sorts at the end of the key space",
            f"the {k} newest IDs share the key prefix {as_key[0][:shared]!r} ({firsts_now} distinct first "
            f"character{'s' if firsts_now != 1 else ''}): one tablet takes all their writes; reversed they start "
            f"with {firsts_rev} different characters",
        ]
        sugg = None
        col = c.ds.frame[idcol]
        if col.dtype.kind in "iu":
            nk = replace_segment(key, i, ReversedId(idcol))
            sugg = renamed(
                with_key(c.schema, tname, nk),
                "reversed IDs",
                f"Reversed sequential IDs: {nk.template()} (G23).",
            )
        why_not = measured_even(c)
        if why_not is not None:
            ev.append(
                why_not + "; the usual reason to reverse IDs does not apply here: every ID keeps "
                "writing at a similar rate, so the newest IDs take no more than their share"
            )
        yield make_finding(
            "sequential_id",
            "warning" if why_not is None else "info",
            ("G23", "G06"),
            "Sequential numeric IDs lead the row key",
            ev,
            fix=f"Reverse the ID ({idcol} 100042 → 240001) so new IDs spread over the key space",
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


def _masked_text(text: str) -> str:
    """``text`` (a row key, an evidence line) with every part that looks like personal data
    masked as the G26 finding masks it: no other finding prints in clear what G26 hides."""
    parts = re.split(r"([#'\s,()|/])", text)
    return "".join(_mask(p) if pii_kind(p) else p for p in parts)


def _pii_columns(c: Context, key: RowKey) -> dict[str, tuple[str, int, int, str]]:
    """Key columns whose values look like personal data: column → (kind, hits, distinct, example)."""
    out = {}
    for seg in key.segments:
        if seg.readable() != seg:  # the key hides the values (a hash)
            continue
        for col in seg.sources():
            if col not in c.ds.frame or c.ds.frame[col].dtype.kind in "iufb":
                continue
            u = pd.unique(c.ds.frame[col].astype(object))[:5000]
            kinds = [pii_kind(x) for x in u]
            hits = [k for k in kinds if k]
            if hits and len(hits) >= max(1, 0.3 * len(u)):
                kind = max(set(hits), key=hits.count)
                ex = next(x for x, k in zip(u, kinds, strict=True) if k == kind)
                out[col] = (kind, len(hits), len(u), ex)
    return out


def _plural(kind: str) -> str:
    """ "e-mail addresses", "phone numbers" (not "e-mail addresss")."""
    return kind + ("es" if kind.endswith(("s", "sh", "ch", "x")) else "s")


@rule("personal_data", "G26")
def personal_data(c: Context) -> Iterable[Finding]:
    for tname, key in c.tables:
        cols = _pii_columns(c, key)
        for col, (kind, hits, n, ex) in cols.items():
            idx = [j for j, s in enumerate(key.segments) if s.value_column == col]
            sugg = None
            if idx:  # a field can be hashed; a tag or a salt's input cannot
                nk = key
                for j in idx:
                    nk = replace_segment(nk, j, Hashed(col, 16))
                sugg = renamed(
                    with_key(c.schema, tname, nk),
                    f"{col} pseudonymised",
                    f"{col} replaced by a 16-hex-digit hash in the key (G26); the value rides in a cell.",
                )
            keyex = rendered_keys(key, c.ds, {col: [ex]})[0]
            yield make_finding(
                "personal_data",
                "warning",
                ("G26",),
                f"Personal data in the row key ({col})",
                [
                    f"{hits:,} of {n:,} distinct {col} values look like {_plural(kind)}, "
                    f"e.g. {_mask(ex)!r}",
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
            yield make_finding(
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
                        tuple(s.readable() for s in key.segments),
                        key.delimiter,
                    ),
                ).items()
            }
        )
        for i, seg in enumerate(key.segments):
            hcol = seg.value_column
            if hcol is None:
                continue
            if seg.readable() != seg:
                ex = rendered_keys(key, c.ds, rows=1)[0]
                readable = rendered_keys(replace_segment(key, i, seg.readable()), c.ds, rows=1)[0]
                ev = [
                    f"key {ex!r} instead of the readable {readable!r}: the {hcol} cannot be read from the key "
                    f"and related {hcol} values no longer sort together"
                ]
                lay = c.schema.layout
                if c.cells is not None and isinstance(lay, Tall):
                    f = c.cells.frame
                    m = (
                        (f["family"] == lay.family.name) & (f["qualifier"] == lay.qname(hcol))
                    ).to_numpy()
                    if m.any():
                        ev.append(
                            f"{hcol} rides along as a cell: {int(m.sum()):,} extra cells, "
                            f"{human_bytes(int(c.cell_bytes[m].sum()))}"
                        )
                if hcol in pii:
                    yield make_finding(
                        "hashed_key",
                        "info",
                        ("G22", "G26"),
                        f"Hashed {hcol} in the key (deliberate: it holds personal data)",
                        ev[:1],
                        table=tname,
                    )
                    continue
                nk = replace_segment(key, i, seg.readable())
                sugg = renamed(
                    with_key(c.schema, tname, nk),
                    f"readable {hcol}",
                    f"Readable key segments: {nk.template()} (G22).",
                )
                yield make_finding(
                    "hashed_key",
                    "warning",
                    ("G22",),
                    f"Hashed {hcol} in the row key",
                    ev,
                    fix=f"Use {hcol} itself (human-readable, G22); spread writes by field promotion instead",
                    suggestion=sugg,
                    table=tname,
                )
            elif (
                seg.digits_width() == 0  # the value as it is
                and hcol in c.ds.frame
                and c.ds.frame[hcol].dtype.kind not in "iufb"
            ):
                u = pd.unique(c.ds.frame[hcol].astype(object))[:2000]
                raw = [x for x in u if isinstance(x, str) and any(not ch.isprintable() for ch in x)]
                hexy = [x for x in u if isinstance(x, str) and _HEX.match(x)]
                if raw or (len(u) and len(hexy) == len(u)):
                    what = (
                        "raw bytes (non-printable characters)" if raw else "hash-like hex strings"
                    )
                    yield make_finding(
                        "hashed_key",
                        "warning",
                        ("G22",),
                        f"{hcol} in the key holds {what}",
                        [
                            f"{len(raw or hexy):,} of {len(u):,} distinct {hcol} values are {what}, "
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
        for a, b in pairwise(txt):
            if a > b:
                return a, b
        return None
    txt = sorted(values)
    for a, b in pairwise(txt):
        if _natural(a) > _natural(b):
            return a, b
    return None


_NUMBERED = re.compile(r"^([^\d]*)(\d+)$")


@rule("unpadded_number", "G21")
def unpadded_number(c: Context) -> Iterable[Finding]:
    for tname, key in c.tables:
        for i, seg in enumerate(key.segments):
            col = seg.value_column
            # padded digits already sort; a hash or reversed digits do not keep the value's order
            if col is None or col not in c.ds.frame or seg.digits_width() != 0:
                continue
            s = c.ds.frame[col]
            if seg.integer or s.dtype.kind in "iu":
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
            else:
                u = [x for x in pd.unique(s.astype(object)) if isinstance(x, str)]
                ms = [_NUMBERED.match(x) for x in u]
                if not u or not all(ms) or len({m.group(1) for m in ms if m}) > 3:
                    continue
                pair = _inversion(u)
                if pair is None:
                    continue
                in_data, sugg = True, None
            a, b = pair
            ka, kb = rendered_keys(key, c.ds, {col: [a, b]})
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
            yield make_finding(
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


# ----------------------------------------------------------------------------- G20 / G22: key characters

KEY_CHARSET = re.compile(r"[^a-zA-Z0-9\-_#]")  # Google's checklist: ^[a-zA-Z0-9\-_#]+$
KEY_ALLOWED = re.compile(r"[a-zA-Z0-9\-_#]")


def _char_name(ch: str) -> str:
    return {" ": "space", "\t": "tab"}.get(ch, repr(ch) if ch.isprintable() else f"U+{ord(ch):04X}")


def _unsafe(ch: str) -> bool:
    """Whitespace, non-ASCII and control characters: must be quoted or escaped in cbt and the
    shell, and non-ASCII ones are several UTF-8 bytes that sort by those bytes."""
    return ch.isspace() or not ch.isascii() or not ch.isprintable()


def _sources(c: Context, key: RowKey, chars: set[str]) -> list[str]:
    """Which of the key's columns (or its delimiter) bring ``chars`` in, with an example."""
    out = [f"the delimiter {key.delimiter!r}"] if key.delimiter in chars else []
    for col, hit, n in _offending(c, key):
        out.append(f"{col} ({len(hit):,} of {n:,} values, e.g. {hit.iloc[0]!r})")
    return out


def _offending(c: Context, key: RowKey) -> Iterable[tuple[str, pd.Series, int]]:
    """(column, its distinct values holding characters outside the set, its distinct values)
    for each text column the key writes as it is (time segments render their own digits)."""
    for seg in key.segments:
        if seg.readable() != seg or is_time(seg):
            continue
        for col in seg.sources():
            if col not in c.ds.frame or c.ds.frame[col].dtype.kind in "iubM":
                continue
            u = pd.Series(pd.unique(c.ds.frame[col].astype(str)), dtype=object)
            hit = u[u.str.contains(KEY_CHARSET)]
            if len(hit):
                yield col, hit, len(u)


def _mapped_example(values: list[str]) -> str:
    """The data's own value mapped to the set ('AUD/USD' → 'AUD_USD'); a value that looks like
    personal data is not shown (G26), nor mapped (the mapped text would escape the mask)."""
    ex = next((v for v in values if _masked_text(v) == v), None)
    if ex is None:
        return "e.g. 'American Steel' → 'American_Steel'"
    return f"e.g. {ex!r} → {KEY_CHARSET.sub('_', ex)!r}"


@rule("key_characters", "G20", "G22")
def key_characters(c: Context) -> Iterable[Finding]:
    if c.cells is None:
        return
    f = c.frame
    for tname, key in c.tables:
        keys = pd.Series(pd.unique(f.loc[f["table"] == tname, "row_key"]), dtype=object)
        bad = keys[keys.str.contains(KEY_CHARSET)]
        if not len(bad):
            continue
        chars = set("".join(KEY_ALLOWED.sub("", k) for k in bad.head(5000)))
        unsafe = sorted(ch for ch in chars if _unsafe(ch))
        names = ", ".join(_char_name(ch) for ch in sorted(chars))
        where = _sources(c, key, chars)
        ev = [
            f"{len(bad):,} of {len(keys):,} row keys hold characters outside "
            f"[a-zA-Z0-9-_#] ({names}): e.g. {_masked_text(bad.iloc[0])!r}",
            _masked_text("they come from " + "; ".join(where)) if where else "",
            (
                f"{', '.join(_char_name(ch) for ch in unsafe)} must be quoted or escaped in cbt, "
                "gcloud and shell commands"
                + (
                    "; non-ASCII characters are several bytes each and sort by those bytes"
                    if any(not ch.isascii() for ch in unsafe)
                    else ""
                )
                if unsafe
                else "punctuation other than - _ # makes keys harder to type in cbt and in "
                "range boundaries; harmless if it is a deliberate, documented delimiter"
            ),
        ]
        yield make_finding(
            "key_characters",
            "warning" if unsafe else "info",
            ("G20", "G22"),
            f"Row keys hold {'unsafe ' if unsafe else ''}characters outside [a-zA-Z0-9-_#]"
            + (f" ({', '.join(_char_name(ch) for ch in unsafe)})" if unsafe else ""),
            ev,
            fix=f"Map names to the set before keying ({_mapped_example([h.iloc[0] for _, h, _ in _offending(c, key)])}, "
            "or an ID with the name in a cell); use # as the delimiter",
            table=tname,
            row_key=_masked_text(str(bad.iloc[0])),
            characters="".join(sorted(chars)),
            keys_outside=len(bad),
        )
