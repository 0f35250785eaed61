"""A read plan as the commands a user runs by hand: ``cbt read``/``cbt lookup`` and Python.

Both follow the plan exactly where the tool can: the same ranges, prefixes and keys, the same
row-key regex, column filter, cells-per-column limit, rows limit and direction. What a tool
cannot express is said in a comment next to the command, never silently dropped:

* ``cbt read`` takes one range per command, so a multi-range plan is several commands (the
  workbench sends them as one request); it has no timestamp filter, so cells outside the plan's
  time range are printed too.
* The Python client's ``Table.read_rows`` has no ``reversed`` flag (google-cloud-bigtable 2.x),
  so a reverse scan goes through the data API's ``ReadRowsRequest`` directly.

The emulator refuses reverse scans (``501 Client doesn't support reverse scans yet``):
:func:`python_read_on_emulator` prints a reversed plan as the emulator can run it — the same
requests read forward, the last ``rows_limit`` rows of each kept (what the reverse scan
returns) — and the export shows it beside the production form.
"""

from __future__ import annotations

import dataclasses
import shlex

from ..schema.plan import CellFilter, ReadPlan, family_regex


def cbt_columns(flt: CellFilter) -> str | None:
    """``columns=`` for cbt: ``family:qualifier-regex`` entries (cbt reads both as regexes)."""
    if flt.families is None and flt.qualifier_regex is None:
        return None
    q = flt.qualifier_regex or ""
    if "," in q or ":" in q:
        return None  # cbt splits columns= on ',' and ':'; the Python form carries the filter
    fams = flt.families if flt.families is not None else (".*",)
    return ",".join(f"{f}:{q}" if q else f"{f}:" for f in fams)


def cbt_read_argv(
    plan: ReadPlan, table_id: str, project: str, instance: str
) -> tuple[list[list[str]], list[str]]:
    """The plan as ``cbt`` argument lists, and notes on what cbt cannot express."""
    base = ["cbt", "-project", project, "-instance", instance]
    flt = plan.filter
    notes: list[str] = []
    opts: list[str] = []
    if flt.row_key_regex is not None:
        opts.append(f"regex={flt.row_key_regex}")
    cols = cbt_columns(flt)
    if cols is not None:
        opts.append(f"columns={cols}")
    elif flt.families is not None or flt.qualifier_regex is not None:
        notes.append("the column filter has ',' or ':' that cbt cannot pass: every column is read")
    if flt.latest_versions is not None:
        opts.append(f"cells-per-column={flt.latest_versions}")
    if flt.time_range_us is not None:
        notes.append(
            "cbt has no timestamp filter: cells outside the time range are printed too "
            "(the Python form filters them)"
        )
    tail = []
    if plan.reversed:
        tail.append("reversed=true")
    if plan.rows_limit is not None:
        tail.append(f"count={plan.rows_limit}")
    cmds: list[list[str]] = []
    if plan.full_scan:
        cmds.append(base + ["read", table_id, *opts, *tail])
        return cmds, notes
    if plan.n_ranges > 1 and not plan.limit_per_range:
        notes.append(
            f"cbt reads one range per command: {plan.n_ranges} commands for the plan's one request"
        )
    for r in sorted(plan.ranges, key=lambda r: (r.start or "").encode("utf-8")):
        if r.prefix is not None:
            rng = [f"prefix={r.prefix}"]
        else:
            rng = ([f"start={r.start}"] if r.start is not None else []) + (
                [f"end={r.end}"] if r.end is not None else []
            )
        cmds.append(base + ["read", table_id, *rng, *opts, *tail])
    look = [o for o in opts if not o.startswith("regex=")]  # a key is exact: no regex needed
    for k in sorted(set(plan.keys)):
        cmds.append(base + ["lookup", table_id, k, *look])
    return cmds, notes


def cbt_read_lines(plan: ReadPlan, table_id: str, project: str, instance: str) -> list[str]:
    cmds, notes = cbt_read_argv(plan, table_id, project, instance)
    return [f"# {n}" for n in notes] + [shlex.join(c) for c in cmds]


def _py_filter(flt: CellFilter) -> list[str]:
    parts = []
    if flt.families is not None:
        parts.append(f"row_filters.FamilyNameRegexFilter({family_regex(flt.families)!r})")
    if flt.qualifier_regex is not None:
        parts.append(
            f"row_filters.ColumnQualifierRegexFilter({flt.qualifier_regex.encode('utf-8')!r})"
        )
    if flt.row_key_regex is not None:
        parts.append(f"row_filters.RowKeyRegexFilter({flt.row_key_regex.encode('utf-8')!r})")
    if flt.time_range_us is not None:
        lo, hi = flt.time_range_us
        parts.append(
            "row_filters.TimestampRangeFilter(row_filters.TimestampRange("
            + (f"start=_us({lo})" if lo is not None else "start=None")
            + ", "
            + (f"end=_us({hi})" if hi is not None else "end=None")
            + "))"
        )
    if flt.latest_versions is not None:
        parts.append(f"row_filters.CellsColumnLimitFilter({flt.latest_versions})")
    return parts


