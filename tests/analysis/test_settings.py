"""Settings refuse a bad value when they are made, not only in ``replace()`` (as xarray's
``set_options`` does): each refusal names the setting, the value and what is accepted.

Every field has a rule in ``SETTING_RULES`` (checked here), and the refusals are generated from
that table: the bad values of each kind of rule are chosen here by hand (a bound itself when it
is open, one past it when closed, NaN, infinity, text for a number, a bool for a count, None
where None is not accepted)."""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pytest

from workbench.analysis.settings import (
    DEFAULT,
    SETTING_CONSTRAINTS,
    SETTING_RULES,
    Choice,
    Flag,
    MiB,
    Number,
    Settings,
    Text,
)
from workbench.errors import SettingsError, WorkbenchError


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
        ({"backup_retention_days": -1}, "backup_retention_days must be in [0, 365], got -1"),
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
    with pytest.raises(SettingsError) as made:
        Settings(**changes)
    assert message in str(made.value)
    # replace() and dataclasses.replace refuse the same value the same way
    with pytest.raises(SettingsError) as replaced:
        DEFAULT.replace(**changes)
    assert str(replaced.value) == str(made.value)
    with pytest.raises(WorkbenchError):
        dataclasses.replace(DEFAULT, **changes)


def test_the_issue_example_does_not_build():
    with pytest.raises(
        WorkbenchError, match=r"clusters .*got 0.*routing .*got 'bogus'.*storage .*got 'tape'"
    ):
        Settings(storage="tape", routing="bogus", clusters=0)  # type: ignore[arg-type]


def test_replace_still_refuses_unknown_names_and_lists_the_known_ones():
    with pytest.raises(WorkbenchError) as e:
        DEFAULT.replace(node_hours_usd=1.0)
    text = str(e.value)
    assert "setting(s) ['node_hours_usd']" in text
    assert "node_hour_usd" in text  # the known setting it was meant to be


def test_good_values_build_and_storage_case_is_read_as_upper():
    assert Settings(storage="hdd").storage == "HDD"  # type: ignore[arg-type]
    st = Settings(
        clusters=3,
        routing="multi-cluster",
        edition="enterprise-plus",
        in_memory_tier=True,
        backup_retention_days=7.0,
        replication_network="intra-region",
    )
    assert (st.clusters, st.edition, st.backup_retention_days) == (3, "enterprise-plus", 7.0)
    assert DEFAULT == Settings()  # the defaults pass their own checks


# -- the validator table ------------------------------------------------------------------------


def test_every_field_of_settings_has_a_rule_and_every_rule_a_field():
    fields = {f.name for f in dataclasses.fields(Settings)}
    assert sorted(fields - set(SETTING_RULES)) == []  # a new setting needs its rule
    assert sorted(set(SETTING_RULES) - fields) == []  # a rule for a setting that is gone


def _bad_values(rule):
    """The values a rule of this kind must refuse, chosen by its kind and bounds."""
    if isinstance(rule, Number):
        bad = [float("nan"), float("inf"), float("-inf"), "1", True]
        if not rule.optional:
            bad.append(None)
        if rule.whole:
            bad.append(rule.low + 0.5)  # 1.5 nodes, 0.5 backups
        if math.isfinite(rule.low):
            bad.append(rule.low if rule.open_low else rule.low - 1)
        if math.isfinite(rule.high):
            bad.append(rule.high if rule.open_high else rule.high + 0.5)
        return bad
    if isinstance(rule, Choice):
        return ["not-a-choice", 3, None]
    if isinstance(rule, Flag):
        return ["yes", 1, None]
    assert isinstance(rule, Text), f"a rule of a kind this test does not know: {rule!r}"
    return ["", "   ", 2025, None]


BAD = [
    pytest.param(name, bad, id=f"{name}={bad!r}")
    for name, rule in SETTING_RULES.items()
    for bad in _bad_values(rule)
]


@pytest.mark.parametrize(("name", "bad"), BAD)
def test_each_field_refuses_the_bad_values_of_its_rule(name, bad):
    with pytest.raises(SettingsError, match=rf"^{name} must be ") as made:
        Settings(**{name: bad})
    text = str(made.value)
    assert f"got {bad!r}" in text  # the value given
    assert SETTING_RULES[name].allowed in text  # what is accepted
    with pytest.raises(SettingsError) as replaced:
        DEFAULT.replace(**{name: bad})
    assert str(replaced.value) == text


def test_the_kinds_of_rule_say_their_range_in_words():
    # hand-written: the words a person reads for each kind of rule
    assert SETTING_RULES["reads_per_s_per_node"].allowed == "a finite number > 0"
    assert SETTING_RULES["node_hour_usd"].allowed == "a finite number ≥ 0"
    assert SETTING_RULES["window_minutes"].allowed == "a whole number ≥ 1"
    assert SETTING_RULES["pre_splits"].allowed == "a whole number ≥ 0"
    assert SETTING_RULES["cpu_target"].allowed == "in (0, 1]"
    assert SETTING_RULES["scan_fixed_share"].allowed == "in [0, 1)"
    assert SETTING_RULES["request_share"].allowed == "in [0, 1]"
    assert (
        SETTING_RULES["in_memory_increment_node_hour_usd"].allowed == "None or a finite number ≥ 0"
    )
    assert SETTING_RULES["tiered_after_days"].allowed == "None or a finite number > 0"
    assert SETTING_RULES["autoscaling"].allowed == "True or False"


