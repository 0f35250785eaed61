"""GC rules and families as ``cbt`` writes them (``cbt help setgcpolicy``: ``maxage=<d>``,
``maxversions=<n>``, joined by ``and``/``or``; ``cbt help createtable``: ``family:gcpolicy``
and, for an aggregate family, ``:intsum``/``intmin``/``intmax``/``inthll``), each written by
hand (a sampled mutation run found the intersection and the plain family unchecked,
docs/architecture.md "Mutation testing")."""

from __future__ import annotations

import pytest

from workbench.errors import SchemaError
from workbench.schema import Family
from workbench.schema.families import (
    cbt_family,
    cbt_gc,
    intersection,
    max_age,
    max_versions,
    union,
)


def test_a_union_is_or_and_an_intersection_is_and():
    # G18 (GC is per family): garbage when any rule says so (union), or only when every one does
    assert cbt_gc(union(max_age("90D"), max_versions(1))) == ["maxage=90d", "or", "maxversions=1"]
    got = cbt_gc(intersection(max_age("30D"), max_versions(2)))
    assert got == ["maxage=30d", "and", "maxversions=2"]


def test_an_age_is_written_in_its_largest_whole_unit():
    # 7 days = 604,800 s; 2 h = 7,200 s; 120 s = 2 min; 90 s is no whole minute
    got = [max_age(x).cbt() for x in ("7D", "2h", 120, 90)]
    assert got == ["maxage=7d", "maxage=2h", "maxage=2m", "maxage=90s"]


def test_a_family_is_name_gc_policy_and_an_aggregate_its_int_type():
    assert cbt_family(Family("m", gc=max_versions(1))) == "m:maxversions=1"
    assert cbt_family(Family("m")) == "m:never"  # no GC rule: nothing is collected
    assert cbt_family(Family("c", aggregate="sum")) == "c:never:intsum"


def test_a_rule_list_takes_only_gc_rules():
    with pytest.raises(SchemaError, match="union"):
        union(max_age("1D"), "1D")
    with pytest.raises(SchemaError, match="intersection"):
        intersection(max_versions(1), 2)