def row_set_lines(plan: ReadPlan, var: str = "row_set") -> list[str]:
    """Python lines adding the plan's ranges and keys to the client's ``RowSet`` ``var``."""
    lines = []
    for r in plan.ranges:
        s = repr(r.start.encode("utf-8")) if r.start is not None else "None"
        e = repr(r.end.encode("utf-8")) if r.end is not None else "None"
        lines.append(f"{var}.add_row_range_from_keys(start_key={s}, end_key={e})")
    for k in plan.keys:
        lines.append(f"{var}.add_row_key({k.encode('utf-8')!r})")
    return lines


def python_read_on_emulator(plan: ReadPlan, table_var: str = "table") -> str:
    """A reversed plan as the emulator runs it: each request read forward, its last
    ``rows_limit`` rows kept (the rows the reverse scan returns), in ``row_keys``. A plan that
    is not reversed is :func:`python_read` itself."""
    if not plan.reversed:
        return python_read(plan, table_var)
    forward = dataclasses.replace(plan, reversed=False, rows_limit=None)
    return python_read(forward, table_var, keep_last=plan.rows_limit)


def python_read(plan: ReadPlan, table_var: str = "table", *, keep_last: int | None = None) -> str:
    """Python (official client) that sends the plan's RowSet, filter, limit and direction and
    leaves the row keys read in ``row_keys`` (one request, or one per range); ``keep_last``
    keeps only the last rows of each request (a reverse scan's answer, read forward)."""
    lines = [
        "import datetime",
        "",
        "from google.cloud.bigtable import row_filters",
        "from google.cloud.bigtable.row_set import RowSet",
        "",
        "",
        "def _us(us):  # a timestamp bound, microseconds since the epoch",
        "    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)",
        "    return epoch + datetime.timedelta(microseconds=us)",
        "",
        "",
    ]
    parts = _py_filter(plan.filter)
    if not parts:
        lines.append("flt = None")
    elif len(parts) == 1:
        lines.append(f"flt = {parts[0]}")
    else:
        lines.append("flt = row_filters.RowFilterChain(filters=[")
        lines += [f"    {p}," for p in parts]
        lines.append("])")
    lines.append("requests = []  # one RowSet per ReadRows request (None: the whole table)")
    if plan.reversed:
        lines.append(
            "from google.cloud.bigtable_v2.types import ReadRowsRequest, RowRange, "
            "RowSet as RowSetPb"
        )
    for part in plan.parts():
        if part.full_scan:
            lines.append("requests.append(None)")
            continue
        if plan.reversed:
            rr = []
            for r in part.ranges:
                args = ([f"start_key_closed={r.start.encode('utf-8')!r}"] if r.start else []) + (
                    [f"end_key_open={r.end.encode('utf-8')!r}"] if r.end else []
                )
                rr.append(f"RowRange({', '.join(args)})")
            keys = [repr(k.encode("utf-8")) for k in part.keys]
            lines.append(
                f"requests.append(RowSetPb(row_ranges=[{', '.join(rr)}], row_keys=[{', '.join(keys)}]))"
            )
            continue
        lines.append("row_set = RowSet()")
        lines += row_set_lines(part)
        lines.append("requests.append(row_set)")
    lim = plan.rows_limit
    lines.append("row_keys = []")
    if not plan.reversed and keep_last is not None:
        lines += [
            "for rs in requests:",
            f"    keys = [row.row_key for row in {table_var}.read_rows(row_set=rs, filter_=flt)]",
            f"    row_keys += keys[-{keep_last}:]  # the last {keep_last}: what a reverse scan "
            "returns first",
        ]
    elif not plan.reversed:
        lines += [
            "for rs in requests:",
            f"    for row in {table_var}.read_rows(row_set=rs, filter_=flt, limit={lim!r}):",
            "        row_keys.append(row.row_key)",
        ]
    else:
        # Table.read_rows has no reversed flag: send the request through the data API client
        lines += [
            f"data_api = {table_var}._instance._client.table_data_client",
            "for rs in requests:",
            "    request = ReadRowsRequest(",
            f"        table_name={table_var}.name,",
            "        rows=rs,",
            "        filter=flt.to_pb() if flt is not None else None,",
            f"        rows_limit={lim or 0},",
            "        reversed=True,",
            "    )",
            "    for response in data_api.read_rows(request=request):",
            "        for chunk in response.chunks:",
            "            if chunk.row_key and (not row_keys or row_keys[-1] != chunk.row_key):",
            "                row_keys.append(chunk.row_key)",
        ]
    return "\n".join(lines) + "\n"
