"""Column families and their garbage-collection rules (G18, G30, G13).

Pure data: the admin module turns these into the official client's
``GcRule`` protobufs, the advisor reads them, the export prints them as
``cbt setgcpolicy`` arguments. GC is per family, so families are how a design
separates data with different retention (raw readings vs hourly aggregates).
"""

from __future__ import annotations

import datetime as _dt
import numbers
import re
from dataclasses import dataclass
from typing import Any, Literal

import pandas as pd

from ..errors import SchemaError

# Bigtable's rule for family names (google.bigtable.v2.Family.name): [-_.a-zA-Z0-9]+, at most 64 characters.
FAMILY_NAME = re.compile(r"[-_.a-zA-Z0-9]{1,64}")


def _whole_number(value: Any, what: str) -> int:
    """``value`` as an int when it is a whole number (not a bool, not text); else a SchemaError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise SchemaError(f"{what} must be a whole number, got {value!r}.")
    whole = int(float(value))
    if value != whole:
        raise SchemaError(f"{what} must be a whole number, got {value!r}.")
    return whole


@dataclass(frozen=True)
class MaxAge:
    """Cells older than this are garbage (``cbt``: ``maxage=2160h``)."""

    seconds: int

    def __post_init__(self) -> None:
        seconds = _whole_number(self.seconds, "MaxAge seconds")
        if seconds < 1:
            raise SchemaError(
                f"A max-age rule needs at least 1 second, got {self.seconds!r} s: a rule of 0 "
                "or less would collect every cell of the family."
            )
        object.__setattr__(self, "seconds", seconds)

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
        n = _whole_number(self.n, "MaxVersions n")
        if n < 1:
            raise SchemaError(f"A max-versions rule needs n >= 1, got {self.n!r}.")
        object.__setattr__(self, "n", n)

    def cbt(self) -> str:
        return f"maxversions={self.n}"

    def __str__(self) -> str:
        return self.cbt()


@dataclass(frozen=True)
class Union_:
    """Garbage when *any* rule says so (``cbt``: ``rule1 or rule2``)."""

    rules: tuple[GcRule, ...]

    def cbt(self) -> str:
        return " or ".join(r.cbt() for r in self.rules)

    def __str__(self) -> str:
        return self.cbt()


@dataclass(frozen=True)
class Intersection:
    """Garbage only when *every* rule says so (``cbt``: ``rule1 and rule2``)."""

    rules: tuple[GcRule, ...]

    def cbt(self) -> str:
        return " and ".join(r.cbt() for r in self.rules)

    def __str__(self) -> str:
        return self.cbt()


GcRule = MaxAge | MaxVersions | Union_ | Intersection


def max_age(duration: str | pd.Timedelta | _dt.timedelta | int | float) -> MaxAge:
    """``max_age("90D")``, ``max_age("2160h")``, a timedelta, or a number of seconds.

    Text must carry its unit (``"30"`` alone would be 30 nanoseconds to pandas, so it is
    refused); the result must be whole seconds, at least one.
    """
    if isinstance(duration, (numbers.Real, bool)):
        return MaxAge(_whole_number(duration, "max_age seconds"))
    if isinstance(duration, str):
        text = duration.strip()
        if not re.search(r"[A-Za-z]", text):
            raise SchemaError(
                f"max_age({duration!r}) has no unit: write e.g. '{text or '90'}D' (days), "
                f"'{text or '36'}h' (hours) or pass a number of seconds."
            )
        text = re.sub(r"(?<=\d)\s*d\b", "D", text)  # cbt's "90d"; pandas wants "D" for days
        try:
            delta = pd.Timedelta(text)
        except ValueError as exc:
            raise SchemaError(
                f"max_age({duration!r}) is not a duration: use e.g. '90D', '36h', '15min', "
                f"'2160h' or a number of seconds ({exc})."
            ) from None
    elif isinstance(duration, (pd.Timedelta, _dt.timedelta)):
        delta = pd.Timedelta(duration)
    else:
        raise SchemaError(
            f"max_age takes a duration such as '90D' or a number of seconds, got {duration!r}."
        )
    seconds = delta.total_seconds()
    if seconds != int(seconds):
        raise SchemaError(f"max_age({duration!r}) is {seconds:g} s: GC ages are whole seconds.")
    return MaxAge(int(seconds))


# Aggregate column families (``Type.Aggregate`` over INT64): what each keeps of the values
# written to one cell. Bigtable combines them server-side (AddToCell/MergeToCell); ``hll`` keeps
# a HyperLogLog++ sketch of distinct inputs (read back as the sketch, counted in SQL).
AGGREGATES: dict[str, str] = {
    "sum": "the sum of the inputs",
    "min": "the smallest input",
    "max": "the largest input",
    "hll": "a HyperLogLog++ sketch of the distinct inputs",
}
Aggregate = Literal["sum", "min", "max", "hll"]


@dataclass(frozen=True)
class Family:
    """A column family: a short name (G01), an optional GC rule, optionally an aggregate
    (``sum``, ``min``, ``max`` or ``hll``: Bigtable combines the int64 inputs of a cell)."""

    name: str
    gc: GcRule | None = None
    aggregate: Aggregate | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not FAMILY_NAME.fullmatch(self.name):
            raise SchemaError(
                f"Family name {self.name!r} is not allowed: Bigtable family names are 1 to 64 "
                "characters of letters, digits, '_', '-' and '.' (keep them short, G01)."
            )
        if self.gc is not None and not isinstance(
            self.gc, (MaxAge, MaxVersions, Union_, Intersection)
        ):
            raise SchemaError(
                f"Family {self.name!r}: gc must be a rule such as max_age('90D'), "
                f"max_versions(1), union(...) or intersection(...), got {self.gc!r}."
            )
        if self.aggregate is not None and self.aggregate not in AGGREGATES:
            raise SchemaError(
                f"Family {self.name!r}: aggregate must be None or one of "
                f"{', '.join(map(repr, AGGREGATES))} (int64 aggregate families), got "
                f"{self.aggregate!r}."
            )

    def cbt_gc(self) -> str | None:
        return self.gc.cbt() if self.gc is not None else None

    def __str__(self) -> str:
        gc = f" gc: {self.gc.cbt()}" if self.gc is not None else " gc: none (keep every cell)"
        agg = f" aggregate: {self.aggregate}" if self.aggregate else ""
        return f"{self.name}{gc}{agg}"


# -- the command-line forms (cbt, gcloud) ---------------------------------------------------


def cbt_gc(rule: GcRule | None) -> list[str]:
    """A GC rule as ``cbt setgcpolicy`` arguments (``["maxage=90d", "or", "maxversions=1"]``).

    ``cbt`` takes one flat ``and``/``or`` list of maxage/maxversions; a nested rule
    (a union of intersections) cannot be written for it: a clear error that points
    to the Python snippet, which can."""
    if rule is None:
        return ["never"]
    if isinstance(rule, (MaxAge, MaxVersions)):
        return [rule.cbt()]
    op = "or" if isinstance(rule, Union_) else "and" if isinstance(rule, Intersection) else None
    if op is None:
        raise SchemaError(f"Unknown GC rule {rule!r}.")
    out: list[str] = []
    for r in rule.rules:
        if not isinstance(r, (MaxAge, MaxVersions)):
            raise SchemaError(
                f"The GC rule {rule.cbt()!r} nests a {'union' if isinstance(r, Union_) else 'intersection'} "
                "inside another rule; cbt can only write one flat 'and'/'or' list. Use the Python snippet "
                "(export.python_snippet) to create this family."
            )
        out += ([op] if out else []) + [r.cbt()]
    return out


def cbt_inline(rule: GcRule | None) -> str:
    """The rule as one token for ``createtable families=…`` (``maxage=1d||maxversions=1``)."""
    return "".join({"or": "||", "and": "&&"}.get(a, a) for a in cbt_gc(rule))


def cbt_family(family: Family) -> str:
    """One family of ``cbt createtable families=…``: ``name:gc-policy[:type]`` (types
    ``intsum``, ``intmin``, ``intmax``, ``inthll``: ``cbt help createtable``)."""
    kind = f":int{family.aggregate}" if family.aggregate else ""
    return f"{family.name}:{cbt_inline(family.gc)}{kind}"


# -- helpers (additive): build rules without spelling the classes -------------------------


def max_versions(n: int) -> MaxVersions:
    """Keep the newest ``n`` cells per column (``cbt``: ``maxversions=n``)."""
    return MaxVersions(n)


def union(*rules: GcRule) -> Union_:
    """Garbage when any of the rules says so: ``union(max_age("30D"), max_versions(1))``."""
    return Union_(_rules("union", rules))


def intersection(*rules: GcRule) -> Intersection:
    """Garbage only when every rule says so: ``intersection(max_age("30D"), max_versions(2))``."""
    return Intersection(_rules("intersection", rules))


def _rules(what: str, rules: tuple[Any, ...]) -> tuple[GcRule, ...]:
    if len(rules) < 2:
        raise SchemaError(f"{what}() needs at least two rules, got {len(rules)}.")
    bad = [r for r in rules if not isinstance(r, (MaxAge, MaxVersions, Union_, Intersection))]
    if bad:
        raise SchemaError(
            f"{what}() takes GC rules (max_age(...), max_versions(...)), got {bad!r}."
        )
    return tuple(rules)
