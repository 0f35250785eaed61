"""Settings refuse a bad value when they are made, not only in ``replace()`` (as xarray's
``set_options`` does): each refusal names the setting, the value and what is accepted."""

from __future__ import annotations

import dataclasses

import pytest

from workbench.analysis.settings import DEFAULT, Settings
from workbench.errors import WorkbenchError


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"storage": "tape"}, "storage must be one of 'SSD', 'HDD', got 'tape'"),
        (
            {"routing": "bogus"},
            "routing must be one of 'single-cluster', 'multi-cluster', got 'bogus'",
        ),
        (
            {"edition": "premium"},
            "edition must be one of 'enterprise', 'enterprise-plus', got 'premium'",
        ),
        (
            {"replication_network": "moon"},
            "replication_network must be one of 'intra-region', 'inter-region', got 'moon'",
        ),
        ({"clusters": 0}, "clusters must be a whole number ≥ 1, got 0"),
        ({"clusters": 1.5}, "clusters must be a whole number ≥ 1, got 1.5"),
        ({"clusters": True}, "clusters must be a whole number ≥ 1, got True"),
        ({"nodes": 0}, "nodes must be a whole number ≥ 1, got 0"),
        ({"backup_copies": -1}, "backup_copies must be a whole number ≥ 0, got -1"),
        ({"cpu_target": 0.0}, "cpu_target must be in (0, 1], got 0.0"),
        ({"cpu_target": 1.2}, "cpu_target must be in (0, 1], got 1.2"),
        ({"storage_utilization_target": 0}, "storage_utilization_target must be in (0, 1]"),
        ({"node_hour_usd": -0.65}, "node_hour_usd must be a finite number ≥ 0, got -0.65"),
        (
            {"inter_region_replication_gib_usd": float("nan")},
            "inter_region_replication_gib_usd must be a finite number ≥ 0",
        ),
        ({"hours_per_month": 0}, "hours_per_month must be a finite number > 0, got 0"),
        ({"scan_fixed_share": 1.0}, "scan_fixed_share must be in [0, 1)"),
        ({"planning_row_cells": 0}, "planning_row_cells must be a whole number ≥ 1, got 0"),
        ({"in_memory_tier": True}, "in_memory_tier needs edition='enterprise-plus'"),
        ({"tiered_after_days": 7.0}, "tiered_after_days must be at least 30 days"),
        ({"tiered_after_days": 90.0, "storage": "HDD"}, "tiered storage needs SSD clusters"),
    ],
)
def test_each_bad_value_is_refused_at_construction_with_its_message(changes, message):
    with pytest.raises(WorkbenchError) as made:
        Settings(**changes)
    assert message in str(made.value)
    # replace() and dataclasses.replace refuse the same value the same way
    with pytest.raises(WorkbenchError) as replaced:
        DEFAULT.replace(**changes)
    assert str(replaced.value) == str(made.value)
    with pytest.raises(WorkbenchError):
        dataclasses.replace(DEFAULT, **changes)


def test_the_issue_example_does_not_build():
    with pytest.raises(WorkbenchError, match="storage must be one of"):
        Settings(storage="tape", routing="bogus", clusters=0)  # type: ignore[arg-type]


def test_replace_still_refuses_unknown_names_and_lists_the_known_ones():
    with pytest.raises(WorkbenchError) as e:
        DEFAULT.replace(node_hours_usd=1.0)
    text = str(e.value)
    assert "Unknown analysis setting(s) ['node_hours_usd']" in text
    assert "node_hour_usd" in text  # the known setting it was meant to be


def test_good_values_build_and_storage_case_is_read_as_upper():
    assert Settings(storage="hdd").storage == "HDD"  # type: ignore[arg-type]
    st = Settings(
        clusters=3,
        routing="multi-cluster",
        edition="enterprise-plus",
        in_memory_tier=True,
        backup_copies=2,
        replication_network="intra-region",
    )
    assert (st.clusters, st.edition, st.backup_copies) == (3, "enterprise-plus", 2)
    assert DEFAULT == Settings()  # the defaults pass their own checks
