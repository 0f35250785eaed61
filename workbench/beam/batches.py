"""A bulk load's batches of events: held to the design's dtypes and time precision (what one
load of all the events would write), and keyed for the steps that need events together —
summary rows (G29) by (entity, bucket), aggregate families by entity."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import apache_beam as beam
import numpy as np
import pandas as pd
from apache_beam.metrics import Metrics

from ..errors import DatasetError
from .sources import NAMESPACE, count

if TYPE_CHECKING:  # pragma: no cover
    from .bulk_load import Plan

_PRECISIONS = ("second", "ms", "us")


def check_precision(ds: Any, precision: str | None, where: str) -> None:
    """A design built from the first events keys their time precision (G31); a batch needing
    a finer one would be written under coarser keys than one load of all the events chooses."""
    from ..schema.gallery import time_precision

    if precision is None:
        return
    need = time_precision(ds)
    if _PRECISIONS.index(need) > _PRECISIONS.index(precision):
        raise DatasetError(
            f"{where} holds times with {need} precision, but the first events the design was "
            f"derived from need only {precision}s, so its keys keep {precision}s (G31) and one "
            f"load of all the events would key {need}. Derive the design from more events "
            "(--sample-events, so that they include such a time) or put a file with such "
            "times first. Nothing more was written."
        )


def conform(frame: pd.DataFrame, dtypes: Iterable[tuple[str, str]], where: str) -> pd.DataFrame:
    """The batch's columns in the design's dtypes where only their kind differs (integers read
    as floats in one batch, floats in another): a value's text follows its dtype (``5`` or
    ``5.0``), so every batch must write what one load of all the events writes."""
    out = frame
    for col, want in dtypes:
        if col not in out.columns or str(out[col].dtype) == want:
            continue
        have_kind, want_kind = out[col].dtype.kind, np.dtype(want).kind if want[0] in "fiub" else ""
        if (have_kind, want_kind) not in {("i", "f"), ("f", "i"), ("u", "f"), ("f", "u")}:
            continue
        v = out[col].to_numpy()
        with np.errstate(invalid="ignore"):
            cast = v.astype(want)
        if not np.array_equal(cast.astype(v.dtype), v):  # NaN, fractions or beyond 2^53
            raise DatasetError(
                f"Column {col!r} is {want} in the first events the design was derived from, "
                f"but {where} holds values that are not ({out[col].dtype}: a missing value or a "
                f"fraction). One load of all the events would write every {col!r} value as a "
                "float: derive the design from more events (--sample-events, so that they "
                "include such a value) or write the column as floats in every file."
            )
        out = out.assign(**{col: cast})
    return out


def by_entity(frame: pd.DataFrame, entity: tuple[str, ...]) -> Iterator[tuple[Any, pd.DataFrame]]:
    """(entity values as text, that entity's events in this batch)."""
    if not entity:
        yield ("",), frame
        return
    for key, part in frame.groupby(list(entity), sort=False, dropna=False):
        values = key if isinstance(key, tuple) else (key,)
        yield tuple(str(v) for v in values), part


GROUP_EVENTS = 20_000  # events a summary group aims at (a few buckets of one entity)


def bucket_index(t: np.ndarray, bucket: str) -> np.ndarray:
    """µs times → the number of their summary bucket (hours, days, Monday weeks, months since
    the epoch): consecutive buckets have consecutive numbers, so ``n // span`` gathers ``span``
    whole buckets and never cuts one."""
    from ..schema.time_text import US_PER_DAY, US_PER_S, floor_us

    start = floor_us(t, bucket)
    if bucket == "month":
        return start.astype("datetime64[us]").astype("datetime64[M]").astype(np.int64)
    if bucket == "week":
        return (start // US_PER_DAY - 4) // 7  # 1970-01-05, day 4, was a Monday
    steps = {"day": US_PER_DAY, "hour": 3600 * US_PER_S, "minute": 60 * US_PER_S}
    return start // steps.get(bucket, 1)


def group_keys(events: pd.DataFrame, time: str, schema: Any, span: int) -> pd.DataFrame:
    """Each event's summary group: the entity columns of the summary rows' key (as text) and
    ``_group``, its bucket's number ÷ ``span``."""
    from ..schema.time_text import time_us

    agg = schema.aggregates
    ents = list(agg.key(schema.key).columns())
    n = bucket_index(time_us(events[time]), agg.bucket)
    return events[ents].astype(str).assign(_group=n // span)


def group_span(sample: Any, schema: Any, target: int) -> int:
    """Summary buckets per group: as many as keep a group near ``target`` events at the
    busiest (entity, bucket) of the first events (at least one bucket)."""
    keys = group_keys(sample.frame, sample.time, schema, 1)
    busiest = int(keys.groupby(list(keys.columns), sort=False).size().max()) if len(keys) else 1
    return max(1, target // max(1, busiest))


class BatchChecks:
    """The input checks of one batch (``from_dataframe``'s, the design's dtypes and time
    precision, ``check_loadable``) and, with ``--max-bad-records``, the dead-letter file of the
    rows they refuse: one per DoFn instance (the limit is kept by each writing process alone)."""

    def __init__(self, plan: Plan):
        self.plan, self.bad = plan, 0

    def events(self, frame: pd.DataFrame) -> Any:
        """A batch as a Dataset held to the design (raises DatasetError naming the column)."""
        from ..bigtable.checks import check_loadable

        plan = self.plan
        ds = plan.source.dataset(frame)
        where = f"a batch of {len(frame):,} events"
        ds.frame = conform(ds.frame, plan.schema.shape.dtypes, where)
        check_precision(ds, plan.precision, where)
        check_loadable(ds)
        return ds

    def checked(self, frame: pd.DataFrame) -> Any:
        """The batch's events; with ``--max-bad-records``, the rows the input checks refuse are
        found by halving the batch (a row refused on its own is bad), written to the
        dead-letter file with the reason and counted, and the rest go on as one batch (None
        when none is left)."""
        if self.plan.max_bad_records is None:
            return self.events(frame)
        try:
            return self.events(frame)
        except DatasetError:
            good, bad = self._split(frame.reset_index(drop=True))
        if bad:
            self._dead_letter(bad)
        return self.events(pd.concat(good, ignore_index=True)) if good else None

    def _split(
        self, frame: pd.DataFrame
    ) -> tuple[list[pd.DataFrame], list[tuple[pd.DataFrame, str]]]:
        try:
            self.events(frame)
            return [frame], []
        except DatasetError as exc:
            if len(frame) == 1:
                return [], [(frame, str(exc).splitlines()[0])]
        half = len(frame) // 2
        g1, b1 = self._split(frame.iloc[:half])
        g2, b2 = self._split(frame.iloc[half:])
        return g1 + g2, b1 + b2

    def _dead_letter(self, bad: list[tuple[pd.DataFrame, str]]) -> None:
        import uuid

        from apache_beam.io.filesystems import FileSystems

        self.bad += len(bad)
        limit = int(self.plan.max_bad_records or 0)
        if self.bad > limit:
            raise DatasetError(
                f"More than --max-bad-records {limit} rows were refused ({bad[-1][1]}). "
                "Fix the files (the rows refused so far are in the dead-letter files "
                f"{self.plan.dead_letter}-*.csv) and run the command again: the rerun finishes "
                "the table."
            )
        rows = pd.concat([f.assign(_error=why) for f, why in bad], ignore_index=True)
        path = f"{self.plan.dead_letter}-{uuid.uuid4().hex[:12]}.csv"
        with FileSystems.create(path) as fh:
            fh.write(rows.to_csv(index=False).encode())
        count("bad_records", len(bad))


class ParseEvents(beam.DoFn):
    """A batch as read → its events as ``from_dataframe`` makes them (times parsed, values
    checked, refused rows sent to the dead-letter file) in the design's dtypes and precision:
    parsed once for both paths of a design with summary rows (parsing the times of text is most
    of a batch's work), so both paths see the same events."""

    def __init__(self, plan: Plan):
        self.plan = plan

    def setup(self) -> None:
        self.checks = BatchChecks(self.plan)

    def process(self, frame: pd.DataFrame) -> Iterator[pd.DataFrame]:
        if not len(frame):
            return
        ds = self.checks.checked(frame)
        if ds is not None:
            yield ds.frame


class KeyByBucket(beam.DoFn):
    """A batch of events (parsed) → ((entity values as text, group number), the events of that
    entity in ``plan.group_span`` consecutive summary buckets): whole buckets under one key, so
    every summary row is built from all of its events, and a group holds a few buckets of one
    entity, never its whole history. The bucket is computed from the parsed times, as the
    summary row names it."""

    def __init__(self, plan: Plan):
        self.plan = plan

    def process(self, events: pd.DataFrame) -> Iterator[tuple[Any, pd.DataFrame]]:
        plan = self.plan
        keys = group_keys(events, plan.source.time, plan.schema, plan.group_span)
        for key, idx in keys.groupby(list(keys.columns), sort=False, dropna=False).indices.items():
            part = events.iloc[idx]
            Metrics.distribution(NAMESPACE, "part_events").update(len(part))
            key = key if isinstance(key, tuple) else (key,)
            yield (*map(str, key[:-1]), int(key[-1])), part  # a deterministic key coder


class BucketEvents(beam.CombineFn):
    """The events of one (entity, buckets) key, combined from the batches that hold some of them
    (lifted before the shuffle: each worker merges its parts first). The accumulator is at most
    a group's buckets of one entity; the summary statistics are computed from it by the design's own
    ``to_cells``, so each is the value ``load`` writes (partial float sums merged across
    workers would differ from one sum over the bucket in the last bits)."""

    def create_accumulator(self) -> list[pd.DataFrame]:
        return []

    def add_input(self, acc: list[pd.DataFrame], part: pd.DataFrame) -> list[pd.DataFrame]:
        acc.append(part)
        return acc

    def merge_accumulators(self, accs: Iterable[list[pd.DataFrame]]) -> list[pd.DataFrame]:
        return [part for acc in accs for part in acc]

    def compact(self, acc: list[pd.DataFrame]) -> list[pd.DataFrame]:
        return [pd.concat(acc, ignore_index=True)] if len(acc) > 1 else acc

    def extract_output(self, acc: list[pd.DataFrame]) -> pd.DataFrame:
        frame = pd.concat(acc, ignore_index=True)
        time = frame.columns[frame.dtypes.map(lambda d: isinstance(d, pd.DatetimeTZDtype))]
        # the bucket's events in time order, as a load of the time-ordered file meets them
        return frame.sort_values(list(time[:1]), kind="stable", ignore_index=True)
