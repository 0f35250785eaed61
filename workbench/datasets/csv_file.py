"""A CSV file as it is on disk: whether it changed while it was read (size, mtime, inode),
whether it is compressed bytes whatever its name (gzip, bzip2, xz, zip, zstd magic), a header
too wide to parse (``MAX_CSV_COLUMNS``) or naming a column twice, a first line with more fields
than the header, the encoding its byte-order mark announces, the file line of each record and
the file line where a decoding fails; and the file read chunk by chunk with a progress bar
(``read_chunks``). A file pandas reads decompressed (by its name, or ``compression=``) is
checked decompressed too (``open_text``): compressed bytes sniffed as text give a separator
chosen at random."""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import json
import lzma
import zipfile
import zlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from ..errors import DatasetError


def file_state(p: Path) -> tuple[int, int, int]:
    st = p.stat()
    return st.st_size, st.st_mtime_ns, st.st_ino


def check_unchanged(p: Path, before: tuple[int, int, int]) -> None:
    """Refuse a file that was rewritten, grown or truncated while it was being read: the rows
    read would be a mix of two files, or a part of one."""
    try:
        after = file_state(p)
    except OSError:
        after = (-1, -1, -1)
    if after != before:
        what = []
        if after[2] != before[2]:
            what.append("replaced by another file" if after[2] != -1 else "deleted")
        if after[0] != before[0] and after[0] != -1:
            what.append(f"size {before[0]:,} → {after[0]:,} bytes")
        if after[1] != before[1] and after[0] != -1:
            what.append("modified")
        raise DatasetError(
            f"{p.name!r} changed while it was being read ({', '.join(what)}): the rows read "
            "would mix two versions of it. Nothing was loaded. Wait until whatever writes it "
            "has finished (or read a copy), then load it again."
        )


MAX_CSV_COLUMNS = 10_000
"""The widest CSV header read: pandas' header parsing grows faster than linearly with the
column count (measured: 10,000 columns 5.6 s, 100,000 columns 69 s, 1,000,000 over 10
minutes), and events have one column per entity, time, measure and attribute."""

# the first bytes of compressed files (RFC 1952 gzip, bzip2, xz, zip, zstd): not CSV text
_COMPRESSED = (
    (b"\x1f\x8b", "gzip", "gunzip -c {name} > {stem}_plain.csv", "gzip"),
    (b"BZh", "bzip2", "bunzip2 -c {name} > {stem}_plain.csv", "bz2"),
    (b"\xfd7zXZ\x00", "xz", "unxz -c {name} > {stem}_plain.csv", "xz"),
    (b"PK\x03\x04", "zip", "unzip -p {name} > {stem}_plain.csv", "zip"),
    (b"\x28\xb5\x2f\xfd", "zstd", "unzstd -c {name} -o {stem}_plain.csv", "zstd"),
)


# the compression pandas' read_csv infers from a file's name (its ``compression="infer"``)
_SUFFIX_CODEC = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zip": "zip", ".zst": "zstd"}


def codec_of(p: Path, compression: Any = "infer") -> str | None:
    """The compression ``pandas.read_csv(p, compression=compression)`` reads ``p`` with: the
    one given, else the one its name's suffix implies (None: plain text)."""
    if isinstance(compression, Mapping):
        compression = compression.get("method")
    if compression in (None, "infer"):
        return _SUFFIX_CODEC.get(p.suffix.lower())
    return str(compression)


def _unsupported(p: Path, codec: str) -> DatasetError:
    return DatasetError(
        f"compression={codec!r} for {p.name!r}: from_csv reads gzip, bz2, xz, zip and zstd "
        "files; decompress it first and load the plain CSV."
    )


def _decompressed(p: Path, codec: str, raw: IO[bytes]) -> Any:
    """A reader of the text ``raw`` (``p``'s bytes) holds ``codec``-compressed."""
    if codec == "gzip":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if codec == "bz2":
        return bz2.BZ2File(raw)
    if codec == "xz":
        return lzma.LZMAFile(raw)
    if codec == "zstd":
        try:
            import zstandard
        except ImportError:
            raise DatasetError(
                f"{p.name!r} is zstd-compressed and the zstandard package is not installed: "
                f"decompress it first (`unzstd -c {p.name} -o events.csv`) or "
                "`pip install zstandard`."
            ) from None
        return zstandard.ZstdDecompressor().stream_reader(raw)
    raise _unsupported(p, codec)


