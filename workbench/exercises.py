"""Workshop exercises as problem objects, in the style of Kaggle's learntools.

Each exercise is a :class:`Problem` living here, not in the notebook: the notebook cell holds only
the attendee's answer, blank (``____``) by default, and the next cell calls ``check(answer, ...)``.
``hint()`` and ``solution()`` show help on demand.

**The solutions switch.** Reports and the test suite run every notebook top to bottom without a
person to fill the blanks. With the environment variable ``WORKBENCH_SOLUTIONS=1`` (set by
``workbench.report.execute_notebook`` unless the caller sets it) a blank answer is replaced by the
problem's solution, the check says so, and a solution that no longer passes raises
:class:`ExerciseNotSolved` so the run fails. Without the switch a blank answer gives a friendly
"not answered yet" line and a wrong one a one-line "✘ Not yet — <why>"; neither raises. A wrong
answer the workbench itself refuses (an unknown design name, a key whose events collide, a
misspelled column) is a wrong answer too: its error's first line becomes the reason, with the
closest name where there is one. ``hint()`` says what the "not yet" line does not.
"""

from __future__ import annotations

import difflib
import html
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .errors import CollisionError, WorkbenchError, error_line

SOLUTIONS_ENV = "WORKBENCH_SOLUTIONS"


class _Blank:
    """The placeholder an attendee replaces with an answer."""

    def __repr__(self) -> str:
        return "____"


____ = _Blank()


def solutions_on() -> bool:
    """True when ``WORKBENCH_SOLUTIONS`` asks for blank answers to be filled with the solutions."""
    return os.environ.get(SOLUTIONS_ENV, "").strip().lower() in {"1", "true", "yes", "on"}


@dataclass
class CheckResult:
    """The outcome of one exercise check; renders as one coloured line."""

    passed: bool
    message: str
    answered: bool = True
    found: dict[str, Any] = field(default_factory=dict, repr=False)

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        if not self.answered:
            return "NOT ANSWERED: " + self.message
        return ("PASS: " if self.passed else "NOT YET — ") + self.message

    def _repr_html_(self) -> str:
        if not self.answered:
            colour, mark = "#0072B2", "✎ Your turn"
        elif self.passed:
            colour, mark = "#009E73", "✔ Well done"
        else:
            return (
                "<p style='color:#D55E00' data-not-yet><b>✘ Not yet</b> — "
                f"{html.escape(self.message)}</p>"
            )
        return f"<p style='color:{colour}'><b>{mark}:</b> {html.escape(self.message)}</p>"


class ExerciseNotSolved(AssertionError):
    """A check failed where it must pass (a strict check, or a solution under the switch)."""


class _Help(str):
    """A hint or solution: plain text that renders as a paragraph in a notebook."""

    def _repr_html_(self) -> str:
        return f"<p style='color:#555'>{html.escape(self)}</p>"


#: judge(answer, *context) -> (passed, message, found)
Judge = Callable[..., tuple[bool, str, dict[str, Any]]]


@dataclass
class Problem:
    """One exercise: what to do, how an answer is judged, a hint and the solution."""

    name: str
    task: str
    judge: Judge
    hint_text: str
    solution_value: Any
    solution_text: str

    def answer(self, value: Any) -> Any:
        """``value``, or the solution when it is blank and the solutions switch is on."""
        if isinstance(value, _Blank) and solutions_on():
            # a callable builds the solution on demand (its types live further down the flow)
            return self.solution_value() if callable(self.solution_value) else self.solution_value
        return value

    def check(self, value: Any, *context: Any) -> CheckResult:
        """Judge ``value`` (the attendee's answer) against the exercise's goal."""
        filled = isinstance(value, _Blank) and solutions_on()
        value = self.answer(value)
        if isinstance(value, _Blank):
            return CheckResult(
                False,
                f"replace ____ with your answer, then run this cell again ({self.task}). "
                f"Stuck? {self.name}.hint() or {self.name}.solution().",
                answered=False,
            )
        try:
            passed, message, found = self.judge(value, *context)
        except WorkbenchError as exc:
            if filled:
                raise
            # the workbench's refusal is the reason: its first line, advice and closest name
            passed, message, found = False, error_line(exc), {}
        if filled:
            message = f"{message} (solution filled in: {SOLUTIONS_ENV}=1)"
        if not passed and solutions_on():
            raise ExerciseNotSolved(f"{self.name}: the solution {value!r} fails: {message}")
        if not passed:
            message = " ".join(message.split())  # one line, whatever the reason's source
            message = f"{message} Stuck? {self.name}.hint()"
        return CheckResult(passed, message, found=found)

    def reference(self, *context: Any) -> dict[str, Any]:
        """What the solution builds (the judge's ``found``), for the cells after an exercise to
        go on with while the attendee's answer is blank or not there yet."""
        value = self.solution_value() if callable(self.solution_value) else self.solution_value
        return self.judge(value, *context)[2]

    def hint(self) -> _Help:
        return _Help(f"Hint: {self.hint_text}")

    def solution(self) -> _Help:
        return _Help(f"Solution: {self.solution_text}")


