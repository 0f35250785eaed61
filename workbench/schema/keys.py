"""Row keys as ordered segments joined by a delimiter (G04, G06–G09, G20–G23, G27, G16).

The same ``render`` code builds the keys written to Bigtable and the keys a read plan asks
for, so a plan can never disagree with the data. Segments: :mod:`.segments` and
:mod:`.time_segments`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

import numpy as np
import pandas as pd

from ..cells import utf8_len
from ..errors import SchemaError
from .segments import (
    MEASURE,
    TIME,
    Coded,
    Field,
    Metric,
    RenderContext,
    Segment,
    Tags,
    any_contains,
    join_sized,
    sql_text,
)
from .time_segments import BaseTimestamp
from .value_text import factorize


@dataclass(frozen=True)
class RowKey:
    """Ordered segments joined by ``delimiter`` (G20: common-to-granular, short, readable)."""

    segments: tuple[Segment, ...]
    delimiter: str = "#"

    def __post_init__(self) -> None:
        if isinstance(self.segments, (str, Segment)):
            raise SchemaError(
                f"RowKey takes a sequence of segments, e.g. RowKey((Field('sensor'), "
                f"Timestamp('second'))), got {self.segments!r}."
            )
        object.__setattr__(self, "segments", tuple(self.segments))
        if not self.segments:
            raise SchemaError("A row key needs at least one segment.")
        not_segments = [s for s in self.segments if not isinstance(s, Segment)]
        if not_segments:
            raise SchemaError(
                f"RowKey segments must be key segments such as Field('sensor') or "
                f"Timestamp('second'), got {not_segments[0]!r}."
            )
        d = self.delimiter
        if not isinstance(d, str) or not d:
            raise SchemaError(
                f"A row key's delimiter must be a non-empty string such as '#', got {d!r}: "
                "without it the key could not be split back into its segments."
            )
        for (
            seg
        ) in self.segments:  # values are checked when rendered; fixed alphabets can be checked now
            alphabet = seg._alphabet()
            clash = sorted({ch for ch in d if alphabet is not None and ch in alphabet})
            if clash and seg.n_parts(d) == 1:
                raise SchemaError(
                    f"The delimiter {d!r} can occur inside the text of {seg.template()} "
                    f"(it writes {''.join(clash)!r}), so keys could not be split back into "
                    "segments. Choose another delimiter (e.g. '#') or a time format without it."
                )
        variable = [s for s in self.segments if s.n_parts(self.delimiter) is None]
        if len(variable) > 1:
            raise SchemaError("A row key can have at most one variable-width segment (Tags).")
        if sum(s.names_measure for s in self.segments) > 1:
            raise SchemaError("A row key can have at most one Metric segment.")

    # -- introspection ---------------------------------------------------------------
    def columns(self) -> tuple[str, ...]:
        out: list[str] = []
        for s in self.segments:
            out += [c for c in s.sources() if c != TIME and c not in out]
        return tuple(out)

    def recovers(self) -> tuple[str, ...]:
        out: list[str] = []
        for s in self.segments:
            out += [c for c in s.recovers() if c not in out]
        return tuple(out)

    @property
    def metric(self) -> Metric | None:
        """The segment that names the measure (it answers ``measures`` and ``name_of``)."""
        return cast("Metric | None", next((s for s in self.segments if s.names_measure), None))

    @property
    def time_segments(self) -> list[Segment]:
        return [s for s in self.segments if TIME in s.sources() and s.time_order != 0]

    def keeps_microseconds(self) -> bool:
        return any(s.time_precision() == "us" for s in self.time_segments)

    def template(self) -> str:
        out = ""
        for i, s in enumerate(self.segments):
            out += s.template()
            if i < len(self.segments) - 1:
                out += self.delimiter
        return out

    def key_sql(
        self, columns: Mapping[str, str], t_us: str, held: Mapping[str, str] | None = None
    ) -> str | None:
        """The key of each event as a DuckDB SQL expression (``Segment.key_sql``: ``columns``
        a dataset column's key text, ``t_us`` the event time in µs), the segments' texts joined
        by the delimiter as ``render`` joins them; None when a segment's text is not written in
        SQL (the engine path then replays the sample, and says so). A segment that writes its
        own delimiters (Tags, G16) is followed by none, and a key ending with it loses its last
        delimiters, as ``_render_text`` joins them.

        A key naming the measure writes a row per measure: an event writes one key for each
        measure ``held`` maps to the SQL condition of its having a value (a cell), as rows of
        ``unnest`` (None without ``held``)."""
        pairs = self.key_pairs(columns, t_us, held)
        if pairs is None:
            return None
        if self.metric is None:
            return pairs[0][0]
        each = ", ".join(f"CASE WHEN {c} THEN {k} END" for k, c in pairs)
        return f"unnest([k FOR k IN [{each}] IF k IS NOT NULL])"

    def key_pairs(
        self, columns: Mapping[str, str], t_us: str, held: Mapping[str, str] | None = None
    ) -> list[tuple[str, str | None]] | None:
        """:meth:`key_sql` as (key, condition) pairs, an event writing the key of each pair
        whose condition holds: one pair with no condition (None), or one per measure ``held``
        names when the key names the measure (the engine path groups each pair's keys in one
        pass with other designs', where ``unnest`` would repeat their events)."""
        if self.metric is None:
            key = self._joined_sql(columns, t_us)
            return None if key is None else [(key, None)]
        if not held:
            return None
        keys = [self._joined_sql({**columns, MEASURE: sql_text(m)}, t_us) for m in held]
        if any(k is None for k in keys):
            return None
        return [(k, c) for k, c in zip(keys, held.values(), strict=True) if k is not None]

    def _joined_sql(self, columns: Mapping[str, str], t_us: str) -> str | None:
        """:meth:`key_sql` of one key per event (for one measure, when it names one)."""
        d = self.delimiter
        got: dict[int, str | None] = {}
        timed = False  # a salt of the time hashes the key's first time text, as ``coded`` does
        for last in (False, True):
            for i, s in enumerate(self.segments):
                if s.renders_last == last:
                    got[i] = text = s.key_sql(columns, t_us, d)
                    if not timed and s.time_order != 0 and text is not None:
                        columns, timed = {**columns, TIME: text}, True
        texts = [got[i] for i in range(len(self.segments))]
        if any(t is None for t in texts):
            return None
        key = f"({texts[0]})"
        for before, text in zip(self.segments, texts[1:], strict=False):
            key += f" || ({text})" if before.self_delimited else f" || {sql_text(d)} || ({text})"
        return f"rtrim({key}, {sql_text(d)})" if self.segments[-1].self_delimited else key

    # -- render / parse --------------------------------------------------------------
    def render(self, ctx: RenderContext) -> np.ndarray:
        """Key text for every event (for ``ctx.metric`` when the key has a Metric segment)."""
        coded = self._render_coded(ctx)
        if coded is not None:
            codes, texts, _ = coded
            return texts[codes]
        return self._render_text(ctx)

    def _render_coded(self, ctx: RenderContext) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Keys as (dense codes, distinct key texts in first-seen order, their UTF-8 byte lengths).

        Each segment gives codes into its distinct texts; the codes are combined pairwise and
        only distinct combinations get text, so a key is built (and later hashed and measured)
        once per distinct key, not once per event. This is exact when the combination is
        injective: a one-character delimiter that no varying segment's text contains, so each
        key splits back into the same segment texts. Otherwise (and for Tags) it returns None
        and ``render`` joins the texts per event."""
        d = self.delimiter
        if len(d) != 1 or d == "\x00" or any(s.self_delimited for s in self.segments):
            return None  # NUL: the text path joins with numpy str scalars, which drop it; keep its keys
        parts = self._coded_parts(ctx)
        sizes = []
        for s, (_codes, texts) in zip(self.segments, parts, strict=True):
            alphabet = s._alphabet()
            if len(texts) > 1 and (alphabet is None or d in alphabet) and any_contains(texts, d):
                return None
            if s._fixed_width and alphabet is not None and alphabet.isascii() and len(texts):
                sizes.append(np.full(len(texts), len(texts[0]), dtype=np.int64))
            else:
                sizes.append(utf8_len(pd.Series(texts, dtype=object)))
        codes, texts = parts[0]
        size = sizes[0]
        dense = (
            False  # codes are 0..len(texts)-1, each used (a segment's texts may hold unused values)
        )
        for nxt, nsize in zip(parts[1:], sizes[1:], strict=True):
            n_left, n_right = len(texts), len(nxt[1])
            codes, texts, size = join_sized((codes, texts), size, nxt, nsize, d)
            if n_right != 1:
                dense = n_left != 1
        if not dense:
            codes, uniq = factorize(codes)
            texts, size = texts[uniq], size[uniq]
        return codes, texts, size

    def _coded_parts(self, ctx: RenderContext) -> list[Coded]:
        """Each segment's (codes, texts); one that hashes the others' texts (a salt of the time)
        after them, with the key's first time text at hand."""
        ctx.delimiter, ctx.time_coded = self.delimiter, None
        parts: dict[int, Coded] = {}
        for last in (False, True):
            for i, s in enumerate(self.segments):
                if s.renders_last == last:
                    parts[i] = s.coded(ctx)
                    if ctx.time_coded is None and s.time_order != 0:
                        ctx.time_coded = parts[i]
        return [parts[i] for i in range(len(self.segments))]

    def _render_text(self, ctx: RenderContext) -> np.ndarray:
        rendered = [texts[codes] for codes, texts in self._coded_parts(ctx)]
        out = rendered[0]
        for i in range(1, len(rendered)):
            sep = "" if self.segments[i - 1].self_delimited else self.delimiter
            out = out + sep + rendered[i] if sep else out + rendered[i]
        if self.segments[-1].self_delimited:
            out = pd.Series(out, dtype=object).str.rstrip(self.delimiter).to_numpy(dtype=object)
        return out

    def _split(self, keys: pd.Series) -> list[pd.Series]:
        """Each segment's text, vectorized; a key that does not fit the template raises."""
        d = self.delimiter
        counts = [s.n_parts(d) for s in self.segments]
        var = next((i for i, c in enumerate(counts) if c is None), None)
        # the template's own braces ({site}) must not reach str.format: the key goes in by hand
        bad_msg = "Row key {key} does not match the key template " + repr(self.template()) + "."
        # RowKey allows at most one variable-width segment (None), so every other count is known
        widths = [c for c in counts if c is not None]
        if var is None:
            total = sum(widths)
            parts = keys.str.split(d, regex=False, expand=True) if total > 1 else keys.to_frame()
            if parts.shape[1] != total or parts.isna().any().any():
                raise SchemaError(bad_msg.replace("{key}", _first_misfit(keys, parts, total)))
            cols = [parts[j] for j in range(total)]
            out, j = [], 0
            for c in widths:
                seg = cols[j]
                for k in range(1, c):
                    seg = seg + d + cols[j + k]
                out.append(seg.astype(object))
                j += c
            return out
        left = sum(widths[:var])
        right = sum(widths[var:])
        if left:
            lp = keys.str.split(d, n=left, regex=False, expand=True)
            if lp.shape[1] != left + 1 or lp.isna().any().any():
                raise SchemaError(bad_msg.replace("{key}", _first_misfit(keys, lp, left + 1)))
            rest = lp[left]
            lcols = [lp[j] for j in range(left)]
        else:
            rest, lcols = keys, []
        rp = (d + rest).str.rsplit(d, n=right, expand=True)
        if rp.shape[1] != right + 1 or rp.isna().any().any():
            raise SchemaError(bad_msg.replace("{key}", _first_misfit(keys, rp, right + 1)))
        middle = rp[0].str[1:]
        rcols = [rp[j] for j in range(1, right + 1)]
        flat = [*lcols, middle, *rcols]
        out, j = [], 0
        for n in counts:
            if n is None:
                out.append(flat[j].astype(object))
                j += 1
                continue
            seg = flat[j]
            for k in range(1, n):
                seg = seg + d + flat[j + k]
            out.append(seg.astype(object))
            j += n
        return out

    def parse(self, keys: pd.Series) -> pd.DataFrame:
        """Unique keys → recovered entity text, ``_metric``, ``_subms`` (µs below the ms) and
        ``_event_row`` (the key without its metric segment: what identifies one event's row)."""
        keys = keys.reset_index(drop=True).astype(object)
        texts = self._split(keys)
        out = pd.DataFrame(index=keys.index)
        for s, t in zip(self.segments, texts, strict=True):
            # a segment that writes its own delimiters splits its text with them
            got = s.parse(t, self.delimiter) if s.self_delimited else s.parse(t)  # type: ignore[call-arg]
            for k, v in got.items():
                out[k] = v.to_numpy()
            if "_subms" not in out:
                v = s.subms(t)
                if v is not None:
                    out["_subms"] = v
        m = next((i for i, s in enumerate(self.segments) if s.names_measure), None)
        if m is None:
            out["_event_row"] = keys.to_numpy()
        else:
            rest = [t for i, t in enumerate(texts) if i != m]
            er = rest[0] if rest else pd.Series([""] * len(keys), dtype=object)
            for t in rest[1:]:
                er = er + "\x00" + t
            out["_event_row"] = er.to_numpy()
        return out


def _first_misfit(keys: pd.Series, parts: pd.DataFrame, total: int) -> str:
    """The first key that does not split into ``total`` parts, quoted: a part too few (NaN in
    the template's columns) or too many (text past them). Not the first key: in a read of
    many rows, the one that breaks the template is the one to show."""
    if parts.shape[1] < total:  # not one key has every part
        return repr(keys.iloc[0]) if len(keys) else "?"
    short = parts.iloc[:, :total].isna().any(axis=1)
    wrong = short | parts.iloc[:, total:].notna().any(axis=1)
    bad = keys[wrong.to_numpy()]
    return repr(bad.iloc[0]) if len(bad) else "?"


def heroic_key(
    key: str = "key", tags: tuple[str, ...] = (), resources: tuple[str, ...] = (), bits: int = 32
) -> RowKey:
    """Heroic's row key: ``key,tag=value…,base,resource…`` (tags and resources sorted by name)."""
    segs: list[Segment] = [Field(key)]
    if tags:
        segs.append(Tags(tuple(tags)))
    segs.append(BaseTimestamp(bits))
    segs += [Field(r) for r in sorted(resources)]
    return RowKey(tuple(segs), ",")
