"""Split points for a bulk load's new tables, and the commands that make the same tables.

A new table is one tablet, on one node: a bulk load into it writes there until Bigtable has
split it (G06). The split points are the first keys of the tablets the load model's table
ends with (``KeyDistribution.split_keys``) for the design on the first events at the stated
production (``--events-per-s``, ``--nodes``): the same figure ``wb.analyze`` shows for that
sample and workload, computed once and sent as ``CreateTableRequest.initial_splits``.

They come from the first events: keys past them (later times in a key led by time) fall in
the last tablet, which Bigtable splits as it fills.

The load model reads at most about ``SPLIT_EVENTS`` events: the sample's whole series chosen by
CRC-32 (``byo.sample_mask``, the shape sample's own draw), replayed at the whole sample's rate.
A larger sample gives the same tablets' shares (each kept series stands for as many like it) at
a cost that grows with the input, which ``load`` does not pay; the keys then fall on the kept
series' rows, and Bigtable moves the boundaries as the load's real keys arrive.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from ..datasets.byo import sample_mask
from ..datasets.workload import Workload
from ..errors import SchemaError
from ..formatting import counted
from ..schema.families import Family, cbt_family, cbt_inline


def split_points(
    sample: Any, schema: Any, events_per_s: float | None, nodes: int | None
) -> tuple[dict[str, list[str]], str]:
    """(logical table → split keys, the workload they are for, as a line) from the load model
    on ``sample`` at ``events_per_s`` on ``nodes`` nodes (defaults: ``analyze``'s).

    Only the key distribution is computed (``analysis.overview.keyspace``: the cells' index and
    the load model, the same code ``analyze`` runs for its ``.keyspace``), not the whole
    analysis: a bulk load does not pay for compression, query costs, row sizes and capacity
    that ``load`` never computes either."""
    from ..analysis.overview import keyspace
    from ..analysis.series import sample_span_s

    rate = "the data's own rate" if events_per_s is None else f"{events_per_s:,.0f} events/s"
    used, over = bounded(sample)
    if used is not sample and events_per_s is None:  # the kept series at the sample's own rate
        agg = sample.aggregates
        events_per_s = agg.events / agg.span_s if agg else len(sample) / sample_span_s(sample)
    # the bounded share's own writes: a bulk load does not wait for the engine path's scan of
    # every file (analysis/file_writes.py), which analyze runs
    wl = Workload(events_per_s=events_per_s)
    kd = keyspace(used, schema, nodes=nodes, workload=wl, engine=False)
    where = (
        f"the load model at {rate} ({_rate(kd.write_rate_per_s)} row mutations/s at the peak) on "
        f"{counted(kd.nodes, 'node')}, over {over}"
    )
    return kd.split_keys(), where


# the most events the load model replays for split points (about 0.1 s on this machine's core)
SPLIT_EVENTS = 20_000


def bounded(sample: Any) -> tuple[Any, str]:
    """(the events split points are computed from, what they are, in words): the sample's whole
    series whose CRC-32 falls under ``SPLIT_EVENTS`` ÷ its events, or the sample itself when it
    is no larger, has one series, or the draw keeps none."""
    n = len(sample)
    whole = f"the {n:,} events the design was derived from"
    if n <= SPLIT_EVENTS or not sample.entity:
        return sample, whole
    keep = sample_mask(sample.frame, list(sample.entity), SPLIT_EVENTS / n)
    if not keep.any():
        return sample, whole
    frame = sample.frame[keep]
    series = len(frame.drop_duplicates(list(sample.entity)))
    used = dataclasses.replace(sample, frame=frame, queries=[])
    return used, (
        f"{len(frame):,} events of {counted(series, 'whole series', 'whole series')} drawn from "
        f"the {n:,} the design was derived from"
    )


def _rate(x: float) -> str:
    return f"{x:,.0f}" if x >= 10 else f"{x:.2g}"


def _joined(keys: Sequence[str]) -> str | None:
    """Keys as one comma-separated argument, or None when a key holds a comma (neither cbt
    nor gcloud can take it in a list)."""
    return None if any("," in k for k in keys) else ",".join(keys)


def create_lines(
    project: str,
    instance: str,
    tables: Mapping[str, str],
    families: Mapping[str, Sequence[Family]],
    splits: Mapping[str, Sequence[str]],
) -> list[str]:
    """The ``cbt createtable`` and ``gcloud bigtable instances tables create`` lines that make
    each table with its designed families and split points (cbt: ``cbt help createtable``;
    gcloud: ``--column-families``, ``--splits``)."""
    out: list[str] = []
    for logical, physical in tables.items():
        fams, keys = list(families.get(logical, ())), list(splits.get(logical, ()))
        joined = _joined(keys)
        if keys and joined is None:
            out.append(f"# {physical}: a split key holds a comma; use the Python client")
            continue
        try:
            cbt_fams = ",".join(cbt_family(f) for f in fams)
        except SchemaError as exc:
            out.append(f"# {physical}: {exc}")
            continue
        cbt = ["cbt", "-project", project, "-instance", instance, "createtable", physical]
        cbt += [f"families={cbt_fams}"] if fams else []
        cbt += [f"splits={joined}"] if keys else []
        out.append(shlex.join(cbt))
        gfams = ",".join(f.name + (f":{cbt_inline(f.gc)}" if f.gc else "") for f in fams)
        gcloud = ["gcloud", "bigtable", "instances", "tables", "create", physical]
        gcloud += [f"--instance={instance}", f"--project={project}"]
        gcloud += [f"--column-families={gfams}"] if fams else []
        gcloud += [f"--splits={joined}"] if keys else []
        out.append(shlex.join(gcloud))
        if any(f.aggregate for f in fams):
            out.append(
                "# gcloud's --column-families takes no aggregate type: the cbt line makes them"
            )
    return out


def split_lines(splits: Mapping[str, Sequence[str]], tables: Mapping[str, str]) -> list[str]:
    """The split points per table, as the command prints them before the load."""
    out = []
    for logical, keys in splits.items():
        physical = tables.get(logical, logical)
        if not keys:
            out.append(f"  {physical}: no split (the model keeps it one tablet)")
            continue
        shown = ", ".join(repr(k) for k in keys[:8]) + (" …" if len(keys) > 8 else "")
        out.append(
            f"  {physical}: {len(keys):,} split point(s) → {len(keys) + 1:,} tablets: {shown}"
        )
    return out
