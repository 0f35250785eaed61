"""The advisor never raises on a design: what it cannot judge becomes a finding.

Two cases that crashed it: a one-series CSV with a text column the user named neither entity
nor measure (``weather``), which the new-columns and wide layouts cannot carry (``wb.compare``
leaves it out with a note; the advisor raised the layout's SchemaError), and a one-series key
over Cloud Bigtable's 4 KiB limit (the advisor raised "This design produced no cells" instead
of giving the hard-limit finding)."""

from __future__ import annotations

import pandas as pd

import workbench as wb

# the layouts that hold nothing but measures beside the key (value in the qualifier, wide rows,
# Heroic's offsets): an unnamed text column has no place in them
NO_ROOM = {"bucket_new_columns", "wide_rows", "heroic"}


def _fires(ds, schema, rule: str, severity: str):
    """The one finding of ``rule`` (at ``severity``) the advisor gives ``schema`` on ``ds``."""
    advice = wb.advise(ds, schema)
    found = [f for f in advice if f.rule == rule]
    assert len(found) == 1 and found[0].severity == severity, (schema.name, found)
    return found[0], advice


def _hours(n: int = 48) -> pd.DatetimeIndex:
    return pd.date_range("2024-01-01", periods=n, freq="h", tz="UTC")


def test_an_unnamed_text_column_is_a_finding_where_the_layout_cannot_carry_it(tmp_path):
    path = tmp_path / "garden.csv"
    pd.DataFrame(
        {"time": _hours(), "temp": range(48), "weather": ["sun", "rain", "fog"] * 16}
    ).to_csv(path, index=False)
    ds = wb.from_csv(path, time="time", measures=["temp"])
    assert ds.attributes == ["weather"]  # one series, the text column an attribute
    names = wb.pattern_names(ds)
    assert NO_ROOM <= set(names)
    compared = wb.compare(ds, [wb.preset(ds, n) for n in names]).table
    # compare builds every design and notes the column left out where the layout has no room
    assert not compared["verdict"].astype(str).str.startswith("not built").any()
    noted = {n for n in names if "'weather' left out" in str(compared.loc[n, "note"])}
    assert noted == NO_ROOM
    for name in sorted(NO_ROOM):
        found, advice = _fires(ds, wb.preset(ds, name), "left_out", "warning")  # never raises
        assert found.data["left_out"] == ["weather"]
        assert "'weather' left out" in found.evidence[0]
        # judged without the column, as compare judged it
        assert "weather" not in advice.context.ds.frame.columns
    for name in sorted(set(names) - NO_ROOM):
        advice = wb.advise(ds, wb.preset(ds, name))
        assert not [f for f in advice if f.rule == "left_out"], name
        assert "weather" in advice.context.ds.frame.columns


def test_a_key_over_4_kib_is_the_hard_limit_finding_on_every_design():
    station = "s" * 5_000  # one series whose entity alone is over 4,096 bytes
    frame = pd.DataFrame({"station": station, "time": _hours(), "temp": range(48)})
    ds = wb.from_dataframe(frame, name="long", entity=["station"], time="time", measures=["temp"])
    for name in wb.pattern_names(ds):
        limit, advice = _fires(ds, wb.preset(ds, name), "limits", "error")  # never raises
        assert limit.guideline == "G20" and limit.data["checklist"] == "key_size"
        assert "over Cloud Bigtable's 4 KiB limit" in limit.evidence[0]
        assert advice.context.cells is None  # nothing built: the finding is the judgement
