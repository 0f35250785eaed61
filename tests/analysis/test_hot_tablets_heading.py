"""The hot-tablets table says at which rate its CPU is measured, and does not call tablets hot at
a sample's own trickle (notebook 04 showed "Hot tablets" all at <0.01% CPU)."""

from __future__ import annotations

import pytest

import workbench as wb
from workbench.display import HOT_TABLET_CPU, hot_tablets_heading


@pytest.fixture(scope="module")
def fx():
    return wb.load_dataset("fx_prices", size="workshop")


def test_at_the_samples_own_rate_no_tablet_is_called_hot(fx):
    kd = wb.analyze(fx, wb.preset("fx_prices", "timestamp_first")).keyspace
    # the workshop sample writes a few quotes an hour: far below 1 % of a node anywhere
    assert kd.hot_tablets["node_cpu_usage_percent"].max() < 100 * HOT_TABLET_CPU
    text = hot_tablets_heading(kd)
    assert "the dataset's own rate" in text and "none is hot" in text


def test_at_a_production_rate_the_frontier_tablet_is_hot(fx):
    # timestamp_first at 20,000 events/s: every write lands on the one frontier tablet, which a
    # node serves at 14,000 writes/s at most (Google's SSD figure): over 100 % of its node
    kd = wb.analyze(
        fx, wb.preset("fx_prices", "timestamp_first"), workload=wb.Workload(events_per_s=20_000)
    ).keyspace
    assert kd.hot_tablets["node_cpu_usage_percent"].max() >= 100 * HOT_TABLET_CPU
    text = hot_tablets_heading(kd)
    assert "the target rate" in text and "none is hot" not in text
    assert "20,000 writes/s" in text
