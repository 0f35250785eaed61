"""Turn a table of events into a :class:`Dataset`, or say exactly what is wrong with it.

One code path: ``from_dataframe``, ``from_csv`` and every sample generator build
their Dataset with :func:`build_dataset`, so the samples obey the same rules as a
user's data (entity columns without gaps, UTC tz-aware time, numeric measures,
one event per entity and time, sorted by entity then time).

Every problem raises :class:`~workbench.errors.DatasetError` naming the column,
example rows and what to do. Nothing is dropped or changed silently: when the
caller chooses to keep one of several duplicate events, or to read naive times
in a named zone, the Dataset records it in ``dropped_duplicates`` and ``notes``.
The caller's DataFrame is never modified.

Why one module: it is the single code path every Dataset is built through; its checks
share the error wording and run in a fixed order, and splitting them would invite a second path.
"""

from __future__ import annotations

import difflib
import re
import warnings
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
from pandas.api import types as ptypes

from workbench.datasets.model import Dataset, QueryIntent, valueless_events, warn_intent_outside
from workbench.errors import DatasetError

Duplicates = Literal["error", "first", "last"]
DUPLICATE_CHOICES = ("error", "first", "last")
_EXAMPLES = 5

# A time-zone designator after a clock time: 'Z', '+01:00', '-0500', '+01', 'UTC', 'GMT'.
_TZ_SUFFIX = re.compile(
    r"\d:\d{2}(?::\d{2}(?:[.,]\d+)?)?\s*(?:[zZ]|[+-]\d{2}(?::?\d{2})?|UTC|GMT|utc|gmt)\s*$"
)


# -- message helpers --------------------------------------------------------------------
def _fmt_rows(labels: Sequence[Any], word: str = "row") -> str:
    labels = list(labels)
    shown = ", ".join(str(x) for x in labels[:_EXAMPLES])
    more = f" (and {len(labels) - _EXAMPLES:,} more)" if len(labels) > _EXAMPLES else ""
    return f"{word}{'s' if len(labels) != 1 else ''} {shown}{more}"


def closest_name(name: str, candidates: Iterable[str]) -> str | None:
    candidates = [str(c) for c in candidates]
    lowered = {c.lower(): c for c in candidates}
    if name.lower() in lowered:
        return lowered[name.lower()]
    # 'temperature' for 'temp', 'garden_temp' for 'garden_temperature': a prefix is a strong hint
    prefixed = [
        c
        for c in candidates
        if min(len(c), len(name)) >= 3
        and (c.lower().startswith(name.lower()) or name.lower().startswith(c.lower()))
    ]
    if prefixed:
        return max(prefixed, key=len) if len(prefixed) > 1 else prefixed[0]
    hit = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
    if not hit:
        hit = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.6)
        hit = [lowered[h] for h in hit]
    return hit[0] if hit else None


def suggestion(name: str, candidates: Iterable[str]) -> str:
    """' Did you mean 'x'?' or '' — shared by column, dataset and size errors."""
    best = closest_name(name, candidates)
    return f" Did you mean {best!r}?" if best is not None else ""


