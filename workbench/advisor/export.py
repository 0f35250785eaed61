"""Hand a chosen design over to production: ``cbt`` commands, a Python snippet and GoogleSQL.

    exp = wb.export(schema, ds)
    exp.cbt_commands("my-project", "my-instance", "garden")   # createtable / createfamily / setgcpolicy
    exp.python_snippet("my-project", "my-instance", "garden")  # official client: create, write one row, read it back
    exp.sql("garden")                                          # GoogleSQL for each of the dataset's queries

An export is text only: nothing here connects anywhere. The one helper that runs
the commands, :meth:`Export.apply_to_emulator`, refuses anything but an emulator
host. Table IDs follow ``workbench.bigtable.admin``: the main table is
``<table_id>``, a second table of the design (G05) is ``<table_id>--<name>``.

GoogleSQL follows Bigtable's dialect: ``_key`` is the row key, each family is a
``MAP`` column read as ``family['qualifier']``, key ranges are written
``_key >= '…' AND _key < '…'``, cell versions need ``table(with_history => TRUE, …)``.
The emulator has no SQL, so the statements are checked against the read plans they
come from, not executed.

Why one module: the cbt, Python and SQL forms of a design all derive from one ``Export`` (its
table IDs, families and plans); the per-query read commands live in ``read_export.py``.
"""

from __future__ import annotations

import html
import os
import re
import shlex
import subprocess
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from ..datasets.model import Dataset
from ..errors import SchemaError, WorkbenchError
from ..schema import Family, MaxAge, MaxVersions, Schema, Union_
from ..schema.families import cbt_gc, cbt_inline
from ..schema.plan import ReadPlan
from .read_export import cbt_read_lines, python_read, python_read_on_emulator, row_set_lines

DEFAULT_PROJECT = "my-project"
DEFAULT_INSTANCE = "my-instance"
# the two forms of a reverse scan in the printed reads
_PRODUCTION = "# On Cloud Bigtable: a reverse scan (the emulator refuses it: 501)."
_ON_EMULATOR = (
    "# On the emulator (no reverse scans): the same ranges read forward, the last rows kept."
)


# ----------------------------------------------------------------------------- GC rules


def _py_gc(rule: Any) -> str:
    if rule is None:
        return "None"
    if isinstance(rule, MaxAge):
        return f"column_family.MaxAgeGCRule(datetime.timedelta(seconds={rule.seconds}))"
    if isinstance(rule, MaxVersions):
        return f"column_family.MaxVersionsGCRule({rule.n})"
    cls = "GCRuleUnion" if isinstance(rule, Union_) else "GCRuleIntersection"
    return f"column_family.{cls}([{', '.join(_py_gc(r) for r in rule.rules)}])"


# ----------------------------------------------------------------------------- SQL helpers


def _key_condition(start: str | None, end: str | None) -> str:
    """A GoogleSQL condition on ``_key`` for the key range [start, end); a bound may be open."""
    if start is not None and end is not None:
        return f"(_key >= {sql_string(start)} AND _key < {sql_string(end)})"
    if start is not None:
        return f"_key >= {sql_string(start)}"
    return f"_key < {sql_string(end or '')}"


def sql_string(text: str) -> str:
    """A GoogleSQL string literal ('…' with \\\\, \\' and \\u escapes for control characters)."""
    out = []
    for ch in text:
        if ch in ("\\", "'"):
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "'" + "".join(out) + "'"


def _ident(name: str) -> str:
    return "`" + name.replace("`", "\\`") + "`"


def _ts_literal(us: int) -> str:
    return f"TIMESTAMP('{pd.Timestamp(us, unit='us', tz='UTC').isoformat()}')"


def _cast(expr: str, dtype: str | None) -> str:
    d = (dtype or "").lower()
    if d.startswith("float") or d.startswith(("int", "uint")):
        target = "FLOAT64" if d.startswith("float") else "INT64"
        return f"CAST(CAST({expr} AS STRING) AS {target})"
    if d == "bool":
        return f"CAST({expr} AS STRING) = 'true'"
    return f"CAST({expr} AS STRING)"


# a column _cast made: (CAST(CAST() its map access (AS STRING) AS T)) AS `alias`
_CAST_COLUMN = re.compile(
    r"^(CAST\((?:CAST\()?)(.*?)( AS STRING\)(?: AS \w+\))?(?: = 'true')?) AS (`.*`)$"
)


