"""A plan whose rows limit applies to each range (the newest row of each series) is sent as
one ReadRows request per range or key, each an ordinary plan over that range alone (the
limit then applies to it by itself)."""

from __future__ import annotations

from workbench.schema.plan import KeyRange, ReadPlan


def test_a_per_range_limit_is_one_request_per_range_and_key():
    a, b = KeyRange("a#", "a$"), KeyRange("b#", "b$")
    plan = ReadPlan("latest", ranges=(a, b), keys=("c#1",), rows_limit=1, limit_per_range=True)
    parts = plan.parts()
    assert plan.requests == 3 and len(parts) == 3
    assert [(p.ranges, p.keys) for p in parts] == [((a,), ()), ((b,), ()), ((), ("c#1",))]
    # each part is an ordinary plan: its limit covers it alone, nothing kept by the client
    assert all(p.rows_limit == 1 and not p.limit_per_range and p.requests == 1 for p in parts)
    assert all(p.client_keeps is None for p in parts)
    # one range alone is the plan itself
    single = ReadPlan("one", ranges=(a,), rows_limit=1, limit_per_range=True)
    assert single.parts() == (single,)


def test_the_description_lists_the_limit_and_the_reverse_scan():
    # the newest row of site a: one range, rows limit 1, read backwards (G09 without a
    # reversed key); a forward plan says neither
    a = KeyRange("a#", "a$")
    back = ReadPlan("latest", ranges=(a,), rows_limit=1, reversed=True)
    assert back.describe().split("; ")[1:] == ["limit 1 rows", "reversed"]
    assert ReadPlan("range", ranges=(a,)).describe().split("; ")[1:] == []