def _as_list(value: str | Sequence[str] | None, role: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    try:
        items = list(value)
    except TypeError:
        raise DatasetError(
            f"{role} must be a column name or a list of column names, not {value!r}."
        ) from None
    for item in items:
        if not isinstance(item, str):
            raise DatasetError(
                f"{role} must name columns by their (string) names; got {item!r} in {items!r}."
            )
    return items


# -- the checks ---------------------------------------------------------------------------
def _check_columns(frame: pd.DataFrame, roles: dict[str, list[str]]) -> None:
    dup_cols = frame.columns[frame.columns.duplicated()].tolist()
    if dup_cols:
        raise DatasetError(
            f"The frame has more than one column named {dup_cols}; rename them so each is unique."
        )
    available = [str(c) for c in frame.columns]
    problems = []
    for role, cols in roles.items():
        for col in cols:
            if col not in frame.columns:
                problems.append(
                    f"{role} column {col!r} is not in the frame.{suggestion(col, available)}"
                )
    if problems:
        raise DatasetError(" ".join(problems) + f" The frame's columns are: {available}.")
    seen: dict[str, str] = {}
    for role, cols in roles.items():
        for col in cols:
            if cols.count(col) > 1:
                raise DatasetError(f"Column {col!r} is listed twice as {role}.")
            if col in seen and seen[col] != role:
                raise DatasetError(
                    f"Column {col!r} is given both as {seen[col]} and as {role}; "
                    "each column has one role."
                )
            seen[col] = role


def _blank_mask(col: pd.Series) -> np.ndarray:
    """Missing values, and empty or whitespace-only strings."""
    mask = col.isna().to_numpy()
    if ptypes.is_string_dtype(col.dtype) or col.dtype == object:
        # check the distinct values only: entity columns repeat a few values many times
        uniques = pd.unique(col.to_numpy(dtype=object))
        blanks = [u for u in uniques if isinstance(u, str) and u.strip() == ""]
        if blanks:
            mask = mask | col.isin(blanks).to_numpy(dtype=bool)
    return mask


def _entity_error(
    frame: pd.DataFrame, col: str, blank: np.ndarray, word: str, empty_ok: Sequence[str]
) -> DatasetError:
    return DatasetError(
        f"Entity column {col!r} is missing or empty in {blank.sum():,} of {len(frame):,} rows "
        f"({_fmt_rows(frame.index[blank], word)}). Every event needs its entity to pick a row key: "
        f"fill or drop those rows first (e.g. df.dropna(subset=[{col!r}]))"
        + (
            "."
            if col in empty_ok
            else f", or pass empty_ok=[{col!r}] if an empty value means "
            "'absent' (as a Heroic tag does)."
        )
    )


def _entity_codes(
    frame: pd.DataFrame, entity: list[str], word: str, empty_ok: Sequence[str] = ()
) -> list[np.ndarray]:
    """Sort codes of each entity column (one hashing pass also finds missing and empty values)."""
    codes = []
    for col in entity:
        s = frame[col]
        if ptypes.is_float_dtype(s.dtype):
            blank = s.isna().to_numpy()
            if blank.any():
                raise _entity_error(frame, col, blank, word, empty_ok)
            raise DatasetError(
                f"Entity column {col!r} holds floating-point numbers; row keys need exact identifiers. "
                f"Convert it to integers or strings first (e.g. df[{col!r}].astype('int64'))."
            )
        try:
            c, uniques = pd.factorize(s, sort=True)
        except TypeError:
            blank = s.isna().to_numpy() if col in empty_ok else _blank_mask(s)
            if blank.any():
                raise _entity_error(frame, col, blank, word, empty_ok) from None
            kinds = sorted({type(v).__name__ for v in s.to_numpy(dtype=object)})
            raise DatasetError(
                f"Entity column {col!r} mixes value types {kinds}; they cannot be ordered. "
                f"Make them one type, e.g. df[{col!r}].astype(str)."
            ) from None
        blank = c < 0
        if col not in empty_ok:
            empties = [
                i
                for i, u in enumerate(np.asarray(uniques, dtype=object))
                if isinstance(u, str) and u.strip() == ""
            ]
            if empties:
                blank = blank | np.isin(c, empties)
        if blank.any():
            raise _entity_error(frame, col, blank, word, empty_ok)
        codes.append(c)
    return codes


def _parse_strings(text: pd.Series, utc: bool) -> pd.Series:
    """Fast formats first (inferred, ISO 8601), then element-wise; unparseable → NaT."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for fmt in (None, "ISO8601"):
            try:
                return pd.to_datetime(text, utc=utc, format=fmt)
            except (ValueError, TypeError, OverflowError):
                continue
        return pd.to_datetime(text, utc=utc, format="mixed", errors="coerce")


def _naive_error(col: str, example_label: Any, example: Any, word: str) -> DatasetError:
    return DatasetError(
        f"Time column {col!r} holds times without a time zone (e.g. {word} {example_label}: {str(example)!r}). "
        "The workbench keeps every time in UTC and will not guess the zone: pass naive_tz='UTC' if these "
        "are UTC times, or the zone they were recorded in (an IANA name such as 'Europe/Paris')."
    )


def _localize(parsed: pd.Series, col: str, naive_tz: str, word: str, index: pd.Index) -> pd.Series:
    try:
        return parsed.dt.tz_localize(
            naive_tz, ambiguous="raise", nonexistent="raise"
        ).dt.tz_convert("UTC")
    except Exception as exc:  # unknown zone name, or a DST gap/overlap
        # find the offending rows when it is a DST problem
        try:
            nat = (
                parsed.dt.tz_localize(naive_tz, ambiguous="NaT", nonexistent="NaT")
                .isna()
                .to_numpy()
            )
        except Exception:
            nat = np.zeros(len(parsed), dtype=bool)
        where = (
            f" ({_fmt_rows(index[nat], word)}: {parsed[nat].astype(str).head(3).tolist()})"
            if nat.any()
            else ""
        )
        raise DatasetError(
            f"Cannot read the naive times of column {col!r} in zone {naive_tz!r}: {exc}{where}. "
            "Times inside a daylight-saving change are ambiguous or do not exist: store UTC times "
            "(or times with an offset) instead."
        ) from None


def parse_time(
    col: pd.Series, name: str, naive_tz: str | None, word: str = "row"
) -> tuple[pd.Series, list[str]]:
    """The column as UTC tz-aware datetimes, plus notes on what was assumed."""
    notes: list[str] = []
    index = col.index
    dtype = col.dtype
    blank = _blank_mask(col)
    if blank.any():
        raise DatasetError(
            f"Time column {name!r} is missing or empty in {blank.sum():,} of {len(col):,} rows "
            f"({_fmt_rows(index[blank], word)}). Every event needs a time: fill or drop those rows first."
        )
    if isinstance(dtype, pd.DatetimeTZDtype):
        return col.dt.tz_convert("UTC"), notes
    if ptypes.is_datetime64_dtype(dtype):
        if naive_tz is None:
            raise _naive_error(name, index[0], col.iloc[0], word)
        notes.append(
            f"time column {name!r} had no time zone; read as {naive_tz} (naive_tz={naive_tz!r})."
        )
        return _localize(col, name, naive_tz, word, index), notes
    if ptypes.is_bool_dtype(dtype) or ptypes.is_numeric_dtype(dtype):
        raise DatasetError(
            f"Time column {name!r} holds numbers ({dtype}), not times; their unit is ambiguous. Convert it "
            f"first, e.g. df[{name!r}] = pd.to_datetime(df[{name!r}], unit='s' or 'ms', utc=True)."
        )
    # strings, or Python datetimes in an object column: their text shows whether they carry a zone
    values = col.to_numpy(dtype=object)
    text = col.astype(str).str.strip()
    aware = text.str.contains(_TZ_SUFFIX).to_numpy(dtype=bool)
    source = text
    parsed = _parse_strings(source, utc=True)
    bad = parsed.isna().to_numpy()
    if bad.any():
        raise DatasetError(
            f"Time column {name!r} has {bad.sum():,} values that are not times ({_fmt_rows(index[bad], word)}: "
            f"{[str(v) for v in values[bad][:_EXAMPLES]]}). Fix or drop them; ISO 8601 such as "
            "'2015-03-01T07:00:00Z' always works."
        )
    if aware.any() and not aware.all():
        a, n = np.flatnonzero(aware)[:2], np.flatnonzero(~aware)[:2]
        raise DatasetError(
            f"Time column {name!r} mixes times with a time zone ({aware.sum():,} rows, e.g. "
            + ", ".join(f"{word} {index[i]}: {str(values[i])!r}" for i in a)
            + f") and times without one ({(~aware).sum():,} rows, e.g. "
            + ", ".join(f"{word} {index[i]}: {str(values[i])!r}" for i in n)
            + "). The zone of the naive ones is unknown: give every time an offset (or none, and pass naive_tz)."
        )
    if aware.all():
        return parsed, notes
    if naive_tz is None:
        raise _naive_error(name, index[0], values[0], word)
    naive = _parse_strings(source, utc=False)
    if isinstance(naive.dtype, pd.DatetimeTZDtype):  # a designator the pattern did not know
        raise DatasetError(
            f"Time column {name!r}: some times carry a zone pandas recognises; pass them with "
            "explicit offsets (e.g. '+00:00') and leave naive_tz unset."
        )
    notes.append(
        f"time column {name!r} had no time zone; read as {naive_tz} (naive_tz={naive_tz!r})."
    )
    return _localize(naive, name, naive_tz, word, index), notes


_NS_MIN, _NS_MAX = pd.Timestamp.min.tz_localize("UTC"), pd.Timestamp.max.tz_localize("UTC")


def _time_text(ts: pd.Timestamp) -> str:
    """``ts`` as ``YYYY-MM-DD HH:MM:SS`` from its fields: ``strftime`` refuses the years Python's
    datetime lacks (year 0000, which pandas' µs times hold), so an error naming one would
    itself fail."""
    return (
        f"{ts.year:04d}-{ts.month:02d}-{ts.day:02d} {ts.hour:02d}:{ts.minute:02d}:{ts.second:02d}"
    )


def _check_time_range(t: pd.Series, name: str, word: str) -> None:
    """Times pandas parses (years 1 to 9999, in µs) but cannot hold as nanoseconds: the
    workbench computes times in nanoseconds (``Timestamp.value``, ``datetime64[ns]``), so a time
    after 2262-04-11 or before 1677-09-21 would end in an OverflowError deep in an analysis."""
    outside = ((t > _NS_MAX) | (t < _NS_MIN)).to_numpy(dtype=bool)
    if not outside.any():
        return
    i = np.flatnonzero(outside)
    shown = ", ".join(f"{word} {t.index[j]}: {_time_text(t.iloc[j])}" for j in i[:3])
    raise DatasetError(
        f"Time column {name!r} holds {len(i):,} time(s) outside {_NS_MIN:%Y-%m-%d %H:%M:%S} to "
        f"{_NS_MAX:%Y-%m-%d %H:%M:%S} UTC ({shown}), the span pandas' nanosecond times hold "
        "(pandas.Timestamp.min/max) and the workbench computes in. A far-future date such as "
        "9999-12-31 often stands for 'no end': drop those rows or give the real time. "
        "Nothing was loaded."
    )


def _check_measure(col: pd.Series, name: str, word: str) -> tuple[pd.Series, list[str]]:
    notes: list[str] = []
    if isinstance(col.dtype, pd.ArrowDtype) and str(col.dtype).startswith("decimal"):
        col = col.astype(object)  # Decimal values, checked one by one below (not cast blindly)
    dtype = col.dtype
    if (
        ptypes.is_datetime64_any_dtype(dtype)
        or ptypes.is_timedelta64_dtype(dtype)
        or isinstance(dtype, pd.PeriodDtype)
    ):
        raise DatasetError(
            f"Measure column {name!r} holds times ({dtype}), not numbers; there is one time column per event. "
            f"Store it as an attribute (attributes=[{name!r}]) or convert it to a number with a unit first."
        )
    if ptypes.is_extension_array_dtype(dtype) and (
        ptypes.is_bool_dtype(dtype) or ptypes.is_numeric_dtype(dtype)
    ):
        out, note = _nullable_to_numpy(col, name)
        notes += [note] if note else []
    elif ptypes.is_bool_dtype(dtype) or (
        ptypes.is_numeric_dtype(dtype) and not ptypes.is_complex_dtype(dtype)
    ):
        out = col
    else:
        values = col.to_numpy(dtype=object)
        if len(values) and all(isinstance(v, (bool, np.bool_)) for v in values):
            out = col.astype(bool)
        else:
            converted = pd.to_numeric(
                col.astype(object).map(lambda v: v.strip() if isinstance(v, str) else v),
                errors="coerce",
            )
            bad = converted.isna().to_numpy() & ~_blank_mask(col)
            if bad.any() or ptypes.is_complex_dtype(dtype):
                bad_vals = list(dict.fromkeys(str(v) for v in values[bad]))[:_EXAMPLES]
                raise DatasetError(
                    f"Measure column {name!r} holds values that are not numbers ({bad.sum():,} rows, "
                    f"{_fmt_rows(col.index[bad], word)}: {bad_vals}). Measures must be numbers or booleans; "
                    "put text in an attribute (attributes=[...]) or convert it first."
                )
            check_exact_integers(col, converted, name, word)
            notes += check_exact_decimals(values, converted, col.index, name, word)
            out = converted
            notes.append(
                f"measure {name!r} was {dtype} (not numeric); converted to numbers ({out.dtype})."
            )
    if ptypes.is_float_dtype(out.dtype):
        arr = (  # a view for NumPy floats: no copy of a 10-million-event column
            out.to_numpy()
            if isinstance(out.dtype, np.dtype)
            else out.to_numpy(dtype=float, na_value=np.nan)
        )
        inf = np.isinf(arr)
        if inf.any():
            shown = [str(v) for v in col.to_numpy(dtype=object)[inf][:_EXAMPLES]]
            raise DatasetError(
                f"Measure column {name!r} holds {inf.sum():,} infinite value(s) "
                f"({_fmt_rows(col.index[inf], word)}: {shown}): a number beyond float64's "
                "±1.8e308, or inf itself, cannot be stored and compared. Fix or drop those rows "
                "(an unknown value can stay empty)."
            )
    missing = int(out.isna().sum())
    if missing:
        notes.append(
            f"measure {name!r} is missing in {missing:,} events: a missing value is stored as no "
            "cell (Bigtable is sparse) and read back as missing (NaN); Schema(missing='NaN') "
            "writes that text instead."
        )
    return out, notes


_INTEGER_TEXT = r"^\s*[+-]?\d{16,}\s*$"  # 16+ digits: where float64 may round an integer


def check_exact_integers(col: pd.Series, converted: pd.Series, name: str, word: str) -> None:
    """Integers (as text, or Python ints past int64 as pandas reads 22 digits) that float64
    cannot hold exactly (over 2^53) are refused, not rounded without a word."""
    text = col.astype(object).map(
        lambda v: (
            v
            if isinstance(v, str)
            else str(v)
            if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
            else ""
        )
    )
    long_int = text.str.match(_INTEGER_TEXT).to_numpy(dtype=bool)
    if not long_int.any():
        return
    idx = np.flatnonzero(long_int)
    lost = [
        i
        for i in idx
        if np.isfinite(converted.iloc[i]) and int(text.iloc[i]) != int(converted.iloc[i])
    ]
    if lost:
        i = lost[0]
        raise DatasetError(
            f"Measure column {name!r} holds integers float64 cannot store exactly ({len(lost):,} "
            f"rows, {_fmt_rows(col.index[lost], word)}: {text.iloc[i].strip()!r} would become "
            f"{int(converted.iloc[i]):,}); measures are float64 or int64, exact only to "
            "2^53 = 9,007,199,254,740,992. Store such identifiers as an attribute "
            f"(attributes=[{name!r}]) or as text in the entity, or scale them first."
        )


def check_exact_decimals(
    values: np.ndarray, converted: pd.Series, index: pd.Index, name: str, word: str
) -> list[str]:
    """Decimals (Parquet ``decimal128``, Python ``Decimal``) are stored as float64 only when the
    float's shortest text is the same number (``12.50`` → ``12.5``); a decimal with more digits
    than float64 keeps (about 15 to 17 significant) is refused, naming the row, not rounded."""
    import decimal

    at = [i for i, v in enumerate(values) if isinstance(v, decimal.Decimal) and v.is_finite()]
    if not at:
        return []
    lost = [i for i in at if decimal.Decimal(repr(float(converted.iloc[i]))) != values[i]]
    if lost:
        i = lost[0]
        raise DatasetError(
            f"Measure column {name!r} holds decimals float64 cannot store exactly ({len(lost):,} "
            f"of {len(at):,}, {_fmt_rows(index[lost], word)}: {values[i]} would become "
            f"{float(converted.iloc[i])!r}); measures are float64, exact to 15 significant "
            "digits. Keep the column as text in an attribute (attributes=[...]; cast it to "
            "string first), or scale or round it where the file is written. Nothing was loaded."
        )
    return [
        f"measure {name!r} holds decimals ({len(at):,}); each is stored as the float64 that "
        "reads back as the same number (checked value by value)."
    ]


def _nullable_to_numpy(col: pd.Series, name: str) -> tuple[pd.Series, str | None]:
    """A pandas nullable / Arrow measure (``Int64``, ``boolean``, ``Float64``, ``int64[pyarrow]``) as the
    NumPy dtype the schema engine stores and reads back: its own when nothing is missing, float64
    (missing -> NaN) when something is."""
    dtype = col.dtype
    missing = bool(col.isna().any())
    numpy_dtype = getattr(dtype, "numpy_dtype", None)
    if not missing and numpy_dtype is not None:
        return col.astype(numpy_dtype), None
    out = col.astype("float64")
    note = f"measure {name!r} was {dtype} with missing values; stored as float64 (missing -> NaN)"
    if ptypes.is_integer_dtype(dtype) and (col.abs() > 2**53).any():
        note += (
            "; integers beyond 2**53 lose precision in float64, fill the gaps to keep them exact"
        )
    return out, note + "."


def _order_and_duplicates(codes: list[np.ndarray]) -> tuple[np.ndarray | None, np.ndarray]:
    """(sorting permutation or None when already sorted, mask 'same key as the previous sorted row')."""
    n = len(codes[0])

    def compare(cs: list[np.ndarray]) -> tuple[bool, np.ndarray]:
        eq = np.ones(max(n - 1, 0), dtype=bool)
        wrong = np.zeros(max(n - 1, 0), dtype=bool)
        for k in cs:
            a, b = k[:-1], k[1:]
            wrong |= eq & (b < a)
            eq &= a == b
        return bool(wrong.any()), eq

    unsorted, eq = compare(codes)
    if not unsorted:
        return None, eq
    order = np.lexsort(codes[::-1])  # stable: equal keys keep the caller's order
    _, eq = compare([k[order] for k in codes])
    return order, eq


def check_intent(q: QueryIntent, ds: Dataset) -> None:
    """One query against a dataset's columns (e.g. an ad-hoc intent given to ``table.run``): a misspelled
    column would otherwise plan a silent full-table scan; a window outside the data's span
    is warned about (it returns 0 events)."""
    check_queries([q], list(ds.entity), list(ds.measures))
    warn_intent_outside(q, ds)


def check_queries(
    queries: Sequence[QueryIntent], entity: list[str], measures: list[str]
) -> list[QueryIntent]:
    out = []
    for q in queries:
        if not isinstance(q, QueryIntent):
            raise DatasetError(f"queries must be QueryIntent objects; got {q!r}.")
        for col in q.entity:
            if col not in entity:
                raise DatasetError(
                    f"Query {q.name!r} fixes {col!r}, which is not an entity column "
                    f"{entity}.{suggestion(col, entity)}"
                )
        for m in q.measures or ():
            if m not in measures:
                raise DatasetError(
                    f"Query {q.name!r} asks for measure {m!r}, not one of {measures}."
                    f"{suggestion(m, measures)}"
                )
        out.append(q)
    names = [q.name for q in out]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise DatasetError(f"Query names must be unique; repeated: {twice}.")
    return out


# -- the one entry point ------------------------------------------------------------------
def _check_arguments(
    frame: Any, entity: Any, time: Any, measures: Any, duplicates: Any
) -> tuple[list[str], list[str]]:
    """The call itself before any column is read: a DataFrame with events, one time column,
    entity and measure names given, a known ``duplicates`` choice. Returns the name lists."""
    if not isinstance(frame, pd.DataFrame):
        raise DatasetError(f"Expected a pandas DataFrame of events, got {type(frame).__name__}.")
    if not isinstance(time, str):
        raise DatasetError(f"time must be the name of one column, got {time!r}.")
    entity_l = _as_list(entity, "entity")
    measures_l = _as_list(measures, "measures")
    if not entity_l:
        raise DatasetError(
            "entity is empty: name the column(s) that identify a series. For one series, leave "
            "entity out (entity=None): the workbench adds a constant column 'series'."
        )
    if not measures_l:
        raise DatasetError("measures is empty: name at least one numeric column to store.")
    if duplicates not in DUPLICATE_CHOICES:
        raise DatasetError(
            f"duplicates={duplicates!r} is not one of {list(DUPLICATE_CHOICES)} "
            "(error: refuse; first/last: keep that event of each repeated entity and time)."
        )
    if frame.shape[1] == 0 or len(frame) == 0:
        raise DatasetError(
            f"The frame is empty ({len(frame)} rows, {frame.shape[1]} columns): there are no "
            "events to design a schema for."
        )
    return entity_l, measures_l


def _drop_repeats(
    out: pd.DataFrame,
    same: np.ndarray,
    labels: pd.Index,
    entity_l: list[str],
    time: str,
    duplicates: Duplicates,
    row_word: str,
    notes: list[str],
) -> tuple[pd.DataFrame, int]:
    """Events that repeat an (entity, time) — ``same[i]``: sorted event ``i + 1`` repeats
    event ``i`` — refused with up to three examples named by the user's rows, or all but the
    first or last of each kept (a note says how many were dropped). Returns the frame and the
    count dropped."""
    if not same.any():
        return out, 0
    n_extra = int(same.sum())
    starts = np.flatnonzero(
        same & ~np.concatenate([[False], same[:-1]])
    )  # first repeat of each group
    examples = []
    for i in starts[:3]:
        j = i + 1
        while j < len(same) and same[j]:
            j += 1
        key = ", ".join(f"{c}={out.iloc[i][c]!r}" for c in entity_l)
        examples.append(
            f"({key}, {time}={out.iloc[i][time]}) at {_fmt_rows(labels[i : j + 1], row_word)}"
        )
    if duplicates == "error":
        raise DatasetError(
            f"{n_extra:,} events repeat an (entity, time) already present ({len(starts):,} repeated keys), "
            f"e.g. "
            + "; ".join(examples)
            + ". One cell per entity and time cannot hold both. Pass "
            "duplicates='first' or 'last' to keep one of each (the Dataset records how many were dropped), "
            "or add the column that tells them apart to the entity."
        )
    keep = np.ones(len(out), dtype=bool)
    if duplicates == "first":
        keep[1:][same] = False
    else:
        keep[:-1][same] = False
    out = out[keep]
    dropped = n_extra
    notes.append(
        f"{dropped:,} duplicate events dropped (duplicates={duplicates!r}), "
        f"e.g. " + "; ".join(examples) + "."
    )
    return out, dropped


def build_dataset(
    frame: pd.DataFrame,
    *,
    entity: str | Sequence[str],
    time: str,
    measures: str | Sequence[str],
    attributes: str | Sequence[str] | None = None,
    units: dict[str, str] | None = None,
    name: str = "custom",
    duplicates: Duplicates = "error",
    naive_tz: str | None = None,
    queries: Sequence[QueryIntent] | None = None,
    description: str = "",
    size: str = "custom",
    seed: int | None = None,
    row_word: str = "row",
    empty_ok: Sequence[str] = (),
) -> Dataset:
    """Validate ``frame`` and return a Dataset (see the module docstring for the rules).

    ``attributes=None`` keeps every other column as an attribute; an explicit list
    keeps only those and records the columns left out in ``notes``. ``empty_ok`` names
    entity columns where ``""`` is a value meaning "absent" (Heroic tags); missing
    values are still refused there.

    The rules run in the order the module docstring lists, each on the frame the previous one
    left, so every message can name the row as the user's file numbers it: the call's own
    arguments (:func:`_check_arguments`), the columns, each column's values, then the repeated
    (entity, time) events (:func:`_drop_repeats`).
    """
    entity_l, measures_l = _check_arguments(frame, entity, time, measures, duplicates)
    roles = {"entity": entity_l, "time": [time], "measure": measures_l}
    if attributes is not None:
        roles["attribute"] = _as_list(attributes, "attributes")
    _check_columns(frame, roles)
    used = {*entity_l, time, *measures_l}
    others = [str(c) for c in frame.columns if c not in used]
    notes: list[str] = []
    if attributes is None:
        attrs = others
    else:
        attrs = roles["attribute"]
        left_out = [c for c in others if c not in attrs]
        if left_out:
            notes.append(
                f"columns left out (not named as entity, time, measure or attribute): {left_out}."
            )
    units = dict(units or {})
    for key in units:
        if key not in measures_l and key not in attrs:
            raise DatasetError(
                f"units names {key!r}, which is not a measure {measures_l}.{suggestion(key, measures_l)}"
            )

    # A new frame: the caller's DataFrame is never modified (pandas copy-on-write).
    empty_ok = _as_list(list(empty_ok), "empty_ok")
    for col in empty_ok:
        if col not in entity_l:
            raise DatasetError(
                f"empty_ok names {col!r}, which is not an entity column {entity_l}."
                f"{suggestion(col, entity_l)}"
            )
    entity_codes = _entity_codes(frame, entity_l, row_word, empty_ok)
    cols: dict[str, pd.Series] = {c: frame[c] for c in entity_l}
    cols[time], time_notes = parse_time(frame[time], time, naive_tz, row_word)
    _check_time_range(cols[time], time, row_word)
    notes += time_notes
    for m in measures_l:
        cols[m], m_notes = _check_measure(frame[m], m, row_word)
        notes += m_notes
    for a in attrs:
        cols[a] = frame[a]
    out = pd.DataFrame(
        cols, index=frame.index, copy=False
    )  # copy-on-write keeps the caller's frame intact

    order, same = _order_and_duplicates([*entity_codes, np.asarray(out[time].array.asi8)])
    labels = frame.index if order is None else frame.index[order]
    if order is not None:
        out = out.take(order)
    out, dropped = _drop_repeats(out, same, labels, entity_l, time, duplicates, row_word, notes)
    out = out.reset_index(drop=True)
    empty = valueless_events(out, [*measures_l, *attrs])
    if empty is not None:
        notes.append(
            f"{int(empty.sum()):,} events have no value at all (every measure"
            + (" and attribute" if attrs else "")
            + " missing): they have no cell and no row in Bigtable, so a read-back, and "
            "ds.canonical(), leave them out."
        )
    return Dataset(
        name=name,
        frame=out,
        entity=entity_l,
        time=time,
        measures=measures_l,
        attributes=attrs,
        units=units,
        queries=check_queries(list(queries or []), entity_l, measures_l),
        description=description,
        size=size,
        seed=seed,
        dropped_duplicates=dropped,
        notes=notes,
    )
