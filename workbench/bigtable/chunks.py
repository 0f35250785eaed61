"""ReadRows chunks → cell columns: the protocol's state machine, as the official clients run it.

A ReadRows stream sends a row as cell chunks: the first names the row key, family and qualifier;
later ones repeat only what changes; a cell's value may be split over chunks (``value_size``
on every piece but the last); ``commit_row`` ends a row, ``reset_row`` discards the open row
(Cloud Bigtable sends it when it retries internally; the emulator never does). The rules and
the faults refused here are those of python-bigtable's row merger
(``google/cloud/bigtable/data/_async/_read_rows.py``, ``_ReadRowsOperation.merge_rows``) and of
the cross-client acceptance cases it ships (``tests/fixtures/bigtable/read-rows-acceptance-test.json``,
run by ``tests/bigtable/test_chunks.py``).

Why not the client's merger itself: it lives in a private module, wants proto-plus responses
and an operation object with metrics, and builds a ``Row`` and a ``Cell`` object per cell;
decoding straight into column lists is 1.7× faster on the same 100,000-row stream, before any
``Row`` is turned into columns (bench/bench_decode.py measures the two in one run).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..errors import ReadStreamError

COLUMNS = ("row_key", "n", "family", "qualifier", "timestamp_us", "value")


def new_columns() -> dict[str, list[Any]]:
    """Empty column lists: per row ``row_key``/``n`` (its cell count), per cell the rest."""
    return {k: [] for k in COLUMNS}


def _shown(key: bytes | None) -> str:
    if key is None:
        return "none"
    text = repr(key)
    return text if len(text) <= 80 else text[:77] + "..."


def _reset_with_data(c: Any) -> str | None:
    """What a ``reset_row`` chunk carries besides the reset (it must carry nothing)."""
    carried = [
        name
        for name, present in (
            ("a row key", bool(c.row_key)),
            ("a family", c.HasField("family_name")),
            ("a qualifier", c.HasField("qualifier")),
            ("a timestamp", bool(c.timestamp_micros)),
            ("labels", bool(c.labels)),
            ("a value", bool(c.value)),
            ("a value size", bool(c.value_size)),
            ("commit_row", bool(c.commit_row)),
        )
        if present
    ]
    return ", ".join(carried) or None


def decode(
    responses: Iterable[Any],
    cols: dict[str, list[Any]],
    *,
    reverse: bool = False,
    after: bytes | None = None,
) -> tuple[int, int]:
    """Append the committed rows of ``responses`` (raw ``ReadRowsResponse`` messages) to ``cols``;
    returns (rows, cells) committed.

    Row keys must be strictly increasing (decreasing with ``reverse``) and come after ``after``
    (the last row a previous attempt of the same read committed). A stream that breaks the
    protocol raises :class:`ReadStreamError` naming the response, the chunk and the fault; so
    does any exception out of ``responses`` (a broken stream): either way ``cols`` then holds
    exactly the rows committed before it, never a part of the open row.

    Why one function: the per-chunk loop is the read's hot path; each state (between rows, in a
    row, in a split cell) is a branch of one loop over local variables, not a call per chunk.
    """
    keys, counts = cols["row_key"], cols["n"]
    fam, qual, ts, val = cols["family"], cols["qualifier"], cols["timestamp_us"], cols["value"]
    fa, qa, ta, va = fam.append, qual.append, ts.append, val.append
    rows0, cells0 = len(keys), len(val)
    row_start = cells0
    last = after  # the last committed (or scanned) row key
    key: bytes | None = None  # the open row's key; None between rows
    family = ""
    q = b""
    parts: list[bytes] | None = None  # the pieces of a split cell so far
    t_split = 0
    l_split: list[str] = []
    n_resp = n_chunk = 0

    def fault(what: str, where: str = "") -> ReadStreamError:
        where = where or f"response {n_resp}, chunk {n_chunk}"
        return ReadStreamError(
            f"Invalid ReadRows stream: {where} {what} (open row "
            f"{_shown(key)}, last committed row {_shown(last)}). The read was stopped; only the "
            f"{len(keys) - rows0:,} rows committed before it are kept. This is a fault of the "
            "server or of a proxy between: read again, and report it if it repeats."
        )

    def out_of_order(k: bytes) -> bool:
        return last is not None and (k >= last if reverse else k <= last)

    order = "decreasing (a reverse scan)" if reverse else "increasing"
    try:
        for resp in responses:
            n_resp += 1
            n_chunk = 0
            scanned = resp.last_scanned_row_key
            if scanned:
                if out_of_order(scanned):
                    raise fault(f"reports last scanned row {_shown(scanned)} out of {order} order")
                if key is None:
                    last = scanned
            for c in resp.chunks:
                n_chunk += 1
                if parts is not None:  # the next piece of a split cell
                    if c.reset_row:
                        extra = _reset_with_data(c)
                        if extra:
                            raise fault(f"resets the row but also carries {extra}")
                        del fam[row_start:], qual[row_start:], ts[row_start:], val[row_start:]
                        key, parts = None, None
                        continue
                    k = c.row_key
                    if k and k != key:
                        raise fault(f"changes the row key to {_shown(k)} inside a split cell")
                    if c.HasField("family_name") and c.family_name.value != family:
                        raise fault("changes the family inside a split cell")
                    if c.HasField("qualifier") and c.qualifier.value != q:
                        raise fault("changes the qualifier inside a split cell")
                    if c.timestamp_micros and c.timestamp_micros != t_split:
                        raise fault("changes the timestamp inside a split cell")
                    if c.labels and list(c.labels) != l_split:
                        raise fault("changes the labels inside a split cell")
                    parts.append(c.value)
                    if c.value_size > 0:
                        if c.commit_row:
                            raise fault("commits the row before the split cell's last piece")
                        continue
                    fa(family)
                    qa(q)
                    ta(t_split)
                    va(b"".join(parts))
                    parts = None
                elif c.reset_row:
                    if key is None:
                        raise fault("resets a row but no row is open")
                    extra = _reset_with_data(c)
                    if extra:
                        raise fault(f"resets the row but also carries {extra}")
                    del fam[row_start:], qual[row_start:], ts[row_start:], val[row_start:]
                    key = None
                    continue
                else:
                    k = c.row_key
                    if key is None:  # a row's first chunk names its key, family and qualifier
                        if not k:
                            raise fault("starts a row without a row key")
                        if out_of_order(k):
                            raise fault(f"starts row {_shown(k)}: row keys must be {order}")
                        if not c.HasField("family_name"):
                            raise fault(f"starts row {_shown(k)} without a family")
                        if not c.HasField("qualifier"):
                            raise fault(f"starts row {_shown(k)} without a qualifier")
                        key = k
                        family = c.family_name.value
                        q = c.qualifier.value
                    else:
                        if k and k != key:
                            raise fault(f"starts row {_shown(k)} before the open row is committed")
                        if c.HasField("family_name"):
                            if not c.HasField("qualifier"):
                                raise fault("names a new family without a qualifier")
                            family = c.family_name.value
                            q = c.qualifier.value
                        elif c.HasField("qualifier"):
                            q = c.qualifier.value
                    if c.value_size > 0:  # the first piece of a split cell
                        if c.commit_row:
                            raise fault("commits the row before the split cell's last piece")
                        parts, t_split, l_split = [c.value], c.timestamp_micros, list(c.labels)
                        continue
                    fa(family)
                    qa(q)
                    ta(c.timestamp_micros)
                    va(c.value)
                if c.commit_row:
                    keys.append(key)
                    counts.append(len(val) - row_start)
                    row_start = len(val)
                    last, key = key, None
        if key is not None:
            raise fault(
                "before the open row was committed", f"the stream ended after response {n_resp}"
            )
    except BaseException:
        del fam[row_start:], qual[row_start:], ts[row_start:], val[row_start:]
        raise
    return len(keys) - rows0, len(val) - cells0
