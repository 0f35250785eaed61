"""The reader's chunk decoder against Bigtable's own ReadRows acceptance cases.

``tests/fixtures/bigtable/read-rows-acceptance-test.json`` is python-bigtable's cross-client
conformance file, vendored unmodified (source and licence in the README beside it). Its 48
cases were written by Bigtable's client authors, independently of this code: the expected
cells (or ``"error": true``) are theirs, not derived from the workbench. Each case's chunks are
parsed into real protobuf ``CellChunk`` messages and fed through ``chunks.decode`` (what
``reader.read_plan`` runs on every response), as one response per chunk (how the official test
feeds them) and as all chunks in one response. Labels are not compared: the workbench reads no
labelling filter and a CellFrame has no label column.

A second, property-based check (Hypothesis) builds random rows, cuts them into chunks the way a
server may (split values, resets of a partly sent row, several chunks per response), and expects
exactly the rows it built: the expectation is the input, not the decoder's output.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from google.cloud.bigtable_v2.types import bigtable as _bt
from google.protobuf import json_format
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.bigtable.chunks import decode, new_columns
from workbench.errors import ReadStreamError, WorkbenchError

ReadRowsResponse = _bt.ReadRowsResponse.pb()
CellChunk = ReadRowsResponse.CellChunk
FIXTURE = Path(__file__).parents[1] / "fixtures" / "bigtable" / "read-rows-acceptance-test.json"
CASES = json.loads(FIXTURE.read_text())["readRowsTests"]

Cell = tuple[bytes, str, bytes, int, bytes]  # row key, family, qualifier, timestamp µs, value


def _expected(case: dict[str, Any]) -> tuple[list[Cell], bool]:
    """The case's cells in stream order and whether the stream must be refused. The JSON's
    results give row key, qualifier and value as text and the timestamp as a decimal string,
    omitting empty fields (proto3 JSON): absent means b"" / 0."""
    cells = [
        (
            r.get("rowKey", "").encode(),
            r.get("familyName", ""),
            r.get("qualifier", "").encode(),
            int(r.get("timestampMicros", 0)),
            r.get("value", "").encode(),
        )
        for r in case.get("results", [])
        if not r.get("error")
    ]
    return cells, any(r.get("error") for r in case.get("results", []))


def _chunks(case: dict[str, Any]) -> list[Any]:
    return [json_format.ParseDict(c, CellChunk()) for c in case["chunks"]]


def _cells(cols: dict[str, list[Any]]) -> list[Cell]:
    keys = [k for k, n in zip(cols["row_key"], cols["n"], strict=True) for _ in range(n)]
    return list(
        zip(
            keys,
            cols["family"],
            cols["qualifier"],
            cols["timestamp_us"],
            cols["value"],
            strict=True,
        )
    )


def _one_per_response(chunks: list[Any]) -> list[Any]:
    return [ReadRowsResponse(chunks=[c]) for c in chunks]


def _all_in_one(chunks: list[Any]) -> list[Any]:
    return [ReadRowsResponse(chunks=chunks)]


def test_the_vendored_file_holds_the_48_cases() -> None:
    # 48 cases; the refused ones are exactly those the file's authors named "invalid - ..."
    assert len(CASES) == 48
    refused = [c["description"] for c in CASES if _expected(c)[1]]
    assert refused == [c["description"] for c in CASES if c["description"].startswith("invalid")]
    assert len(refused) == 14


@pytest.mark.parametrize("responses", [_one_per_response, _all_in_one], ids=["split", "joined"])
@pytest.mark.parametrize("case", CASES, ids=[c["description"] for c in CASES])
def test_read_rows_acceptance(case: dict[str, Any], responses: Any) -> None:
    want, refused = _expected(case)
    cols = new_columns()
    if refused:
        with pytest.raises(ReadStreamError, match=r"Invalid ReadRows stream: .*") as ei:
            decode(responses(_chunks(case)), cols)
        assert isinstance(ei.value, WorkbenchError)
        # the rows committed before the fault are kept, nothing of the open row
        assert _cells(cols) == want
    else:
        rows, cells = decode(responses(_chunks(case)), cols)
        assert _cells(cols) == want
        assert (rows, cells) == (len({c[0] for c in want}), len(want))


def _case(name: str) -> dict[str, Any]:
    return next(c for c in CASES if c["description"] == name)


def test_reset_between_pieces_of_a_split_cell_drops_the_piece() -> None:
    # the bug the acceptance file found: the split-cell branch ran before reset_row, so the
    # discarded row's first piece b"v" + b"a" came back as a cell of the next row
    cols = new_columns()
    decode(_one_per_response(_chunks(_case("reset in between chunks"))), cols)
    assert _cells(cols) == [(b"RK_1", "A", b"C", 100, b"value-VAL_1")]


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("invalid - no commit", r"ended after response 1 before the open row was committed"),
        ("invalid - duplicate row key", r"chunk 1 starts row b'RK_1': row keys must be increasing"),
        (
            "invalid - no commit between rows",
            r"starts row b'RK_2' before the open row is committed",
        ),
        ("invalid - bare reset", r"resets a row but no row is open"),
        ("invalid - reset with chunk", r"resets the row but also carries a value, a value size"),
        ("invalid - commit with chunk", r"commits the row before the split cell's last piece"),
        (
            "invalid - new col family must specify qualifier",
            r"names a new family without a qualifier",
        ),
        ("invalid - no cell key before value", r"starts a row without a row key"),
    ],
)
def test_a_refused_stream_names_its_fault(name: str, says: str) -> None:
    with pytest.raises(ReadStreamError) as ei:
        decode(_one_per_response(_chunks(_case(name))), new_columns())
    # the fault is said whole, between where it is and the rows it leaves
    assert re.search(rf"(\d|,|stream) {says} \(open row ", str(ei.value)), str(ei.value)


def _row_chunk(key: bytes, value: bytes, commit: bool = True) -> Any:
    return CellChunk(
        row_key=key,
        family_name={"value": "f"},
        qualifier={"value": b"q"},
        timestamp_micros=1000,
        value=value,
        commit_row=commit,
    )


def test_a_reverse_scan_wants_decreasing_keys() -> None:
    # two rows as a reverse scan sends them: b"b" then b"a"
    stream = [ReadRowsResponse(chunks=[_row_chunk(b"b", b"1"), _row_chunk(b"a", b"2")])]
    cols = new_columns()
    assert decode(stream, cols, reverse=True) == (2, 2)
    assert cols["row_key"] == [b"b", b"a"]
    with pytest.raises(ReadStreamError, match=r"row keys must be increasing"):
        decode(stream, new_columns())


def test_a_retried_stream_must_start_after_the_last_committed_row() -> None:
    # a resumed read asks for rows after b"m": a server sending b"m" again is refused
    stream = [ReadRowsResponse(chunks=[_row_chunk(b"m", b"1")])]
    with pytest.raises(ReadStreamError, match=r"last committed row b'm'"):
        decode(stream, new_columns(), after=b"m")
    assert decode(stream, new_columns(), after=b"l") == (1, 1)


def test_last_scanned_row_key_out_of_order_is_refused() -> None:
    stream = [
        ReadRowsResponse(chunks=[_row_chunk(b"k", b"1")]),
        ReadRowsResponse(last_scanned_row_key=b"c"),
    ]
    cols = new_columns()
    with pytest.raises(ReadStreamError, match=r"last scanned row b'c' out of increasing order"):
        decode(stream, cols)
    assert cols["row_key"] == [b"k"]


def test_a_broken_stream_keeps_only_committed_rows() -> None:
    # the transport fails inside row b"b": row b"a" stays, b"b"'s first cell does not
    def stream() -> Any:
        yield ReadRowsResponse(chunks=[_row_chunk(b"a", b"1"), _row_chunk(b"b", b"2", False)])
        raise ConnectionError("stream broke")

    cols = new_columns()
    with pytest.raises(ConnectionError):
        decode(stream(), cols)
    assert _cells(cols) == [(b"a", "f", b"q", 1000, b"1")]


# ----------------------------------------------------------------------------- property

_rows = st.dictionaries(
    st.binary(min_size=1, max_size=6),
    st.lists(
        st.tuples(
            st.sampled_from(["f", "g"]),
            st.binary(max_size=3),
            st.integers(0, 10**6).map(lambda t: t * 1000),
            st.binary(max_size=12),
        ),
        min_size=1,
        max_size=5,
    ),
    min_size=1,
    max_size=6,
)


def _cell_chunks(key: bytes, cells: list[Any], draw: Any) -> list[Any]:
    """A row's cells as chunks, each value cut into up to three pieces at random places."""
    out: list[Any] = []
    for i, (fam, q, t, v) in enumerate(cells):
        cuts = sorted(draw(st.sets(st.integers(1, max(1, len(v) - 1)), max_size=2)))
        pieces = [v[a:b] for a, b in zip([0, *cuts], [*cuts, len(v)], strict=True)]
        pieces = [p for p in pieces if p] or [b""]
        for j, piece in enumerate(pieces):
            c = CellChunk(value=piece)
            if j == 0:  # the cell's first chunk names family, qualifier and timestamp
                c.timestamp_micros = t
                c.family_name.value = fam
                c.qualifier.value = q
                if i == 0:  # the row's first chunk names the key
                    c.row_key = key
            if j < len(pieces) - 1:
                c.value_size = len(v)
            out.append(c)
    return out


