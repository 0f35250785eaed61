"""The workload line names each rate's unit once: a sample's trickle reads "4.17 events/h", not
"events/s 4.17 events/h" (a label in one unit over a value in another, issue seen in notebook
02's line)."""

import re

import workbench as wb

RATE = re.compile(r"(events|queries)/(s|min|h|day)")


def test_a_slow_sample_rate_is_read_in_its_own_unit_only():
    ds = wb.load_dataset("game_scores")
    design = next(iter(wb.presets(ds).values()))
    prod = wb.analyze(ds, design).capacity.production
    line = prod.inputs_line()
    # game_scores spans days with a few thousand scores: its own rate is per hour, not per second
    # (hand check: len(ds) events over the sample's span is well under one a second)
    assert "events/h" in line or "events/day" in line or "events/min" in line, line
    for text in prod.input_texts()[0] + prod.input_texts()[1]:
        assert len(RATE.findall(text.split(" (")[0])) <= 1, text  # one unit per input
    assert "events/s 4" not in line and not re.search(r"events/s [\d.,]+ events/", line), line


def test_a_stated_rate_reads_as_stated():
    ds = wb.load_dataset("game_scores")
    design = next(iter(wb.presets(ds).values()))
    line = wb.analyze(
        ds, design, workload=wb.Workload(events_per_s=5000)
    ).capacity.production.inputs_line()
    assert "yours: 5,000 events/s" in line, line
