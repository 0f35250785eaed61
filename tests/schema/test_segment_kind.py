"""A new kind of row-key segment is one class (and this test): the key, the cells, the parsed
events, the row-key schema and the designer's label all come from the segment itself."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import pytest

import workbench as wb
from workbench.datasets.model import QueryIntent
from workbench.schema import Field, KeyPart, RowKey, Segment, Timestamp
from workbench.schema.key_conformance import key_conformance
from workbench.schema.plan import KeyRange
from workbench.schema.rowkey_schema import row_key_schemas
from workbench.schema.segments import Coded, RenderContext, factorized
from workbench.schema.value_text import merge_equal_texts
from workbench.schema.views import Rollup
from workbench.ui.state import segment_labels


@dataclass(frozen=True)
class Upper(Field):
    """The column's text in capitals (a kind no module of the workbench knows)."""

    @property
    def label(self) -> str:
        return f"upper({self.column})"

    def key_fields(self, delimiter: str) -> tuple[list[KeyPart], list[str]]:
        return [KeyPart(self.column, note="in capitals")], [
            "{name}: stored in capitals; compare with upper-cased text."
        ]

    def coded(self, ctx: RenderContext) -> Coded:
        codes, texts = ctx.coded(self.column)  # once per distinct value; equal capitals merged
        return merge_equal_texts(codes, np.asarray([str(t).upper() for t in texts], dtype=object))

    def parse(self, text: pd.Series) -> dict[str, pd.Series]:
        return {}  # capitals cannot give the original text back

    def template(self) -> str:
        return "{upper(" + self.column + ")}"


def test_a_segment_kind_defined_outside_the_package_works_everywhere():
    ds = wb.load_dataset("game_scores", size="tiny")
    base = wb.preset("game_scores", wb.pattern_names("game_scores")[0])
    # the first column segment of the design, written in capitals instead
    i, col = next((i, s.column) for i, s in enumerate(base.key.segments) if isinstance(s, Field))
    segments = list(base.key.segments)
    segments[i] = Upper(col)
    schema = replace(base, key=replace(base.key, segments=tuple(segments)))

    cells = schema.to_cells(ds)
    values = ds.frame[col].astype(str)
    # every key holds the capitals of its event's value, in the segment's place
    parts = cells.frame["row_key"].str.split(schema.key.delimiter, regex=False).str[i]
    assert set(parts) == set(values.str.upper())
    assert "DOTA2" in set(parts) and "Dota2" not in set(parts)  # the game column holds 'Dota2'

    assert segment_labels(schema.key)[i] == f"upper({col})"
    fields = row_key_schemas(schema)[schema.table].fields
    field = next(f for f in fields if f.segment == Upper(col))
    assert field.name == col and field.note == "in capitals"
    assert f"{col}: stored in capitals" in " ".join(row_key_schemas(schema)[schema.table].notes)


@dataclass(frozen=True)
class Dotted(Segment):
    """Two entity columns as one key part, ``site.host``: a kind built on ``Segment`` itself (not
    a ``Field``: two sources, no ``value_column``), which no module of the workbench knows. It
    implements only what makes its text; every other question has the protocol's default."""

    first: str
    second: str

    @property
    def label(self) -> str:
        return f"{self.first}.{self.second}"

    def key_fields(self, delimiter: str) -> tuple[list[KeyPart], list[str]]:
        return [KeyPart(f"{self.first}_{self.second}", note="first.second")], []

    def sources(self) -> tuple[str, ...]:
        return (self.first, self.second)

    def recovers(self) -> tuple[str, ...]:
        return (self.first, self.second)

    def coded(self, ctx: RenderContext) -> Coded:
        return factorized(ctx.text(self.first) + "." + ctx.text(self.second))

    def parse(self, text: pd.Series) -> dict[str, pd.Series]:
        parts = text.str.split(".", n=1, expand=True)
        return {self.first: parts[0], self.second: parts[1]}

    def template(self) -> str:
        return "{" + f"{self.first}.{self.second}" + "}"


T0 = pd.Timestamp("2024-01-01 00:00:00", tz="UTC")
SECOND = pd.Timedelta(seconds=1)


@pytest.fixture(scope="module")
def hosts():
    """Two hosts, each at one site, two readings a second apart (4 events)."""
    df = pd.DataFrame(
        {
            "site": ["eu-west", "eu-west", "us-east", "us-east"],
            "host": ["h1", "h1", "h2", "h2"],
            "time": [T0, T0 + SECOND, T0, T0 + SECOND],
            "cpu": [0.5, 0.6, 0.7, 0.8],
        }
    )
    return wb.from_dataframe(df, entity=["site", "host"], time="time", measures=["cpu"])


