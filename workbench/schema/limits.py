"""Cloud Bigtable's size limits (which the emulator does not enforce) and cell collisions.

Hard limits raise :class:`LimitError` naming the offending row; advisory limits
become :class:`Finding` objects (and a warning) so figures and the advisor can
show them (G10, G19, G20). A collision is two events that would be stored in the
same cell: Bigtable keeps one and the other is silently gone (G31).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..cells import CellFrame, bytes_len, utf8_len
from ..errors import CollisionError, LimitError
from ..formatting import EVENTS_CLASS, value

KiB = 1024
MB = 1_000_000
ROW_KEY_MAX = 4 * KiB
QUALIFIER_MAX = 16 * KiB
CELL_ADVISORY = 10 * MB
# cell and row sizes in decimal MB, as Bigtable's quotas page states them (10 MB / 100 MB per
# cell, 100 MB / 256 MB per row); a key's and a qualifier's in KiB, as the API states a key's "up
# to 4KiB". One set of numbers: Settings' defaults are these (analysis/settings.py), so what
# to_cells refuses and what the row-size table calls over the hard limit are one figure.
CELL_MAX = 100 * MB
ROW_ADVISORY = 100 * MB
ROW_MAX = 256 * MB


@dataclass(frozen=True)
class Finding:
    """An advisory limit crossed: not an error, but a design smell with a guideline ID."""

    guideline: str
    message: str
    row_key: str | None = None
    table: str = "main"

    def __str__(self) -> str:
        return f"[{self.guideline}] {self.message}"


class LimitWarning(UserWarning):
    """An advisory Cloud Bigtable limit is crossed (rows > 100 MB, cells > 10 MB)."""


def _lengths_by_unique(s: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    codes, uniques = pd.factorize(s)
    return codes, utf8_len(pd.Series(uniques, dtype=object))


def check_limits(cells: CellFrame, *, warn: bool = True) -> list[Finding]:
    """Raise :class:`LimitError` for a key > 4 KiB, qualifier > 16 KiB, cell > 100 MB or
    row > 256 MB; return findings for cells > 10 MB and rows > 100 MB (advisory)."""
    f = cells.frame
    findings: list[Finding] = []
    if len(f) == 0:
        return findings
    kcodes, klen = _lengths_by_unique(f["row_key"])
    if (klen > ROW_KEY_MAX).any():
        i = int(np.argmax(klen > ROW_KEY_MAX))
        key = f["row_key"].iloc[int(np.flatnonzero(kcodes == i)[0])]
        raise LimitError(
            f"Row key of {int(klen[i]):,} bytes is over Cloud Bigtable's 4 KiB limit (G20): "
            f"{key[:80]!r}…. Shorten or drop key segments."
        )
    qcodes, qlen = _lengths_by_unique(f["qualifier"])
    if (qlen > QUALIFIER_MAX).any():
        i = int(np.argmax(qlen > QUALIFIER_MAX))
        row = f.iloc[int(np.flatnonzero(qcodes == i)[0])]
        raise LimitError(
            f"Qualifier of {int(qlen[i]):,} bytes in row {row['row_key']!r} is over the 16 KiB "
            "limit (G19). Keep qualifiers short; move big data into the value."
        )
    vlen = bytes_len(f["value"])
    if (vlen > CELL_MAX).any():
        row = f.iloc[int(np.argmax(vlen > CELL_MAX))]
        raise LimitError(
            f"A cell of {int(vlen.max()):,} bytes in row {row['row_key']!r} is over the 100 MB "
            "hard limit (G10)."
        )
    for j in np.flatnonzero(vlen > CELL_ADVISORY)[:20]:
        row = f.iloc[int(j)]
        findings.append(
            Finding(
                "G10",
                f"cell {row['family']}:{row['qualifier']} of {int(vlen[j]):,} bytes is over "
                "the 10 MB advice",
                row["row_key"],
                row["table"],
            )
        )
    qsize = qlen[qcodes]
    size = klen[kcodes] + utf8_len(f["family"]) + qsize + 8 + vlen
    groups = (
        pd.DataFrame({"t": f["table"].to_numpy(), "k": kcodes, "b": size})
        .groupby(["t", "k"], sort=False)["b"]
        .sum()
    )
    if len(groups) and groups.max() > ROW_MAX:
        (t, k), b = groups.idxmax(), int(groups.max())
        key = f["row_key"].iloc[int(np.flatnonzero(kcodes == k)[0])]
        raise LimitError(
            f"Row {key!r} in table {t!r} would hold {b:,} bytes, over the 256 MB hard limit "
            "(G10). Bound the row with a time bucket in the key, or use tall rows (G02)."
        )
    big = groups[groups > ROW_ADVISORY]
    for (t, k), b in big.head(20).items():
        key = f["row_key"].iloc[int(np.flatnonzero(kcodes == k)[0])]
        findings.append(
            Finding("G10", f"row of {int(b):,} bytes is over the 100 MB advice", key, t)
        )
    if findings and warn:
        warnings.warn(
            "; ".join(str(x) for x in findings[:3]) + (" …" if len(findings) > 3 else ""),
            LimitWarning,
            stacklevel=3,
        )
    return findings


# ----------------------------------------------------------------------------- collisions


@dataclass(frozen=True)
class LossReport:
    """What ``to_cells(..., accept_loss=True)`` dropped or rounded, so figures can show it."""

    lost: pd.DataFrame = field(default_factory=pd.DataFrame)  # events overwritten by a later one
    truncated: pd.DataFrame = field(default_factory=pd.DataFrame)  # events whose time was rounded
    kept_precision: str = "us"
    reason: str = ""

    @property
    def n_lost(self) -> int:
        return len(self.lost)

    @property
    def n_truncated(self) -> int:
        return len(self.truncated)

    def __bool__(self) -> bool:
        return bool(self.n_lost or self.n_truncated)

    def __deepcopy__(self, memo: dict) -> LossReport:  # immutable; pandas attrs copy on every op
        return self

    def __str__(self) -> str:
        if not self:
            return "no events lost"
        return (
            f"{self.n_lost:,} events lost to collisions, {self.n_truncated:,} times rounded to "
            f"{self.kept_precision}" + (f" ({self.reason})" if self.reason else "")
        )

    def _repr_html_(self) -> str:
        return f"<p><b>Loss</b>: {self}</p>" + (
            self.lost.head(5).to_html(index=False, float_format=value, classes=EVENTS_CLASS)
            if self.n_lost
            else ""
        )


def raise_collisions(
    frame: pd.DataFrame,
    events: pd.DataFrame,
    f: pd.DataFrame,
    dup: np.ndarray,
    time_col: str,
    hint: str,
) -> None:
    """CollisionError with a few example groups of colliding events."""
    d = f[dup]
    groups = d.groupby(["table", "row_key", "family", "qualifier"], sort=False)["_event"].unique()
    n_events = len(pd.unique(d["_event"]))
    lines = []
    for (_table, rk, fam, q), evs in groups.head(3).items():
        ex = events.iloc[list(evs[:3])]
        desc = "; ".join(", ".join(f"{c}={v}" for c, v in r.items()) for _, r in ex.iterrows())
        lines.append(f"  row {rk!r} cell {fam}:{q} ← {desc}")
    raise CollisionError(
        f"{n_events:,} events collide: they map to the same cell, so Bigtable would keep only one.\n"
        + "\n".join(lines)
        + f"\n{hint}"
    )


def check_parts(
    parts, table: str, versioned: bool, coded: Mapping[int, tuple] | None = None
) -> tuple[np.ndarray, list[Finding]]:
    """Collisions and limits computed per event-key array while cells are built (with
    :func:`check_limits`): a layout adds cells for many measures
    with the same key array, so keys are factorized once per event, not once per cell, and
    every check works on integer key codes (``np.bincount``) and per-distinct lengths.
    ``coded`` (``BuildInput.coded``) gives the codes the key renderer already made.

    Returns the per-cell collision mask (in ``parts.frame`` order) and advisory findings."""
    n_adds = len(parts.row_key)
    dups: list[np.ndarray | None] = [None] * n_adds
    findings: list[Finding] = []
    groups: dict[int, list[int]] = {}
    for i, rk in enumerate(parts.row_key):
        groups.setdefault(id(rk), []).append(i)
    for idx in groups.values():
        keys = parts.row_key[idx[0]]
        known = (coded or {}).get(id(keys))
        if known is not None and known[0] is keys:
            _, codes, uniq, klen = known
        else:
            codes, uniq = pd.factorize(keys)
            klen = utf8_len(pd.Series(uniq, dtype=object))
        if len(klen) and klen.max() > ROW_KEY_MAX:
            bad = uniq[int(np.argmax(klen))]
            raise LimitError(
                f"Row key of {int(klen.max()):,} bytes is over Cloud Bigtable's 4 KiB limit (G20): "
                f"{bad[:80]!r}…. Shorten or drop key segments."
            )
        n = len(codes)
        ts = parts.ts[idx[0]]
        per_key = np.bincount(codes, minlength=len(uniq)) if n else np.zeros(0, dtype=np.int64)
        shared = (
            per_key[codes] > 1 if n else np.zeros(0, dtype=bool)
        )  # events whose row key is not unique
        any_shared = bool(shared.any())
        ev_bytes = klen[codes].astype(
            np.int64
        )  # summed in place: one event-sized array, not one per term
        ev_bytes += 8
        ev_bytes *= len(idx)  # each add is one cell per event: key + timestamp each
        event_dup = None
        for i in idx:
            fam, q, val = parts.family[i], parts.qualifier[i], parts.value[i]
            flen = _text_len(fam)
            qlen = _text_len(q)
            qmax = (qlen.max() if len(qlen) else 0) if isinstance(qlen, np.ndarray) else qlen
            if qmax > QUALIFIER_MAX:
                j = int(np.argmax(qlen)) if isinstance(qlen, np.ndarray) else 0
                raise LimitError(
                    f"Qualifier of {int(qmax):,} bytes in row {keys[j]!r} is over the 16 KiB limit "
                    "(G19). Keep qualifiers short; move big data into the value."
                )
            if parts.value_len[i] is not None:
                vlen = parts.value_len[i]
            elif isinstance(val, bytes):
                vlen = np.full(n, len(val), dtype=np.int64)
            else:
                vlen = np.fromiter(map(len, val), dtype=np.int64, count=len(val))
            if len(vlen) and vlen.max() > CELL_MAX:
                j = int(np.argmax(vlen))
                raise LimitError(
                    f"A cell of {int(vlen[j]):,} bytes in row {keys[j]!r} is over the 100 MB hard "
                    "limit (G10)."
                )
            for j in np.flatnonzero(vlen > CELL_ADVISORY)[:20]:
                findings.append(
                    Finding(
                        "G10",
                        f"cell of {int(vlen[j]):,} bytes is over the 10 MB advice",
                        keys[j],
                        table,
                    )
                )
            ev_bytes += flen
            ev_bytes += qlen
            ev_bytes += vlen
            if parts.constant[i]:
                if event_dup is None:
                    event_dup = _duplicated(
                        shared, any_shared, {"k": codes, "t": ts} if versioned else None
                    )
                dups[i] = event_dup
            else:
                cols = {"k": codes}
                for name, v in (("f", fam), ("q", q)):
                    if not isinstance(v, str):
                        cols[name] = pd.factorize(v)[0]
                if versioned:
                    cols["t"] = ts
                dups[i] = _duplicated(shared, any_shared, cols)
        rows = (
            np.bincount(codes, weights=ev_bytes, minlength=len(uniq)) if len(codes) else np.zeros(0)
        )
        if len(rows) and rows.max() > ROW_MAX:
            j = int(np.argmax(rows))
            raise LimitError(
                f"Row {uniq[j]!r} in table {table!r} would hold {int(rows[j]):,} bytes, over the "
                "256 MB hard limit (G10). Bound the row with a time bucket in the key, or use "
                "tall rows (G02)."
            )
        for j in np.flatnonzero(rows > ROW_ADVISORY)[:20]:
            findings.append(
                Finding(
                    "G10",
                    f"row of {int(rows[j]):,} bytes is over the 100 MB advice",
                    uniq[j],
                    table,
                )
            )
    done = [d for d in dups if d is not None]  # every add's slot is filled above
    dup = np.concatenate(done) if done else np.zeros(0, dtype=bool)
    return dup, findings


def _text_len(v: np.ndarray | str) -> np.ndarray | int:
    """UTF-8 length of one text (a scalar) or of each text in an array."""
    if isinstance(v, str):
        return len(v.encode("utf-8"))
    return utf8_len(pd.Series(v, dtype=object))


def _duplicated(shared: np.ndarray, any_shared: bool, cols: dict | None) -> np.ndarray:
    """Cells sharing (key[, family, qualifier][, timestamp]) with another cell. Only events whose
    key is shared can collide, so the tuple hashing runs on those alone (usually none)."""
    if not any_shared or cols is None:
        return shared.copy()
    out = np.zeros(len(shared), dtype=bool)
    sub = np.flatnonzero(shared)
    out[sub] = (
        pd.DataFrame({k: np.asarray(v)[sub] for k, v in cols.items()})
        .duplicated(keep=False)
        .to_numpy()
    )
    return out