def _unpacked(cols: list[str], src: str, tail: list[str]) -> list[str]:
    """A history read whose values are cast: with ``with_history => TRUE`` a column is an
    ARRAY<STRUCT<timestamp, value>>, which no scalar CAST takes. The inner query reads the raw
    columns (the plan's WHERE, order and row limit apply to rows there), ``UNPACK`` turns each
    cell version into a row with its ``_timestamp``, and the outer SELECT casts each value
    (GoogleSQL for Bigtable: "Table functions (built in)", UNPACK)."""
    inner, outer = [], []
    for c in cols:
        m = _CAST_COLUMN.match(c)
        if m is None:  # not cast: passed through as UNPACK gives it
            alias = c.rpartition(" AS ")[2]
            inner.append(c)
            outer.append(alias)
            continue
        pre, raw, post, alias = m.groups()
        inner.append(f"{raw} AS {alias}")
        outer.append(f"{pre}{alias}{post} AS {alias}")
    return [
        "SELECT _key, _timestamp, " + ",\n       ".join(outer),
        "FROM UNPACK((",
        "  SELECT _key, " + ",\n         ".join(inner),
        f"  FROM {src}",
        *(f"  {line}" for line in tail),
        "))",
    ]


def _sql_tail(plan: ReadPlan) -> list[str]:
    """WHERE / ORDER BY / LIMIT for one request of a plan."""
    where = []
    conds = [_key_condition(r.start, r.end) for r in plan.ranges if not r.is_full]
    conds += [f"_key = {sql_string(k)}" for k in plan.keys]
    if conds and not plan.full_scan:
        where.append(conds[0] if len(conds) == 1 else "(" + "\n       OR ".join(conds) + ")")
    if plan.filter.row_key_regex is not None:
        rx = "^(?:" + plan.filter.row_key_regex + ")$"
        where.append(f"REGEXP_CONTAINS(CAST(_key AS STRING), {sql_string(rx)})")
    out = ["WHERE " + "\n  AND ".join(where)] if where else []
    if plan.reversed:
        # the newest rows of the range: the same reverse scan the read plan issues
        out.append("ORDER BY _key DESC")
    if plan.rows_limit:
        out.append(f"LIMIT {plan.rows_limit}")
    return out


# ----------------------------------------------------------------------------- the export