def check(condition: bool, message: str, *, hint: str = "", strict: bool = True) -> CheckResult:
    """A one-off self-check for an ad-hoc goal (the exercises themselves are :class:`Problem`\\ s).

    With ``strict`` (default) a failed check raises, so a headless run flags it.
    """
    result = CheckResult(
        bool(condition), message if condition or not hint else f"{message} Hint: {hint}"
    )
    if strict and not result.passed:
        raise ExerciseNotSolved(repr(result))
    return result


# -- the workshop's exercises -----------------------------------------------------------------
# Imports stay inside the judges: this module is imported by ``workbench`` itself, and the
# analysis stack is only needed once an answer is checked.


def _not_a_name(value: Any, known: list[str], what: str) -> str | None:
    """Why ``value`` is not one of ``known`` (closest name first), or None when it is."""
    if isinstance(value, str) and value in known:
        return None
    if not isinstance(value, str):
        return f"the answer is {what} in quotes, e.g. {known[0]!r}; got {value!r}."
    close = difflib.get_close_matches(value, known, n=1, cutoff=0.5)
    near = f"did you mean {close[0]!r}? " if close else ""
    return f"{value!r} is not {what}: {near}The choices are {', '.join(known)}."


def _design_name(choice: Any, dataset: str) -> str | None:
    from workbench.schema import pattern_names

    return _not_a_name(choice, pattern_names(dataset), f"a {dataset} design")


def _garden_month(choice: str, ds) -> tuple[bool, str, dict[str, Any]]:
    from workbench.analysis import analyze
    from workbench.schema import preset

    if (why := _design_name(choice, "garden_temperature")) is not None:
        return False, why, {}
    mine = analyze(ds, preset("garden_temperature", choice))
    rows = int(mine.queries["garden_month"]["rows_seen"])
    worst = int(mine.rowsizes.projected_max_bytes)
    return (
        rows == 1 and worst <= 10_000,
        f"{choice}: the month query reads {rows:,} row(s) (goal 1); largest row after a year "
        f"{worst:,} bytes (goal ≤ 10,000).",
        {"analysis": mine},
    )


def _game_both(choice: str, ds) -> tuple[bool, str, dict[str, Any]]:
    from workbench.analysis import analyze
    from workbench.schema import preset

    if (why := _design_name(choice, "game_scores")) is not None:
        return False, why, {}
    q = analyze(ds, preset("game_scores", choice)).queries
    a, b = q["corrie_lol_march"]["waste"], q["lol_march"]["waste"]
    return (
        max(a, b) <= 1.5,
        f"{choice}: Corrie's March reads {a:,.1f} rows per row returned, all LoL games in "
        f"March {b:,.1f} (goal ≤ 1.5 for both).",
        {},
    )


def _balloon_format(choice: str, ds) -> tuple[bool, str, dict[str, Any]]:
    from workbench.analysis import analyze
    from workbench.schema import preset

    if (why := _design_name(choice, "weather_balloons")) is not None:
        return False, why, {}
    mine = analyze(ds, preset("weather_balloons", choice))
    per_event = mine.capacity.bytes_per_event
    scan = int(mine.queries["location_pressure_week"]["bytes_seen"])
    return (
        per_event <= 100 and scan <= 400_000,
        f"{choice}: {per_event:,.0f} bytes per reading (goal ≤ 100); the pressure query scans "
        f"{scan:,} bytes (goal ≤ 400,000).",
        {},
    )


FX_NODES = 8


