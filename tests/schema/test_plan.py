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