@dataclass(frozen=True)
class Export:
    """A design ready for production, as text: cbt commands, a Python snippet, GoogleSQL."""

    schema: Schema
    ds: Dataset | None = None
    table_id: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.schema, Schema):
            raise WorkbenchError(
                f"export() needs a workbench Schema, got {type(self.schema).__name__}."
            )
        if self.ds is not None:
            # the plans the analysis costs, the same ones (compared at the default read costs)
            from ..analysis.settings import DEFAULT

            bound = self.schema.bind(self.ds, costs=self.schema.costs or DEFAULT.read_costs())
            object.__setattr__(self, "schema", bound)

    # -- names -------------------------------------------------------------------------------
    def default_table_id(self) -> str:
        from ..bigtable.admin import default_table_id

        return self.table_id or default_table_id(
            (self.ds.name if self.ds is not None else None) or self.schema.dataset or "table",
            self.schema.name,
        )

    def table_ids(self, table_id: str | None = None) -> dict[str, str]:
        """Logical table → Cloud Bigtable table ID."""
        from ..bigtable.admin import table_ids

        fams = self.families()
        return table_ids(table_id or self.default_table_id(), list(fams), self.schema.table)

    def families(self) -> dict[str, tuple[Family, ...]]:
        fams = self.schema.table_families()
        if not any(fams.values()):
            raise SchemaError(
                f"Schema {self.schema.name!r} names no families without the dataset's measures: "
                "export(schema, ds)."
            )
        return fams

    # -- cbt ---------------------------------------------------------------------------------
    def cbt_argv(
        self,
        project: str = DEFAULT_PROJECT,
        instance: str = DEFAULT_INSTANCE,
        table_id: str | None = None,
    ) -> list[list[str]]:
        """The commands as argument lists (for ``subprocess``), in order."""
        base = ["cbt", "-project", project, "-instance", instance]
        out: list[list[str]] = []
        ids = self.table_ids(table_id)
        for logical, fams in self.families().items():
            tid = ids[logical]
            typed = [f for f in fams if f.aggregate]
            for f in typed:
                if f.aggregate != "sum":
                    raise SchemaError(
                        f"Family {f.name!r}: only aggregate='sum' can be exported (cbt type intsum)."
                    )
            create = base + ["createtable", tid]
            if typed:  # a family's value type can only be given when the table is created
                create.append(
                    "families=" + ",".join(f"{f.name}:{cbt_inline(f.gc)}:intsum" for f in typed)
                )
            out.append(create)
            for f in fams:
                if f.aggregate:
                    continue
                out.append(base + ["createfamily", tid, f.name])
                if f.gc is not None:
                    out.append(base + ["setgcpolicy", tid, f.name, *cbt_gc(f.gc)])
        return out

    def cbt_commands(
        self,
        project: str = DEFAULT_PROJECT,
        instance: str = DEFAULT_INSTANCE,
        table_id: str | None = None,
    ) -> list[str]:
        """Shell lines that create the design's table(s), families and GC policies."""
        return [shlex.join(a) for a in self.cbt_argv(project, instance, table_id)]

    def cbt_script(
        self,
        project: str = DEFAULT_PROJECT,
        instance: str = DEFAULT_INSTANCE,
        table_id: str | None = None,
    ) -> str:
        head = [
            f"# {self.schema.name}: row key {self.schema.key.template()}",
            "# Against the emulator: export BIGTABLE_EMULATOR_HOST=127.0.0.1:<port> first.",
        ]
        return "\n".join(head + self.cbt_commands(project, instance, table_id)) + "\n"

    def apply_to_emulator(
        self,
        host: str,
        table_id: str | None = None,
        *,
        project: str = "workbench",
        instance: str = "workbench",
        timeout: float = 60.0,
    ) -> list[subprocess.CompletedProcess]:
        """Run the cbt commands against an emulator at ``host`` (never a real instance)."""
        if not host or not re.match(r"^[\w.-]+:\d+$", host):
            raise WorkbenchError(
                f"apply_to_emulator needs an emulator host:port, got {host!r}; exports never run "
                "against Cloud Bigtable by themselves."
            )
        env = {**os.environ, "BIGTABLE_EMULATOR_HOST": host}
        done = []
        for argv in self.cbt_argv(project, instance, table_id):
            r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)
            if r.returncode != 0:
                raise WorkbenchError(
                    f"{shlex.join(argv)} failed ({r.returncode}): {r.stderr.strip()[-500:]}"
                )
            done.append(r)
        return done

    # -- Python --------------------------------------------------------------------------------
    def _example(self) -> tuple[str, list[tuple[str, str, bytes, int]], Any] | None:
        """The first event's row key and cells in the main table, and the read plan that finds it."""
        if self.ds is None or len(self.ds.frame) == 0:
            return None
        import warnings

        from ..datasets.model import QueryIntent

        ds = replace(self.ds, frame=self.ds.frame.head(1))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cells = self.schema.to_cells(ds, accept_loss=True).frame
        cells = cells[cells["table"] == self.schema.table]
        if self.schema.aggregates is not None:
            lead = (
                self.schema.aggregates.lead(self.schema.key.delimiter) + self.schema.key.delimiter
            )
            cells = cells[~cells["row_key"].str.startswith(lead)]
        key = str(cells["row_key"].iloc[0])
        one = cells[cells["row_key"] == key]
        row = ds.frame.iloc[0]
        t = pd.Timestamp(row[self.ds.time])
        intent = QueryIntent(
            "exported_example",
            "range",
            "the exported example row",
            entity={c: row[c] for c in self.ds.entity},
            start=t,
            end=t + pd.Timedelta(seconds=1),
        )
        plan = self.schema.plan(intent)
        return (
            key,
            [(r.family, r.qualifier, r.value, int(r.timestamp_us)) for r in one.itertuples()],
            plan,
        )

    def python_snippet(
        self,
        project: str = DEFAULT_PROJECT,
        instance: str = DEFAULT_INSTANCE,
        table_id: str | None = None,
    ) -> str:
        """A short program with the official client: create the table if missing, write one row, read its range."""
        ids = self.table_ids(table_id)
        tid = ids[self.schema.table]
        fams = self.families()[self.schema.table]
        lines = [
            f'"""{self.schema.name}: row key {self.schema.key.template()} (exported by the workbench)."""',
            "import datetime",
            "",
            "from google.cloud import bigtable",
            "from google.cloud.bigtable import column_family",
            "from google.cloud.bigtable.row_set import RowSet",
            "",
            "# With BIGTABLE_EMULATOR_HOST set this talks to the emulator; without it, to Cloud Bigtable.",
            f"client = bigtable.Client(project={project!r}, admin=True)",
            f"instance = client.instance({instance!r})",
            f"table = instance.table({tid!r})",
            "",
            "families = {",
        ]
        lines += [f"    {f.name!r}: {_py_gc(f.gc)}," for f in fams if not f.aggregate]
        lines.append("}")
        agg = [f.name for f in fams if f.aggregate]
        if agg:
            lines.append(
                f"# aggregate (sum) families {agg} need a value type: create them with the cbt commands"
            )
        lines += ["if not table.exists():", "    table.create(column_families=families)", ""]
        ex = self._example()
        if ex is None:
            lines.append(
                "# export(schema, ds) with a dataset adds a write and a read of an example row here"
            )
            return "\n".join(lines) + "\n"
        key, cells, plan = ex
        lines += [f"key = {key.encode('utf-8')!r}", "row = table.direct_row(key)"]
        for fam, q, v, ts in cells:
            t = pd.Timestamp(ts, unit="us", tz="UTC")
            lines.append(
                f"row.set_cell({fam!r}, {q.encode('utf-8')!r}, {bytes(v)!r}, timestamp=datetime.datetime("
                f"{t.year}, {t.month}, {t.day}, {t.hour}, {t.minute}, {t.second}, {t.microsecond}, "
                "tzinfo=datetime.timezone.utc))"
            )
        lines += ["row.commit()", "", f"# read back: {plan.describe()}", "row_set = RowSet()"]
        if plan.full_scan:
            lines.append(
                "row_set = None  # this design needs a full-table scan for the example's range"
            )
        lines += row_set_lines(plan)
        lines += [
            "rows = list(table.read_rows(row_set=row_set))",
            "for r in rows:",
            "    for fam, cols in r.cells.items():",
            "        for q, versions in cols.items():",
            "            print(r.row_key.decode(), fam, q.decode(), versions[0].value)",
            "assert any(r.row_key == key for r in rows), 'the written row was not read back'",
            "print(f'read back {len(rows)} row(s)')",
        ]
        return "\n".join(lines) + "\n"

    # -- SQL -------------------------------------------------------------------------------------
    def _select(self, plan: ReadPlan) -> tuple[list[str], bool]:
        """SELECT expressions for a plan and whether cell versions (history) are needed."""
        s, shape = self.schema, self.schema.shape
        lay = s.layout
        if s.aggregates is not None and plan.filter.families == (s.aggregates.family.name,):
            return [f"{_ident(s.aggregates.family.name)} AS {s.aggregates.name}"], False
        from ..schema import NewCells, NewColumns, Serialized, Tall, Wide

        measures = list(shape.measures) if shape is not None else []
        key = dict(s.all_tables())[plan.table]
        carried = [
            c
            for c in ((*shape.entity, *shape.attributes) if shape else ())
            if c not in set(key.recovers())
        ]
        if isinstance(lay, NewColumns):
            return [f"MAP_KEYS({_ident(lay.family.name)}) AS {lay.family.name}_values"], True
        if isinstance(lay, Serialized):
            return [
                f"{_ident(lay.family.name)}[{sql_string(lay.qualifier)}] AS payload_{lay.format}"
            ], False
        if isinstance(lay, Wide):  # HeroicOffsets too: the qualifier is the position in the bucket
            return [f"{_ident(lay.family_of(m).name)} AS {m}" for m in measures], False
        if isinstance(lay, Tall):
            fam = _ident(lay.family.name)
            if key.metric is not None:
                return [f"{fam}[{sql_string(lay.value_qualifier)}] AS value"], isinstance(
                    lay, NewCells
                )
            cols = [
                c
                for c in (*measures, *carried)
                if plan.filter.qualifier_regex is None
                or re.fullmatch(plan.filter.qualifier_regex, lay.qname(c))
            ]
            return (
                [
                    _cast(f"{fam}[{sql_string(lay.qname(c))}]", shape.dtype(c) if shape else None)
                    + f" AS {_ident(c)}"
                    for c in cols
                ],
                isinstance(lay, NewCells),
            )
        return ["*"], False

    def sql(self, table_id: str | None = None) -> dict[str, str]:
        """GoogleSQL for each of the dataset's queries (heaviest first), from the schema's read plans."""
        if self.ds is None:
            raise WorkbenchError(
                "sql() writes the dataset's queries: export(schema, ds) with the dataset."
            )
        ids = self.table_ids(table_id)
        out: dict[str, str] = {}
        for q in sorted(self.ds.queries, key=lambda q: -q.weight):
            try:
                plan = self.schema.plan(q)
            except SchemaError as e:
                out[q.name] = f"-- {q.name}: this design cannot serve the query: {e}"
                continue
            cols, history = self._select(plan)
            args = []
            flt = plan.filter
            key_bounds_time = (
                not self.schema.layout.multi_event
                and not plan.full_scan
                and all(r.prefix is None for r in plan.ranges)
                and flt.row_key_regex is None
            )
            cells_in_time = flt.time_range_us is not None and not key_bounds_time
            # the key does not pin the time: filter cell timestamps (each column's versions)
            history = history or cells_in_time or bool(flt.latest_versions)
            if history:
                args.append("with_history => TRUE")
                if flt.time_range_us is not None:
                    lo, hi = flt.time_range_us
                    if lo is not None:
                        args.append(f"after_or_equal => {_ts_literal(lo)}")
                    if hi is not None:
                        args.append(f"before => {_ts_literal(hi)}")
                if flt.latest_versions:
                    args.append(f"latest_n => {flt.latest_versions}")
            src = _ident(ids[plan.table]) + (f"({', '.join(args)})" if args else "")
            head = [
                f"-- {q.name} ({q.kind}, weight {q.weight:g}): {q.description}",
                f"-- plan: {plan.describe()}",
            ]
            if plan.full_scan:
                head.append(
                    "-- full-table scan: every row is read (G04); a second table keyed for it avoids that (G05)"
                )
            unpack = history and any(_CAST_COLUMN.match(c) for c in cols)
            if unpack:
                head.append(
                    "-- with_history: UNPACK gives one row per cell version (its _timestamp), "
                    "so each value is cast one by one"
                )
            elif history:
                head.append(
                    "-- with_history: each column is the list of its (timestamp, value) cells in the time range"
                )
            if q.aggregate:
                head.append(f"-- then {q.aggregate} on the rows returned")
            select = ["SELECT _key, " + ",\n       ".join(cols), f"FROM {src}"]
            parts = plan.parts()
            bodies = [
                _unpacked(cols, src, _sql_tail(p)) if unpack else select + _sql_tail(p)
                for p in (parts if len(parts) > 1 else [plan])
            ]
            if len(parts) == 1:
                body = bodies[0]
            else:
                # a rows limit per range: GoogleSQL for Bigtable has no UNION (nor subqueries
                # beyond UNPACK's: "GoogleSQL for Bigtable overview"), so one statement per
                # range, each with its own limit, run one after the other
                head.append(
                    f"-- {len(parts)} statements, one per range, each with its own ORDER BY … "
                    "LIMIT (GoogleSQL for Bigtable has no UNION): run each"
                )
                if plan.client_keeps:
                    head.append(f"-- then keep the newest {plan.client_keeps} of these rows")
                body = [";\n\n".join("\n".join(b) for b in bodies) + ";"]
            out[q.name] = "\n".join(head + body)
        return out

    # -- reads -----------------------------------------------------------------------------------
    def plans(self) -> dict[str, ReadPlan]:
        """The read plan of each of the dataset's queries (heaviest first) that the design serves."""
        if self.ds is None:
            raise WorkbenchError(
                "Reads are the dataset's queries: export(schema, ds) with the dataset."
            )
        out: dict[str, ReadPlan] = {}
        for q in sorted(self.ds.queries, key=lambda q: -q.weight):
            try:
                out[q.name] = self.schema.plan(q)
            except SchemaError:
                continue
        return out

    def cbt_reads(
        self,
        project: str = DEFAULT_PROJECT,
        instance: str = DEFAULT_INSTANCE,
        table_id: str | None = None,
        *,
        emulator: bool = False,
    ) -> dict[str, str]:
        """``cbt read``/``cbt lookup`` lines for each query, following its read plan (the
        emulator's form with ``emulator=True``: no reverse scans)."""
        ids = self.table_ids(table_id)
        out = {}
        for name, plan in self.plans().items():
            emu = plan.on_emulator()
            forms = [] if emulator else [(_PRODUCTION if emu is not plan else "", plan)]
            if emulator or emu is not plan:
                keep = (
                    f" The last {plan.rows_limit} row(s) each command prints are the answer."
                    if plan.reversed and plan.rows_limit
                    else ""
                )
                forms.append(((_ON_EMULATOR + keep) if emu is not plan else "", emu))
            text = [f"# {name}: {forms[0][1].describe()}"]
            for label, p in forms:
                text += [label] if label else []
                text += cbt_read_lines(p, ids[p.table], project, instance)
            out[name] = "\n".join(text)
        return out

    def python_reads(
        self, table_id: str | None = None, *, emulator: bool = False
    ) -> dict[str, str]:
        """Python for each query: the plan's RowSet(s), filter, limit and direction, with the row
        keys read left in ``row_keys`` (``table`` is the query's table, as in ``python_snippet``).
        A reverse scan, which the emulator refuses, is printed twice, each labelled: as Cloud
        Bigtable runs it, then as the emulator can (read forward, the last rows kept); with
        ``emulator=True`` only the emulator's form."""
        out = {}
        for name, plan in self.plans().items():
            emu = plan.on_emulator()
            if emu is plan:  # the emulator runs it as it is
                out[name] = f"# {name}: {plan.describe()}\n" + python_read(plan)
                continue
            on_emulator = f"{_ON_EMULATOR}\n" + python_read_on_emulator(plan)
            if emulator:
                out[name] = f"# {name}: {emu.describe()}\n" + on_emulator
            else:
                out[name] = (
                    f"# {name}: {plan.describe()}\n{_PRODUCTION}\n"
                    + python_read(plan)
                    + "\n"
                    + on_emulator
                )
        return out

    # -- display -----------------------------------------------------------------------------------
    def __str__(self) -> str:
        parts = ["# cbt", self.cbt_script_safe(), "# Python", self.python_snippet()]
        if self.ds is not None:
            parts += ["# cbt reads", *self.cbt_reads().values()]
            parts += ["# Python reads", *self.python_reads().values()]
            parts += ["# GoogleSQL", *self.sql().values()]
        return "\n".join(parts)

    def cbt_script_safe(self) -> str:
        try:
            return self.cbt_script()
        except SchemaError as e:
            return f"# cbt cannot create this design: {e}"

    def _repr_html_(self) -> str:
        def pre(text: str) -> str:
            return (
                "<pre style='background:#f6f6f6;padding:6px;overflow-x:auto;white-space:pre'>"
                + html.escape(text)
                + "</pre>"
            )

        out = [
            f"<div class='wb-export'><b>Export of {html.escape(self.schema.name)}</b> — row key "
            f"<code>{html.escape(self.schema.key.template())}</code>, tables "
            + ", ".join(f"<code>{html.escape(v)}</code>" for v in self.table_ids().values())
            + "<br><small>Text only: nothing is created until you run it. Set BIGTABLE_EMULATOR_HOST to try it on "
            "the emulator first.</small>",
            "<h4>cbt</h4>",
            pre(self.cbt_script_safe()),
            "<h4>Python (google-cloud-bigtable)</h4>",
            pre(self.python_snippet()),
        ]
        if self.ds is not None:
            out += ["<h4>Reads (cbt)</h4>", pre("\n\n".join(self.cbt_reads().values()))]
            out += ["<h4>GoogleSQL</h4>", pre("\n\n".join(self.sql().values()))]
        return "".join(out) + "</div>"


def export(schema: Schema, ds: Dataset | None = None, *, table_id: str | None = None) -> Export:
    """The design as cbt commands, a Python snippet and GoogleSQL (text only; runs nothing)."""
    return Export(schema, ds, table_id)


__all__ = ["Export", "export", "cbt_gc", "sql_string"]