def _fx_salt(buckets: int, ds) -> tuple[bool, str, dict[str, Any]]:
    from workbench.analysis import analyze
    from workbench.schema import preset

    if isinstance(buckets, str) and buckets.strip().isdigit():
        return False, f"{buckets!r} is text: did you mean {int(buckets)}, without the quotes?", {}
    if not isinstance(buckets, int) or isinstance(buckets, bool) or buckets < 1:
        return False, f"the salt count must be a whole number ≥ 1, got {buckets!r}.", {}
    mine = analyze(ds, preset("fx_prices", "salted", n=buckets), nodes=FX_NODES)
    share, scans = mine.keyspace.mean_write_share, mine.queries["usdjpy_day"]["scans"]
    return (
        share <= 0.20,
        f"with {buckets:,} salt buckets the busiest of {FX_NODES} nodes takes {share:.1%} of the "
        f"writes (goal ≤ 20%); every USD/JPY range read now needs {int(scans):,} scans.",
        {"analysis": mine},
    )


def _dashboard_key(key: list, ds) -> tuple[bool, str, dict[str, Any]]:
    from workbench.analysis import analyze
    from workbench.schema import Family, RowKey, Schema, Tall
    from workbench.schema.segments import Segment

    if (
        not isinstance(key, (list, tuple))
        or not key
        or not all(isinstance(s, Segment) for s in key)
    ):
        return (
            False,
            "the answer is a list of key segments, e.g. "
            f'[wb.Field("site"), wb.Timestamp("ms", "epoch_ms")]; got {key!r}.',
            {},
        )
    mine = Schema("my_key", RowKey(tuple(key)), Tall(Family("m")))
    try:
        a = analyze(ds, mine)
    except CollisionError as exc:
        lost = error_line(exc).split(":")[0]  # "29,884 events collide"
        return (
            False,
            f"with this key {lost}: readings of one host at one time share a row, so Bigtable "
            "would keep only one. Keep every segment that tells two readings apart.",
            {},
        )
    dash = a.queries["site_cpu_dashboard"]
    hot = a.keyspace.hotspot_factor
    scans = int(dash["scans"])
    return (
        dash["waste"] <= 1.5 and hot <= 1.5 and scans == 1,
        f"the dashboard reads {int(dash['rows_seen']):,} rows to return "
        f"{int(dash['rows_returned']):,} ({dash['waste']:,.1f}×, goal ≤ 1.5×) in {scans:,} key "
        f"range(s) (goal: one, whatever hosts the site has); busiest node {hot:.2f}× its fair "
        "share (goal ≤ 1.5×).",
        {"schema": mine, "analysis": a},
    )


_SUMMARY_NAMES = {"minute": "per_minute", "hour": "hourly", "day": "daily", "week": "weekly"}


def _summary_name(bucket: str) -> str:
    """The summary rows' name: ``agg#daily#…`` for days, as the notebook's text shows."""
    return _SUMMARY_NAMES.get(bucket, f"per_{bucket}")


def summary_bucket(answer: Any) -> str | None:
    """The bucket an answer names: "day", or "daily" as the rows are called (``agg#daily#…``);
    None when it names none."""
    from workbench.schema.time_text import PRECISIONS

    by_name = {name: bucket for bucket, name in _SUMMARY_NAMES.items()}
    if not isinstance(answer, str):
        return None
    word = answer.strip().lower()
    word = by_name.get(word, word)
    return word if word in PRECISIONS else None


def daily_panel_design(bucket: str, base):
    """The energy summary design for ``bucket`` ("hour", "day"…): ``base``'s key and layout."""
    from workbench.schema import Aggregates, Family, Schema

    return Schema(
        "meter_summaries",
        base.key,
        base.layout,
        aggregates=Aggregates(bucket, _summary_name(bucket), "agg", ("count", "sum"), Family("s")),
    )


def daily_panel_dataset(ds, bucket: str):
    """The billing dataset: ``ds``'s events with one query, meter 100001's sums per ``bucket``."""
    import pandas as pd

    from workbench.datasets import QueryIntent, from_dataframe

    day = ds.query("meter_day")
    panel = QueryIntent(
        "meter_daily_usage",
        "range",
        "meter 100001's daily kWh over the whole period",
        entity=day.entity,
        start=ds.time_span[0].floor("D"),
        end=ds.time_span[1].floor("D") + pd.Timedelta(days=1),
        aggregate=f"{_summary_name(bucket)}:sum",
    )
    return from_dataframe(
        ds.frame,
        entity=["meter_id"],
        time="time",
        measures=["kwh", "voltage"],
        name="energy_billing",
        queries=[panel],
    )


