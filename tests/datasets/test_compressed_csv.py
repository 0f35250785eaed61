"""A compressed CSV is checked as the text pandas parses: its separator, header, first line,
BOM and line numbers come from the decompressed text, never from the compressed bytes (which
once gave a separator at random: gzip's header holds a timestamp, so a run could sniff ';')."""

from __future__ import annotations

import bz2
import gzip
import lzma
import random
import zipfile

import pytest

import workbench as wb
from workbench.datasets.byo import csv_columns
from workbench.datasets.csv_file import text_head
from workbench.datasets.shape_sample import estimate_events
from workbench.errors import DatasetError

ARGS = dict(entity="s", time="time", measures="v", progress=False)
BODY = "s,time,v\na,2024-01-01T00:00:00Z,1\nb,2024-01-01T00:01:00Z,2\n"


def _zip(text: str) -> bytes:
    import io

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("events.csv", text)
    return buf.getvalue()


def _zstd(text: str) -> bytes:
    import zstandard

    return zstandard.ZstdCompressor().compress(text.encode())


CODECS = {
    "gz": lambda t: gzip.compress(t.encode(), mtime=0),
    "bz2": lambda t: bz2.compress(t.encode()),
    "xz": lambda t: lzma.compress(t.encode()),
    "zip": _zip,
    "zst": _zstd,
}


@pytest.mark.parametrize("mtime", range(0, 1 << 32, (1 << 32) // 48 + 1))
def test_every_gzip_header_reads_as_the_same_two_events(tmp_path, mtime):
    # the timestamp is bytes 4-7 of the gzip header: whatever they are, the text decides
    p = tmp_path / "e.csv.gz"
    p.write_bytes(gzip.compress(BODY.encode(), mtime=mtime))
    ds = wb.from_csv(p, **ARGS)
    assert list(ds.frame["s"]) == ["a", "b"] and list(ds.frame["v"]) == [1, 2]


@pytest.mark.parametrize("ext", sorted(CODECS))
@pytest.mark.parametrize("sep", [",", ";", "\t", "|"])
def test_each_codec_and_separator_reads_the_text_pandas_reads(tmp_path, ext, sep):
    p = tmp_path / f"e.csv.{ext}"
    p.write_bytes(CODECS[ext](BODY.replace(",", sep)))
    ds = wb.from_csv(p, **ARGS)
    assert list(ds.frame["s"]) == ["a", "b"]
    assert csv_columns(p) == ["s", "time", "v"]  # the designer's own-data header, too


def test_compression_given_reads_a_file_whatever_its_name(tmp_path):
    p = tmp_path / "e.csv"
    p.write_bytes(gzip.compress(BODY.replace(",", ";").encode(), mtime=7))
    ds = wb.from_csv(p, compression="gzip", **ARGS)
    assert list(ds.frame["v"]) == [1, 2]


def test_a_bad_line_in_a_compressed_file_is_named_by_its_line(tmp_path):
    p = tmp_path / "e.csv.gz"
    p.write_bytes(gzip.compress((BODY + "c,not a time,3\n").encode(), mtime=0))
    with pytest.raises(DatasetError, match=r"line 4"):
        wb.from_csv(p, **ARGS)


def test_a_first_line_wider_than_the_header_is_refused_in_a_compressed_file(tmp_path):
    p = tmp_path / "e.csv.xz"
    p.write_bytes(lzma.compress(b"s,time,v\na,2024-01-01T00:00:00Z,1,9\n"))
    with pytest.raises(DatasetError, match=r"line 2 has 4 fields but the header \(line 1\) has 3"):
        wb.from_csv(p, **ARGS)


def test_a_utf16_bom_inside_a_compressed_file_sets_the_encoding(tmp_path):
    p = tmp_path / "e.csv.gz"
    p.write_bytes(gzip.compress(BODY.encode("utf-16"), mtime=0))  # BOM, then UTF-16 text
    assert list(wb.from_csv(p, **ARGS).frame["s"]) == ["a", "b"]


def test_a_zip_of_two_files_is_refused_naming_them(tmp_path):
    p = tmp_path / "e.zip"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("a.csv", BODY)
        z.writestr("b.csv", BODY)
    with pytest.raises(DatasetError, match=r"zip archive of 2 files \(\['a.csv', 'b.csv'\]\)"):
        wb.from_csv(p, **ARGS)


@pytest.mark.parametrize("ext", sorted(CODECS))
def test_a_compressed_files_events_are_estimated_from_its_text(tmp_path, ext):
    codec = {"gz": "gzip", "zst": "zstd"}.get(ext, ext)
    rng = random.Random(5)
    # 200,000 lines of 31 bytes (6.2 MB): random readings compress about 2-3x, so the 1 MiB
    # head is decompressed from part of the file and the rest is estimated by that ratio
    lines = "".join(
        f"s{i % 100:02d},2024-01-01T00:00:00Z,{rng.randrange(100_000):05d}\n"
        for i in range(200_000)
    )
    text = "s,time,v\n" + lines
    assert len(lines) == 200_000 * 31
    p = tmp_path / f"big.csv.{ext}"
    p.write_bytes(CODECS[ext](text))
    assert p.stat().st_size < len(text) / 2
    head, size = text_head(p, codec)
    assert head == text.encode()[: 1 << 20]
    if ext == "zip":  # the member records its size
        assert size == len(text)
    else:  # 4 KiB pieces over a ratio that holds through the file: within 5 %
        assert size == pytest.approx(len(text), rel=0.05)
    assert estimate_events(p, codec) == pytest.approx(200_000, rel=0.05)


def test_a_compressed_file_of_less_text_than_the_head_is_counted(tmp_path):
    # 30,000 lines of 27 bytes (810 KB of text, under the 1 MiB head): decompressed whole,
    # so the text's size and the event count are exact, not estimated
    text = "s,time,v\n" + "".join(
        f"s{i % 100:02d},2024-01-01T00:00:00Z,{i % 10}\n" for i in range(30_000)
    )
    p = tmp_path / "e.csv.gz"
    p.write_bytes(gzip.compress(text.encode(), mtime=0))
    assert text_head(p, "gzip")[1] == len(text) == 9 + 30_000 * 27
    assert estimate_events(p, "gzip") == 30_000


def test_a_wrong_encoding_in_a_compressed_file_names_its_line(tmp_path):
    p = tmp_path / "e.csv.bz2"
    p.write_bytes(bz2.compress((BODY + "M\xfcnchen,2024-01-01T00:02:00Z,3\n").encode("latin-1")))
    with pytest.raises(DatasetError, match=r"line 4, byte 0xfc in 'M\ufffdnchen,2024"):
        wb.from_csv(p, **ARGS)