def _stream_of(rows: dict[bytes, list[Any]], draw: Any) -> list[Any]:
    """Chunks a server may send for ``rows``, in key order: a row is sometimes sent partly
    (up to any chunk), then reset and sent again in full; chunks are grouped into responses at
    random."""
    chunks: list[Any] = []
    for key in sorted(rows):
        cells = rows[key]
        if draw(st.booleans()):  # sent up to any chunk, even inside a split cell, then reset
            sent = _cell_chunks(key, cells, draw)
            chunks += sent[: draw(st.integers(1, len(sent)))]
            chunks.append(CellChunk(reset_row=True))
        chunks += _cell_chunks(key, cells, draw)
        chunks[-1].commit_row = True
    responses: list[Any] = []
    while chunks:
        n = draw(st.integers(1, 4))
        responses.append(ReadRowsResponse(chunks=chunks[:n]))
        chunks = chunks[n:]
    return responses


# generation slows with the machine's load, not with the code: no deadline, no too_slow check
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=_rows, data=st.data())
def test_any_valid_chunking_gives_back_exactly_the_rows(rows: Any, data: Any) -> None:
    stream = _stream_of(rows, data.draw)
    cols = new_columns()
    decode(stream, cols)
    want = [(k, *cell) for k in sorted(rows) for cell in rows[k]]
    assert _cells(cols) == want