def _zip_member(p: Path, z: zipfile.ZipFile) -> zipfile.ZipInfo:
    members = [i for i in z.infolist() if not i.is_dir()]
    if len(members) != 1:  # pandas refuses these too; say how to pick one
        raise DatasetError(
            f"{p.name!r} is a zip archive of {len(members)} files "
            f"({[i.filename for i in members[:5]]}); from_csv reads an archive of exactly one "
            f"CSV. Extract the one you want (`unzip -p {p.name} NAME > events.csv`) and load it."
        )
    return members[0]


@contextmanager
def open_bytes(p: Path, codec: str | None = None) -> Iterator[IO[bytes]]:
    """``p``'s bytes as pandas reads them: decompressed when ``codec`` says so, so what the
    checks below look at (separator, header, BOM, line numbers) is the text pandas parses, not
    compressed bytes."""
    if codec == "zip":
        with zipfile.ZipFile(p) as z, z.open(_zip_member(p, z)) as f:
            yield f
        return
    with open(p, "rb") as raw:
        if codec is None:
            yield raw
        else:
            with _decompressed(p, codec, raw) as f:
                yield f


def _decompressor(p: Path, codec: str) -> Any:
    """An incremental decompressor (``decompress(bytes)``) for ``codec``."""
    if codec == "zstd":
        _decompressed(p, codec, io.BytesIO())  # the missing-package error, if it is missing
        import zstandard

        return zstandard.ZstdDecompressor().decompressobj()
    makers = {"gzip": lambda: zlib.decompressobj(31), "bz2": bz2.BZ2Decompressor}
    if codec not in (*makers, "xz"):
        raise _unsupported(p, codec)
    return makers.get(codec, lzma.LZMADecompressor)()


def text_head(p: Path, codec: str | None = None, n: int = 1 << 20) -> tuple[bytes, int]:
    """The first ``n`` bytes of ``p``'s text and about how many bytes the whole text is: the
    file's size uncompressed; for a compressed stream its size times the ratio of the head's
    text to the compressed bytes fed for it, 4 KiB at a time (the whole text counted when the
    file ends first); a zip member records its size: exact."""
    if codec == "zip":
        with zipfile.ZipFile(p) as z:
            info = _zip_member(p, z)
            with z.open(info) as f:
                return f.read(n), info.file_size
    size = p.stat().st_size
    with open(p, "rb") as raw:
        if codec is None:
            return raw.read(n), size
        dec, out, fed = _decompressor(p, codec), bytearray(), 0
        while len(out) <= n and (piece := raw.read(1 << 12)):
            fed += len(piece)
            out += dec.decompress(piece)
    if fed >= size:  # the whole file was decompressed: its text's size is known
        return bytes(out[:n]), len(out)
    return bytes(out[:n]), round(size * len(out) / fed)


@contextmanager
def open_text(p: Path, encoding: str, codec: str | None = None) -> Iterator[IO[str]]:
    """``p`` as text in ``encoding`` (undecodable bytes replaced, line ends kept for the csv
    module), decompressed as :func:`open_bytes` does."""
    with open_bytes(p, codec) as raw:
        yield io.TextIOWrapper(raw, encoding=encoding, errors="replace", newline="")


_OLE2 = bytes.fromhex("d0cf11e0a1b11ae1")  # a Compound File: legacy Excel .xls (and .doc)


def _spreadsheet_advice(p: Path, package: str, engine: str = "") -> str:
    return (
        "Save the sheet as CSV where it was made (Excel: File > Save As > CSV UTF-8), or read it "
        f"with pandas, df = pd.read_excel({p.name!r}{engine}) (needs the {package} package), "
        "and pass df to wb.from_dataframe"
    )


def _other_format(p: Path, head: bytes) -> tuple[str, str] | None:
    """What ``p`` is and how to load it, when its first bytes say it is a spreadsheet or a
    Parquet file rather than CSV text; None otherwise."""
    if head.startswith(_OLE2):
        what = f"a legacy Excel workbook (.xls; its first bytes are {_OLE2[:4].hex(' ')})"
        return what, _spreadsheet_advice(p, "xlrd")
    if head.startswith(b"PAR1"):
        return "a Parquet file (its first bytes are 'PAR1')", (
            f"Load it with wb.from_parquet({p.name!r}, entity=..., time=..., measures=...)"
        )
    if not head.startswith(b"PK\x03\x04"):
        return None
    try:
        with zipfile.ZipFile(p) as z:
            names = set(z.namelist())
            mime = z.read("mimetype")[:80] if "mimetype" in names else b""
    except (zipfile.BadZipFile, OSError, KeyError):
        return None
    if "xl/workbook.xml" in names:
        what = "an Excel workbook (.xlsx: a zip of XML sheets, no compressed CSV)"
        return what, _spreadsheet_advice(p, "openpyxl")
    if b"spreadsheet" in mime:
        return "an OpenDocument spreadsheet (.ods)", _spreadsheet_advice(
            p, "odfpy", ", engine='odf'"
        )
    return None


