"""Column families and their garbage-collection rules (G18, G30, G13).

Pure data: the admin module turns these into the official client's
``GcRule`` protobufs, the advisor reads them, the export prints them as
``cbt setgcpolicy`` arguments. GC is per family, so families are how a design
separates data with different retention (raw readings vs hourly aggregates).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Union

import pandas as pd


@dataclass(frozen=True)
class MaxAge:
    """Cells older than this are garbage (``cbt``: ``maxage=2160h``)."""

    seconds: int

    def cbt(self) -> str:
        if self.seconds % 86400 == 0:
            return f"maxage={self.seconds // 86400}d"
        if self.seconds % 3600 == 0:
            return f"maxage={self.seconds // 3600}h"
        if self.seconds % 60 == 0:
            return f"maxage={self.seconds // 60}m"
        return f"maxage={self.seconds}s"

    def __str__(self) -> str:
        return self.cbt()


@dataclass(frozen=True)
class MaxVersions:
    """Only the newest ``n`` cells per column are kept (``cbt``: ``maxversions=1``)."""

    n: int

    def __post_init__(self) -> None:
        if self.n < 1:
            raise ValueError(f"MaxVersions needs n >= 1, got {self.n}.")

    def cbt(self) -> str:
        return f"maxversions={self.n}"

    def __str__(self) -> str:
        return self.cbt()


@dataclass(frozen=True)
class Union_:
    """Garbage when *any* rule says so (``cbt``: ``rule1 or rule2``)."""

    rules: tuple["GcRule", ...]

    def cbt(self) -> str:
        return " or ".join(r.cbt() for r in self.rules)

    def __str__(self) -> str:
        return self.cbt()


@dataclass(frozen=True)
class Intersection:
    """Garbage only when *every* rule says so (``cbt``: ``rule1 and rule2``)."""

    rules: tuple["GcRule", ...]

    def cbt(self) -> str:
        return " and ".join(r.cbt() for r in self.rules)

    def __str__(self) -> str:
        return self.cbt()


GcRule = Union[MaxAge, MaxVersions, Union_, Intersection]


def max_age(duration: str | pd.Timedelta | int) -> MaxAge:
    """``max_age("90D")``, ``max_age("2160h")`` or seconds."""
    if isinstance(duration, int):
        return MaxAge(duration)
    return MaxAge(int(pd.Timedelta(duration).total_seconds()))


@dataclass(frozen=True)
class Family:
    """A column family: a short name (G01), an optional GC rule, optionally an aggregate (sum)."""

    name: str
    gc: GcRule | None = None
    aggregate: Literal["sum"] | None = None

    def cbt_gc(self) -> str | None:
        return self.gc.cbt() if self.gc is not None else None

    def __str__(self) -> str:
        gc = f" gc: {self.gc.cbt()}" if self.gc is not None else " gc: none (keep every cell)"
        agg = f" aggregate: {self.aggregate}" if self.aggregate else ""
        return f"{self.name}{gc}{agg}"


# -- helpers (additive): build rules without spelling the classes -------------------------


def max_versions(n: int) -> MaxVersions:
    """Keep the newest ``n`` cells per column (``cbt``: ``maxversions=n``)."""
    return MaxVersions(n)


def union(*rules: GcRule) -> Union_:
    """Garbage when any of the rules says so: ``union(max_age("30D"), max_versions(1))``."""
    if len(rules) < 2:
        raise ValueError("union() needs at least two rules.")
    return Union_(tuple(rules))


def intersection(*rules: GcRule) -> Intersection:
    """Garbage only when every rule says so: ``intersection(max_age("30D"), max_versions(2))``."""
    if len(rules) < 2:
        raise ValueError("intersection() needs at least two rules.")
    return Intersection(tuple(rules))