# ----------------------------------------------------------------------------- resumption


def _request(
    keys: tuple[bytes, ...] = (), ranges: tuple[dict[str, bytes], ...] = (), **kw: Any
) -> Any:
    from workbench.bigtable.reader import ReadRowsRequest

    req = ReadRowsRequest(table_name="t", **kw)
    req.rows.row_keys.extend(keys)
    for r in ranges:
        req.rows.row_ranges.add(**r)
    return req


def _rows_of(req: Any) -> tuple[list[bytes], list[dict[str, bytes]]]:
    ranges = [
        {f.name: v for f, v in r.ListFields()} for r in req.rows.row_ranges
    ]  # only the bounds that are set
    return list(req.rows.row_keys), ranges


def test_a_resumed_request_asks_only_for_the_rows_not_yet_returned() -> None:
    # As python-bigtable's _revise_request_rowset: after row b"d" was committed, keys and
    # ranges at or before b"d" are dropped or start after it; the rows limit shrinks by the rows
    # read. Expectations worked out by hand from the key order a < b < ... < z.
    from workbench.bigtable.reader import _resumed

    req = _request(
        keys=(b"a", b"d", b"k"),
        ranges=(
            {"start_key_closed": b"a", "end_key_open": b"c"},  # all read: dropped
            {"start_key_closed": b"a", "end_key_closed": b"d"},  # ends at b"d": dropped
            {"start_key_closed": b"c", "end_key_open": b"m"},  # resumes after b"d"
            {"start_key_open": b"p"},  # untouched
        ),
        rows_limit=10,
    )
    out = _resumed(req, b"d", 4)
    assert _rows_of(out) == (
        [b"k"],
        [{"start_key_open": b"d", "end_key_open": b"m"}, {"start_key_open": b"p"}],
    )
    assert out.rows_limit == 6 and req.rows_limit == 10  # the original is left as it was
    # the whole table resumes after the row; a reverse scan before it
    assert _rows_of(_resumed(_request(), b"d", 1)) == ([], [{"start_key_open": b"d"}])
    rev = _request(
        ranges=({"start_key_closed": b"b", "end_key_closed": b"d"}, {"start_key_open": b"f"}),
        reversed=True,
    )
    assert _rows_of(_resumed(rev, b"d", 1)) == (
        [],
        [{"start_key_closed": b"b", "end_key_open": b"d"}],
    )
    assert _rows_of(_resumed(_request(reversed=True), b"d", 1)) == ([], [{"end_key_open": b"d"}])
    # nothing left: None, never an empty row set (which would read the whole table)
    assert _resumed(_request(keys=(b"a", b"d")), b"d", 2) is None
    assert _resumed(_request(rows_limit=3), b"d", 3) is None


