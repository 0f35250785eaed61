"""Your own data in the designer: read a CSV's columns, load it, and cost the design on your queries.

A DatasetError (a misspelled column, a bad time) is shown under the box it came from, never
raised into the notebook.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _render as R

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.model import Dataset
    from .app import Designer


def take_upload(d: Designer) -> None:
    """An uploaded file: saved to a private temporary folder, its path typed in for it, and its
    columns read. The upload keeps its file, so the button reads "Upload CSV (1)" (emptied, it
    read "(0)" right after an upload)."""
    c = d.controls
    up = c.csv_upload.value
    if not up:
        return
    item = up[0] if isinstance(up, (tuple, list)) else next(iter(up.values()))
    name = Path(str(item.get("name") or "upload.csv")).name
    folder = Path(tempfile.mkdtemp(prefix="wb-csv-"))
    path = folder / name
    path.write_bytes(bytes(item["content"]))
    c.csv_path.value = str(path)
    read_csv_columns(d)


def csv_source(d: Designer) -> Path:
    """The CSV to read: the typed path (an upload types its saved copy's path in)."""
    c = d.controls
    if not c.csv_path.value.strip():
        from ..errors import DatasetError

        raise DatasetError("Choose a CSV file: upload one or type its path.")
    return Path(c.csv_path.value.strip()).expanduser()


def read_csv_columns(d: Designer) -> None:
    """Fill the entity, time and measure pickers with the CSV's header (time guessed by name)."""
    from ..datasets.byo import csv_columns
    from ..errors import DatasetError

    c = d.controls
    path = csv_source(d)
    if not path.is_file():
        raise DatasetError(f"No CSV file at {str(path)!r}.")
    cols = csv_columns(path)  # the header as from_csv reads it (';', BOM)
    c.csv_entity.options = cols
    c.csv_time.options = cols
    c.csv_measures.options = cols
    guess_t = next(
        (x for x in cols if x.lower() in ("time", "timestamp", "date", "ts", "datetime")),
        cols[0],
    )
    c.csv_time.value = guess_t
    d.csv_status.value = R.note_html(
        f"{len(cols)} columns: {', '.join(cols)}. Pick entity, time, measures."
    )


def set_queries(d: Designer, lines: Any) -> Dataset | None:
    """Cost the current design on these queries (text, a line each, or a list)."""
    from ..datasets.queries import with_queries
    from ..errors import DatasetError

    items = [ln.strip() for ln in lines.splitlines()] if isinstance(lines, str) else list(lines)
    items = [ln for ln in items if ln and not (isinstance(ln, str) and ln.startswith("#"))]
    if not items:
        d.queries_status.value = R.error_html(
            DatasetError("State at least one query, e.g. 'latest 1 per sensor'.")
        )
        return None
    try:
        ds = with_queries(d.ds, items)
    except DatasetError as exc:
        d.queries_status.value = every_bad_line(d.ds, items, exc)
        return None
    schema = d.schema
    d.set_dataset(ds, schema=schema)
    d.queries_status.value = R.note_html(
        f"Costed on {len(ds.queries)} quer{'y' if len(ds.queries) == 1 else 'ies'}.", "good"
    )
    return ds


def every_bad_line(ds: Dataset, items: list[Any], first: Exception) -> str:
    """Every query line that fails on its own, each with its line number and why (the parser
    stops at the first), as HTML; ``first`` alone when no line fails alone (two lines that clash,
    such as one name twice)."""
    import html

    from ..datasets.queries import with_queries
    from ..errors import DatasetError

    bad = []
    for i, item in enumerate(items, 1):
        try:
            with_queries(ds, [item])
        except DatasetError as exc:
            why = " ".join(ln.strip() for ln in str(exc).splitlines() if ln.strip())
            bad.append(f"<li data-bad-line='{i}'>line {i}, <code>{html.escape(str(item))}</code>: "
                       f"{html.escape(why)}</li>")  # fmt: skip
    if len(bad) < 2:
        return R.error_html(first)
    return R.panel_box(
        f"<p class='bad' data-error><b>DatasetError:</b> {len(bad)} of {len(items)} query lines "
        f"need fixing:</p><ul class='bad'>{''.join(bad)}</ul>"
    )


def load_csv_from_controls(d: Designer) -> None:
    c = d.controls
    typed = [ln.strip() for ln in c.queries.value.splitlines() if ln.strip()]
    d.load_csv(
        csv_source(d),
        entity=list(c.csv_entity.value) or None,  # none picked: one series
        time=c.csv_time.value,
        measures=list(c.csv_measures.value),
        naive_tz=c.csv_tz.value.strip() or None,
        **({"queries": typed} if typed and d.queries_box.layout.display != "none" else {}),
    )


def load_csv(
    d: Designer, path: Any, *, entity: Any, time: str, measures: Any, **kwargs: Any
) -> Dataset | None:
    """``wb.from_csv`` on a file and show it in the designer."""
    from ..datasets import from_csv
    from ..errors import DatasetError

    try:
        ds = from_csv(path, entity=entity, time=time, measures=measures, **kwargs)
    except DatasetError as exc:
        d.csv_box.layout.display = "flex"
        d.csv_status.value = R.error_html(exc)
        d.fail(exc)
        return None
    d.csv_status.value = R.note_html(
        f"Loaded {len(ds):,} events from {Path(path).name}; costed on "
        + "; ".join(q.text or q.name for q in ds.queries)
        + " (edit them under Your queries).",
        "good",
    )
    d.set_dataset(ds)
    return ds