def check_not_compressed(p: Path) -> None:
    """A compressed file, a spreadsheet or a Parquet file (whatever its name) read as text fails
    as a wrong encoding or an archive: say what it is and how to read it."""
    with open(p, "rb") as f:
        head = f.read(8)
    other = _other_format(p, head)
    if other:
        what, advice = other
        raise DatasetError(
            f"{p.name!r} is {what}, not CSV text, whatever its name. {advice}. Nothing was loaded."
        )
    for magic, kind, command, codec in _COMPRESSED:
        if head.startswith(magic):
            stem = p.name.split(".")[0] or "events"
            raise DatasetError(
                f"{p.name!r} is {kind}-compressed (its first bytes are {magic.hex(' ')}), not CSV "
                f"text. Decompress it first: `{command.format(name=p.name, stem=stem)}`, then "
                f"wb.from_csv on that file; or read it with pandas, pd.read_csv(path, "
                f"compression={codec!r}), and pass the frame to wb.from_dataframe. "
                "Nothing was loaded."
            )


def check_not_json(p: Path, encoding: str, codec: str | None = None) -> None:
    """JSON lines (one object per line) or a JSON array read as CSV become a frame whose
    "columns" are pieces of the first object: say what the file is and how to load it."""
    with open_text(p, encoding, codec) as f:
        first = next((line.strip() for line in f if line.strip()), "")
    if not first.startswith(("{", "[")):
        return
    try:
        obj = json.loads(first)
    except ValueError:
        obj = None
    if isinstance(obj, dict):
        kind, read = "JSON lines (line 1 is a JSON object", "lines=True"
        keys = f" with keys {list(obj)[:6]})"
    elif first.startswith("[{") or (isinstance(obj, list) and obj and isinstance(obj[0], dict)):
        kind, read, keys = "a JSON array of objects", "", ""
    else:
        return
    call = f"pd.read_json({p.name!r}{', ' + read if read else ''})"
    raise DatasetError(
        f"{p.name!r} holds {kind}{keys}, not CSV, whatever its name. Read it with pandas, "
        f"df = {call}, and pass df to wb.from_dataframe(df, entity=..., time=..., "
        "measures=...); or write it out as CSV (df.to_csv('events.csv', index=False)). "
        "Nothing was loaded."
    )


def check_header_width(
    p: Path, sep: str, encoding: str, codec: str | None = None, limit: int = MAX_CSV_COLUMNS
) -> None:
    """Refuse a header of more than ``limit`` columns before pandas parses it (minutes)."""
    with open_text(p, encoding, codec) as f:
        header = next(csv.reader(f, delimiter=sep), None)
    n = len(header or [])
    if n > limit:
        raise DatasetError(
            f"The header of {p.name!r} (line 1) has {n:,} columns, over the workbench's limit of "
            f"{limit:,} (csv_file.MAX_CSV_COLUMNS): pandas alone takes minutes to read a header "
            "that wide, and events have one column per entity, time, measure and attribute. "
            "Reshape a column-per-series file to long form first (pandas: df.melt(id_vars="
            "['time'], var_name='sensor', value_name='value')), or keep the columns you need "
            f"(e.g. `cut -d{sep!r} -f1-20 {p.name} > narrow.csv`). Nothing was loaded."
        )


def check_first_line(p: Path, sep: str, encoding: str, codec: str | None = None) -> None:
    """A first data line with more fields than the header would make pandas shift every column
    (it takes the extra field as an index): refuse it, naming the line. A name twice in the
    header would become ``v`` and ``v.1``: refused too."""
    with open_text(p, encoding, codec) as f:
        rows = csv.reader(f, delimiter=sep)
        header = next(rows, None)
        first = next(rows, None)
    seen: dict[str, int] = {}
    for i, name in enumerate(header or [], start=1):
        key = name.strip()
        if key in seen:
            raise DatasetError(
                f"Cannot read {p.name!r}: line 1 (the header) names column {key!r} twice (columns "
                f"{seen[key]} and {i}); pandas would rename the second to {key + '.1'!r}. Give "
                "each column its own name in the header."
            )
        seen[key] = i
    if header is not None and first is not None and len(first) > len(header):
        raise DatasetError(
            f"Cannot read {p.name!r}: line 2 has {len(first)} fields but the header (line 1) has "
            f"{len(header)} ({sep.join(header)}). Fix that line (a stray separator or an unquoted "
            "text with one), or quote the field."
        )


def bom_encoding(p: Path, codec: str | None = None) -> str | None:
    """The encoding a byte-order mark announces (UTF-16/32 files from Excel or PowerShell)."""
    with open_bytes(p, codec) as f:
        head = f.read(4)
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "utf-32"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    return None