@pytest.mark.parametrize(
    ("changes", "token"),
    [
        # the values issue #47 found building and failing later (ZeroDivisionError, pyarrow)
        ({"reads_per_s_per_node": 0}, "reads_per_s_per_node must be a finite number > 0, got 0"),
        ({"compression_codec": "zip"}, "compression_codec must be one of 'snappy'"),
        ({"window_minutes": 0}, "window_minutes must be a whole number ≥ 1, got 0"),
        ({"tablet_split_bytes": -5}, "tablet_split_bytes must be a finite number > 0, got -5"),
        ({"min_windows": 300}, "min_windows (300) must be at most max_windows (240)"),
    ],
)
def test_the_issue_examples_are_refused(changes, token):
    with pytest.raises(SettingsError, match=re.escape(token)):
        Settings(**changes)


def test_every_refused_field_is_named_at_once_with_its_default():
    with pytest.raises(SettingsError) as e:
        Settings(reads_per_s_per_node=0, window_minutes=0.5)  # type: ignore[arg-type]
    text = str(e.value)
    # the whole sentence: tests/test_error_messages.py
    assert re.search(r"reads_per_s_per_node .*> 0, got 0; .*default is 17000\.0", text), text
    assert re.search(r"window_minutes .*≥ 1, got 0\.5; .*default is 1\.", text), text


# one violation of each rule between fields, derived by hand from the defaults
VIOLATIONS = {
    "windows": ({"min_windows": 241}, "min_windows (241) must be at most max_windows (240)"),
    # 1 byte over 100 MiB: over the hard cell limit whether it is read as 100 MiB or 100 MB
    "cell limits": (
        {"cell_advisory_bytes": 100 * MiB + 1},
        "cell_advisory_bytes (104,857,601) must be at most cell_hard_bytes (",
    ),
    "row limits": (
        {"row_advisory_bytes": 256_000_001},  # 1 byte over the 256 MB hard row limit
        "row_advisory_bytes (256,000,001) must be at most row_hard_bytes (256,000,000)",
    ),
    "in-memory tier": ({"in_memory_tier": True}, "in_memory_tier needs edition='enterprise-plus'"),
    "tiering age": ({"tiered_after_days": 29.5}, "tiered_after_days must be at least 30 days"),
    # the increments are the in-memory tier's: 2 of them without the tier are refused
    "in-memory increments": (
        {"in_memory_increments": 2},
        "in_memory_increments=2 needs in_memory_tier=True",
    ),
    # 80 % as the lowest accepted autoscaling target with 10 % as the highest
    "autoscaling targets": (
        {"autoscaling_cpu_min": 0.8, "autoscaling_cpu_max": 0.1},
        "autoscaling_cpu_min (0.8) must be at most autoscaling_cpu_max (0.1)",
    ),
    "tiering storage": (
        {"tiered_after_days": 90.0, "storage": "HDD"},
        "tiered storage needs SSD clusters",
    ),
    # 220,000 reads/s × 1,000 B = 220 MB/s, the SSD scan rate itself: a point read would cost
    # no more than scanning its row, and the seek cost would be 0 (negative above it)
    "read costs": (
        {"reads_per_s_per_node": 220_000},
        "reads_per_s_per_node × planning_row_bytes (220,000 × 1,000) must be below "
        "scan_bytes_per_s_per_node (220,000,000)",
    ),
}


def test_every_rule_between_fields_has_a_violation_here():
    assert sorted(c.name for c in SETTING_CONSTRAINTS) == sorted(VIOLATIONS)


@pytest.mark.parametrize("name", sorted(VIOLATIONS))
def test_each_rule_between_fields_refuses_its_violation(name):
    changes, token = VIOLATIONS[name]
    with pytest.raises(SettingsError, match=re.escape(token)):
        Settings(**changes)
    with pytest.raises(SettingsError, match=re.escape(token)):
        DEFAULT.replace(**changes)


def test_the_read_cost_rule_reads_the_storage_types_own_rates():
    # HDD: 180,000 reads/s × 1,000 B = 180 MB/s, the HDD scan rate
    with pytest.raises(SettingsError, match="hdd_reads_per_s_per_node × planning_row_bytes"):
        Settings(storage="HDD", hdd_reads_per_s_per_node=180_000)
    # one read fewer per second and the point read costs more than the scan: it builds
    assert Settings(reads_per_s_per_node=219_999).reads_per_s_per_node == 219_999


@pytest.mark.parametrize(
    "changes",
    [
        # each rule's accepted edge, by hand
        {"cpu_target": 1.0, "storage_utilization_target": 1.0, "load_split_share": 1.0},
        {"backup_retention_days": 0.0, "pre_splits": 0},
        {"tiered_after_days": None},
        {"rebalance_tolerance": 0.0, "view_updates_per_source_write": 0.0, "node_hour_usd": 0.0},
        {"scan_fixed_share": 0.0, "request_share": 0.0},
        {"request_share": 1.0, "ceiling_headroom": 1.0},
        {"min_windows": 240},  # = max_windows
        {"max_windows": 24},  # = min_windows
        {"tiered_after_days": 30},  # = tiered_min_days
        # each advisory limit equal to its hard limit
        {"cell_advisory_bytes": DEFAULT.cell_hard_bytes, "row_advisory_bytes": 256_000_000},
        {"compression_codec": "zstd"},
        {"compression_codec": "lz4"},
        {"compression_codec": "gzip"},
        {"compression_codec": "brotli"},
        {"nodes": np.int64(4), "ssd_tb_per_node": np.float64(2.5)},  # numpy numbers, as counted
        {"prices_date": "2026-11", "autoscaling": True},
    ],
    ids=repr,
)
def test_the_edges_each_rule_accepts_build(changes):
    st = Settings(**changes)
    assert {k: getattr(st, k) for k in changes} == changes