def _daily_panel(answer: str, ds, base) -> tuple[bool, str, dict[str, Any]]:
    from workbench.analysis import analyze

    bucket = summary_bucket(answer)
    if bucket is None:
        words = ["minute", "hour", "day", "week", "month", "hourly", "daily", "weekly"]
        return False, _not_a_name(answer, words, "a summary bucket") or "", {}
    design = daily_panel_design(bucket, base)
    billing = daily_panel_dataset(ds, bucket)
    cost = analyze(billing, design).queries["meter_daily_usage"]
    days = (ds.time_span[1].normalize() - ds.time_span[0].normalize()).days + 1
    rows = int(cost["rows_seen"])
    return (
        rows <= days and int(cost["rows_returned"]) > 0,
        f"with summaries per {bucket} the panel reads {rows:,} rows for {days} days (goal ≤ {days}).",
        {"design": design, "billing": billing, "cost": cost},
    )


def _lab_pattern(pattern: str, lab) -> tuple[bool, str, dict[str, Any]]:
    options = [str(o) for o in lab.controls.pattern.options]
    if (why := _not_a_name(pattern, options, "one of the designer's patterns")) is not None:
        return False, why, {}
    lab.controls.pattern.value = pattern
    share = lab.analysis.keyspace.mean_write_share
    fair = 1 / lab.analysis.keyspace.nodes
    return (
        share <= 0.5,
        f"{pattern}: the busiest node takes {share:.1%} of the writes (goal ≤ 50%; a fair share "
        f"is {fair:.0%}).",
        {},
    )


def _dashboard_solution() -> list:
    from workbench.schema import Field, Timestamp

    return [Field("site"), Field("what"), Timestamp("ms", "epoch_ms"), Field("host")]


garden_month = Problem(
    "garden_month",
    'a gallery design name, e.g. "daily_rows"',
    _garden_month,
    "one row per garden per month keeps a month together and stops growing when the month ends.",
    "month_rows",
    '"month_rows": the month query reads one row, and a row closes when its month ends (G02, G10).',
)
game_both = Problem(
    "game_both",
    "a gallery design name",
    _game_both,
    "one key cannot put both the player and the time right after the game: think two tables.",
    "two_tables",
    '"two_tables": one table keyed game#player#time, one game#time#player (G04, G05).',
)
balloon_format = Problem(
    "balloon_format",
    "a gallery design name",
    _balloon_format,
    "one compact cell per reading: which serialization is smallest?",
    "serialized_protobuf",
    '"serialized_protobuf": one small cell per reading, flexible for new queries (G14, G28).',
)
fx_salt = Problem(
    "fx_salt",
    "a whole number of salt buckets",
    _fx_salt,
    "salt counts that are a multiple of the node count spread best.",
    8,
    "8 (a multiple of the 8 nodes): each node gets about one bucket of every pair (G08).",
)
dashboard_key = Problem(
    "dashboard_key",
    "a list of key segments",
    _dashboard_key,
    "put the segments the dashboard fixes first, then the time, then what it leaves open.",
    lambda: _dashboard_solution(),
    'site, what, time, host: [wb.Field("site"), wb.Field("what"), '
    'wb.Timestamp("ms", "epoch_ms"), wb.Field("host")] (G04, G07).',
)
daily_panel = Problem(
    "daily_panel",
    'a summary bucket, e.g. "hour"',
    _daily_panel,
    "summaries per hour still leave 24 rows per day: pick a coarser bucket.",
    "day",
    '"day": one summary row per day, so ten days read ten rows (G30).',
)
lab_pattern = Problem(
    "lab_pattern",
    "one of lab.controls.pattern.options",
    _lab_pattern,
    "put the meter ID before the time in the key (field promotion, G07).",
    "entity_first",
    '"entity_first": each meter\'s writes stay in its own key range (G07).',
)


PROBLEMS: dict[str, Problem] = {
    p.name: p
    for p in (
        garden_month,
        game_both,
        balloon_format,
        fx_salt,
        dashboard_key,
        daily_panel,
        lab_pattern,
    )
}