# what a reset_row chunk may not carry, one field at a time, and how the fault names it
_RESET_EXTRAS = [
    ({"row_key": b"r"}, "a row key"),
    ({"family_name": {"value": "f"}}, "a family"),
    ({"qualifier": {"value": b"q"}}, "a qualifier"),
    ({"timestamp_micros": 5}, "a timestamp"),
    ({"labels": ["L"]}, "labels"),
    ({"value": b"v"}, "a value"),
    ({"value_size": 3}, "a value size"),
]  # commit_row cannot ride along: it and reset_row are one oneof (row_status) of CellChunk


@pytest.mark.parametrize("split", [False, True], ids=["open row", "split cell"])
@pytest.mark.parametrize(("extra", "named"), _RESET_EXTRAS, ids=[n for _, n in _RESET_EXTRAS])
def test_a_reset_carrying_anything_else_is_refused_naming_it(extra, named, split) -> None:
    # row b"r" opens (a whole cell, or the first piece of a split one), then a reset that also
    # carries one field: refused, naming that field alone (python-bigtable's merger refuses it)
    first = _row_chunk(b"r", b"v", commit=False)
    if split:
        first.value_size = 4
    stream = [ReadRowsResponse(chunks=[first, CellChunk(reset_row=True, **extra)])]
    cols = new_columns()
    with pytest.raises(ReadStreamError, match=rf"also carries {named} \(open row b'r',") as ei:
        decode(stream, cols)
    assert "chunk 2" in str(ei.value) and _cells(cols) == []


def test_keys_in_a_fault_are_shown_whole_up_to_80_characters() -> None:
    # no open row and nothing committed: both named "none"
    bare = [ReadRowsResponse(chunks=[CellChunk(reset_row=True)])]
    with pytest.raises(ReadStreamError, match=r"\(open row none, last committed row none\)"):
        decode(bare, new_columns())
    # a key's repr of 80 characters (b'' around 77 bytes) is shown whole; of 81, cut to its
    # first 77 characters and "..."
    for n, shown in [(77, "b'" + "k" * 77 + "'"), (78, "b'" + "k" * 75 + "...")]:
        key = b"k" * n
        assert len(repr(key)) == n + 3
        stream = [ReadRowsResponse(chunks=[_row_chunk(key, b"1")])]
        with pytest.raises(ReadStreamError) as ei:
            decode(stream, new_columns(), after=key)
        assert f"starts row {shown}: row keys must be increasing" in str(ei.value)