def test_a_kind_that_is_not_a_field_goes_through_keys_plans_regex_sql_views_and_the_advisor(
    hosts,
):
    """Issue 47: the planner, the row-key regex, the row-key schema's SQL, the views, the
    designer's labels and the advisor ask the segment, never its kind (G04, G11, G20)."""
    schema = wb.Schema("dotted", RowKey((Dotted("site", "host"), Timestamp("second"))))

    # keys: "<site>.<host>#<%Y%m%d%H%M%S>", one per event
    cells = schema.to_cells(hosts)
    assert sorted(set(cells.frame["row_key"])) == [
        "eu-west.h1#20240101000000",
        "eu-west.h1#20240101000001",
        "us-east.h2#20240101000000",
        "us-east.h2#20240101000001",
    ]
    back = schema.from_cells(cells)  # parse gives both columns back
    assert sorted(zip(back["site"], back["host"], strict=True)) == [
        ("eu-west", "h1"),
        ("eu-west", "h1"),
        ("us-east", "h2"),
        ("us-east", "h2"),
    ]
    assert segment_labels(schema.key) == ("site.host", "time")  # the designer's segment names

    # the plan: both sources fixed → the segment's one text; then the time range's bounds.
    # [00:00:00, 00:00:01) ends at 00:00:00.999999, whose second text is ...000000; the range
    # ends where that prefix ends (its last character + 1): one row read
    one = QueryIntent(
        "one_host", "range", "h1 for a second", {"site": "eu-west", "host": "h1"}, T0, T0 + SECOND
    )
    plan = schema.plan(one)
    assert plan.ranges == (
        KeyRange(start="eu-west.h1#20240101000000", end="eu-west.h1#20240101000001"),
    )
    assert plan.filter.row_key_regex is None
    assert plan.evaluate(cells).rows_returned == 1

    # the regex: time leads the key, so all of one host's readings (no time bounds) read
    # every row and keep those whose key is <any time text>#eu-west.h1 (its text, escaped)
    time_first = wb.Schema("time_first", RowKey((Timestamp("second"), Dotted("site", "host"))))
    every = QueryIntent("all_h1", "range", "every h1 reading", {"site": "eu-west", "host": "h1"})
    plan = time_first.plan(every)
    assert plan.ranges == () and plan.keys == ()  # the key cannot narrow it: a full scan
    assert plan.filter.row_key_regex == r"[^\#]*\#eu\-west\.h1"
    result = plan.evaluate(time_first.to_cells(hosts))
    assert (result.rows_seen, result.rows_returned) == (4, 2)

    # the row-key schema and its SQL: the segment's field compared as its text
    rks = row_key_schemas(schema)[schema.table].for_table("hosts")
    assert rks.names == ("site_host", "ts")
    assert rks.where({"site": "eu-west", "host": "h1"}, T0, T0 + SECOND) == [
        "site_host = 'eu-west.h1'",
        "ts >= '20240101000000'",
        "ts <= '20240101000000'",
    ]
    conf = key_conformance(schema, hosts)[schema.table]
    assert (conf.keys, conf.bad) == (4, 0)  # every key splits into its 2 fields

    # a rollup view groups by the segment's field and decodes the time field
    sql = Rollup(stats=("count",)).sql(schema, "hosts", ("cpu",))
    assert sql.startswith(
        "SELECT\n  site_host,\n"
        "  TIMESTAMP_TRUNC(PARSE_TIMESTAMP('%Y%m%d%H%M%S', ts), HOUR) AS hour,\n"
        "  COUNT(*) AS cpu_count\n"
    ), sql
    assert sql.endswith("GROUP BY site_host, hour"), sql

    # the advisor judges the design without asking what the segment is
    # (every rule runs: key characters, sequential IDs, personal data, hashes, buckets, ...)
    advice = {f.rule: f for f in wb.advise(hosts, schema)}
    # the segment's own '.' is outside Google's key character set, in each of the 4 keys (G20)
    assert (
        advice["key_characters"]
        .evidence[0]
        .startswith("4 of 4 row keys hold characters outside [a-zA-Z0-9-_#] ('.')")
    )
    # 4 events in 4 distinct keys: nothing collides; no salt, no sequential ID leads the key
    assert not {"collisions", "salting", "sequential_id", "hashed_key"} & set(advice)