def decode_error(
    p: Path, encoding: str, exc: UnicodeDecodeError, codec: str | None = None
) -> DatasetError:
    """The line (of the file, 1 = the header) where ``encoding`` fails, with the way out."""
    text = "utf-8" if encoding.lower().replace("_", "-") == "utf-8-sig" else encoding
    where = f"byte {exc.start} of a block ({exc.reason})"
    with open_bytes(p, codec) as f:
        for line, raw in enumerate(f, start=1):
            try:
                raw.decode(text)
            except UnicodeDecodeError as bad:
                shown = raw.decode(text, "replace").rstrip("\r\n")[:80]
                where = f"line {line}, byte 0x{raw[bad.start]:02x} in {shown!r}"
                break
    return DatasetError(
        f"Cannot read {p.name!r} as {text}: {where} is not {text}. The file has another "
        "encoding: pass it, e.g. encoding='latin-1' (Western European; Excel on Windows saves "
        "cp1252, which latin-1 reads), or encoding='utf-16'. Nothing was loaded."
    )


# read_csv options that move the header or skip lines in ways the line count below does not follow
_UNFOLLOWED = ("comment", "header", "names", "index_col", "skipfooter")


def file_lines(
    p: Path, encoding: str, sep: str, options: Mapping[str, Any], n: int, codec: str | None = None
) -> np.ndarray | None:
    """The file line (the header is line 1) where each of the ``n`` data records pandas read
    starts, counting the blank lines pandas skips and the line breaks inside quoted fields;
    None where read_csv's ``options`` skip lines this does not follow (then rows stay 0-based)."""
    skip = options.get("skiprows")
    if (
        any(options.get(k) not in (None, 0, "infer") for k in _UNFOLLOWED)
        or options.get("skip_blank_lines") is False
        or (skip is not None and not isinstance(skip, int))
    ):
        return None
    offset = skip or 0
    quote = None if options.get("quoting") == csv.QUOTE_NONE else options.get("quotechar", '"')
    with open_text(p, encoding, codec) as f:
        plain, tail = True, "\n"  # a blank first line counts as a blank line
        while block := f.read(1 << 20):
            both = tail + block
            if (quote and quote in block) or "\n\n" in both or "\n\r\n" in both or "\r\r" in both:
                plain = False
                break
            tail = block[-2:]
    if plain:  # one record per line, none skipped: the header, then data from line 2
        return np.arange(n, dtype=np.int64) + 2 + offset
    if len(sep) != 1:
        return None
    starts: list[int] = []
    try:
        with open_text(p, encoding, codec) as f:
            for _ in range(offset):
                f.readline()
            rows = csv.reader(
                f,
                delimiter=sep,
                quotechar=quote or '"',
                quoting=csv.QUOTE_NONE if quote is None else csv.QUOTE_MINIMAL,
            )
            last, header = 0, False
            for rec in rows:
                start, last = last + 1, rows.line_num
                if not rec or (len(rec) == 1 and not rec[0].strip()):
                    continue  # a blank line: pandas skips it
                if header:
                    starts.append(start + offset)
                header = True
    except csv.Error:
        return None
    return np.asarray(starts, dtype=np.int64) if len(starts) == n else None


def _position(reader: Any, size: int) -> int:
    """How far the reader is into the file, for the progress bar (a decompressing stream may
    not say: then the bar moves when the read ends)."""
    try:
        return int(reader.handles.handle.tell())
    except (AttributeError, OSError, ValueError):
        return 0


def read_chunks(
    reader: Any,
    p: Path,
    *,
    keep: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
    progress: bool = True,
) -> tuple[pd.DataFrame, int]:
    """Every chunk of a ``pandas.read_csv`` chunk ``reader`` on ``p`` (each passed through
    ``keep``, e.g. a share of the series), with a progress bar over the file's bytes for files
    over 50 MB. Returns the rows kept, labelled by their row number in the file's data, and the
    count of rows read."""
    size = p.stat().st_size
    chunks = []
    seen = 0
    with tqdm(
        total=size,
        unit="B",
        unit_scale=True,
        desc=f"reading {p.name}",
        disable=not progress or size < 50_000_000,
    ) as bar:
        with reader:
            for chunk in reader:
                seen += len(chunk)
                chunks.append(chunk if keep is None else keep(chunk))
                bar.update(max(0, min(_position(reader, size), size) - bar.n))
        bar.update(size - bar.n)
    # the reader numbers rows 0, 1, 2 … across chunks; a kept share keeps those labels
    return (pd.concat(chunks) if len(chunks) != 1 else chunks[0]), seen