def _piece(key: bytes = b"", value: bytes = b"", size: int = 0, **fields: Any) -> Any:
    return CellChunk(row_key=key, value=value, value_size=size, **fields)


# a split cell's later pieces may repeat what its first piece named, never change it
_SPLIT_CHANGES = [
    ({"key": b"s"}, "changes the row key to b's' inside a split cell"),
    ({"family_name": {"value": "g"}}, "changes the family inside a split cell"),
    ({"qualifier": {"value": b"p"}}, "changes the qualifier inside a split cell"),
    ({"timestamp_micros": 2000}, "changes the timestamp inside a split cell"),
    ({"labels": ["other"]}, "changes the labels inside a split cell"),
]
_SPLIT_REPEATS = [
    {"key": b"r"},
    {"family_name": {"value": "f"}},
    {"qualifier": {"value": b"q"}},
    {"timestamp_micros": 1000},
    {"labels": ["L"]},
]


def _split_stream(second: dict[str, Any]) -> list[Any]:
    first = CellChunk(
        row_key=b"r",
        family_name={"value": "f"},
        qualifier={"value": b"q"},
        timestamp_micros=1000,
        labels=["L"],
        value=b"ab",
        value_size=4,
    )
    last = _piece(value=b"cd", commit_row=True, **second)
    return [ReadRowsResponse(chunks=[first]), ReadRowsResponse(chunks=[last])]


@pytest.mark.parametrize(("second", "says"), _SPLIT_CHANGES, ids=[s for _, s in _SPLIT_CHANGES])
def test_a_split_cell_that_changes_what_its_first_piece_named_is_refused(second, says) -> None:
    cols = new_columns()
    with pytest.raises(ReadStreamError) as ei:
        decode(_split_stream(second), cols)
    assert f"response 2, chunk 1 {says} (open row b'r', last committed row none)" in str(ei.value)
    assert _cells(cols) == []


@pytest.mark.parametrize("second", _SPLIT_REPEATS, ids=lambda d: next(iter(d)))
def test_a_split_cell_may_repeat_what_its_first_piece_named(second) -> None:
    cols = new_columns()
    assert decode(_split_stream(second), cols) == (1, 1)
    assert _cells(cols) == [(b"r", "f", b"q", 1000, b"abcd")]


def test_a_one_byte_value_split_over_three_pieces_is_one_cell() -> None:
    # value_size (the whole value's size, on every piece but the last) may be 1: pieces "",
    # "" and "x" make the one-byte value b"x"
    first = _row_chunk(b"r", b"", commit=False)
    first.value_size = 1
    stream = [ReadRowsResponse(chunks=[first, _piece(size=1), _piece(value=b"x", commit_row=True)])]
    cols = new_columns()
    assert decode(stream, cols) == (1, 1)
    assert _cells(cols) == [(b"r", "f", b"q", 1000, b"x")]


def test_a_row_must_name_its_family_and_qualifier() -> None:
    for chunk, says in [
        (_piece(b"r", b"v", commit_row=True), "starts row b'r' without a family"),
        (
            _piece(b"r", b"v", family_name={"value": "f"}, commit_row=True),
            "starts row b'r' without a qualifier",
        ),
    ]:
        with pytest.raises(ReadStreamError) as ei:
            decode([ReadRowsResponse(chunks=[chunk])], new_columns())
        assert f"chunk 1 {says} (open row none," in str(ei.value)


