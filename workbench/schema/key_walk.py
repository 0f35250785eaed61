"""What a key walk knows (the query's fixed fields, its time, the design's measures and costs)
and what it has built so far (the prefixes, where and why it stopped): the state the planners
in ``planner.py`` and ``latest_plan.py`` share."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from .plan import ReadCosts
from .segments import TIME

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Sequence

    from ..datasets.model import QueryIntent
    from .schema import Schema
    from .shape import Shape


def us_of(ts: pd.Timestamp) -> int:
    """A timestamp in µs since the epoch."""
    return int(ts.value // 1000)


@dataclass
class Query:
    """What one intent fixes, as the planners need it."""

    intent: QueryIntent
    known: dict[str, Any]
    measures: tuple[str, ...]  # the design's measures (``Schema.measure_names``)
    shape: Shape | None
    t_point: int | None = None  # µs: a point read's time
    lo_t: int | None = None  # µs, inclusive: a range's first time
    hi_t: int | None = None  # µs, inclusive: a range's last time
    has_range: bool = False
    costs: ReadCosts | None = None  # what candidate plans are compared with

    @classmethod
    def of(cls, intent: QueryIntent, schema: Schema) -> Query:
        point = intent.kind == "point" and intent.start is not None
        has_range = intent.kind in ("range", "slice") and (
            intent.start is not None or intent.end is not None
        )
        return cls(
            intent=intent,
            known=dict(intent.entity),
            measures=schema.measure_names(),
            shape=schema.shape,
            t_point=us_of(intent.start) if point else None,
            lo_t=us_of(intent.start) if has_range and intent.start is not None else None,
            hi_t=us_of(intent.end) - 1 if has_range and intent.end is not None else None,
            has_range=has_range,
            costs=schema.costs,
        )

    @property
    def needed(self) -> tuple[str, ...] | None:
        """The measures the query asks for (None: all)."""
        return tuple(self.intent.measures) if self.intent.measures else None

    @property
    def known_set(self) -> set[str]:
        """Columns the query fixes, the time included for a point read."""
        return set(self.known) | ({TIME} if self.t_point is not None else set())


@dataclass
class KeyWalk:
    """The key prefix(es) built so far, left to right: one text per branch (a branch is one
    row range or key), what each branch's enumerated values stand for, and where and why the
    key stopped helping."""

    branches: list[str] = field(default_factory=lambda: [""])
    # per branch, the entity values its enumerated ranges stand for (which narrow the values of
    # later segments: the balloons of one location)
    bknown: list[dict[str, object]] = field(default_factory=lambda: [{}])
    stop: int | None = None
    stop_reason: str = ""
    pinned: int = 0  # segments the prefix fixes
    time_range: tuple[str | None, str | None] | None = None  # (lo, hi) texts at the stop
    partial_tags: bool = False
    merged: bool = False  # several ranges of one series set: the client merges the newest
    enumerated: set[str] = field(default_factory=set)  # columns read as one range per value
    assumed: dict[str, int] = field(default_factory=dict)  # their value counts the plan relies on
    notes: list[str] = field(default_factory=list)

    def add(self, text: str) -> None:
        """Every branch continues with the same text."""
        self.branches = [b + text for b in self.branches]

    def fan(self, texts: Sequence[str], sep: str) -> None:
        """Every branch splits into one branch per text (salt buckets, measures, time buckets)."""
        self.branches = [b + t + sep for b in self.branches for t in texts]
        self.bknown = [k for k in self.bknown for _ in texts]

    def halt(self, i: int, reason: str) -> bool:
        self.stop, self.stop_reason = i, reason
        return False

    @property
    def complete(self) -> bool:
        return self.stop is None