def test_a_reverse_scan_refuses_a_repeated_key_and_says_it_is_reverse() -> None:
    stream = [ReadRowsResponse(chunks=[_row_chunk(b"b", b"1"), _row_chunk(b"b", b"2")])]
    with pytest.raises(ReadStreamError) as ei:
        decode(stream, new_columns(), reverse=True)
    assert "starts row b'b': row keys must be decreasing (a reverse scan) (" in str(ei.value)


def test_a_fault_counts_the_responses_and_only_this_reads_committed_rows() -> None:
    # the columns already hold 2 rows of an earlier read; this read commits b"a", then its
    # second response repeats b"a": "response 2", and 1 row kept (not 3)
    cols = new_columns()
    earlier = [ReadRowsResponse(chunks=[_row_chunk(b"0", b"x"), _row_chunk(b"1", b"x")])]
    assert decode(earlier, cols) == (2, 2)
    # a read appending to them counts its own rows and cells
    assert decode([ReadRowsResponse(chunks=[_row_chunk(b"2", b"y")])], cols) == (1, 1)
    stream = [
        ReadRowsResponse(chunks=[_row_chunk(b"a", b"1")]),
        ReadRowsResponse(chunks=[_row_chunk(b"a", b"2")]),
    ]
    with pytest.raises(ReadStreamError) as ei:
        decode(stream, cols)
    msg = str(ei.value)
    assert "response 2, chunk 1 starts row b'a'" in msg
    assert "only the 1 rows committed before it are kept" in msg
    assert msg.endswith("server or of a proxy between: read again, and report it if it repeats.")
    assert cols["row_key"] == [b"0", b"1", b"2", b"a"]


def test_a_scanned_key_between_rows_moves_the_resume_point() -> None:
    # between rows, last_scanned_row_key b"m" says the server read up to b"m": a later row
    # b"c" is out of order
    between = [
        ReadRowsResponse(last_scanned_row_key=b"m"),
        ReadRowsResponse(chunks=[_row_chunk(b"c", b"1")]),
    ]
    with pytest.raises(ReadStreamError) as ei:
        decode(between, new_columns())
    assert (
        "starts row b'c': row keys must be increasing (open row none, last committed row b'm')"
        in (str(ei.value))
    )


def test_a_rows_first_piece_cannot_commit_it() -> None:
    # a first chunk that announces more pieces (value_size) and commits the row at once
    first = _row_chunk(b"r", b"ab")
    first.value_size = 4
    with pytest.raises(ReadStreamError) as ei:
        decode([ReadRowsResponse(chunks=[first])], new_columns())
    assert "chunk 1 commits the row before the split cell's last piece (open row b'r'," in str(
        ei.value
    )


def test_a_resumed_request_at_the_edges_of_its_ranges() -> None:
    # by hand, after row b"d" was returned; forward: a range starting at b"d" (closed) or
    # with no start resumes after b"d" (open), so b"d" is not read twice
    from workbench.bigtable.reader import _resumed

    fwd = _request(
        ranges=({"start_key_closed": b"d", "end_key_open": b"m"}, {"end_key_open": b"z"}),
    )
    assert _rows_of(_resumed(fwd, b"d", 1)) == (
        [],
        [
            {"start_key_open": b"d", "end_key_open": b"m"},
            {"start_key_open": b"d", "end_key_open": b"z"},
        ],
    )
    # reverse (rows come from the end): keys before b"d" stay, b"d" and later go; a range
    # starting at b"d" is wholly read; one ending before b"d" is left as it was, and the
    # ranges after a dropped one are still asked for
    rev = _request(
        keys=(b"a", b"d", b"k"),
        ranges=(
            {"start_key_closed": b"d", "end_key_closed": b"f"},
            {"start_key_closed": b"a", "end_key_open": b"c"},
        ),
        reversed=True,
    )
    assert _rows_of(_resumed(rev, b"d", 1)) == (
        [b"a"],
        [{"start_key_closed": b"a", "end_key_open": b"c"}],
    )
