"""How well a design's cells compress: the ratio storage is billed on and sized with (G01, G14).

A contiguous sample of the design's own cells, serialized in key order as an SSTable stores them
and compressed in 64 KB blocks with Snappy (the Bigtable paper's Zippy).
"""

from __future__ import annotations

from .settings import DEFAULT, Settings


def compression_ratio(
    cells, settings: Settings = DEFAULT, *, bytes_per_cell: float | None = None
) -> float:
    """Logical bytes ÷ compressed bytes of a sample of ``cells`` (a CellFrame).

    The sample is a contiguous run of cells in Bigtable's order (about
    ``compression_sample_bytes``), each written as key, family, qualifier, an 8-byte timestamp
    and the value, as an SSTable stores them; it is compressed in ``compression_block_bytes``
    blocks with ``compression_codec`` (pyarrow's codecs: snappy, lz4, zstd, gzip, brotli)."""
    import pyarrow as pa

    f = cells.frame
    if not len(f):
        return 1.0
    per_cell = max(bytes_per_cell or float(cells.total_bytes) / len(f), 1.0)
    n = int(min(len(f), max(1, settings.compression_sample_bytes // per_cell)))
    start = (len(f) - n) // 2  # from the middle: neither the first nor the last keys only
    part = f.iloc[start : start + n].sort_values(
        ["table", "row_key", "family", "qualifier", "timestamp_us"],
        ascending=[True, True, True, True, False],
        kind="stable",
    )
    blob = b"".join(
        k.encode() + fam.encode() + q.encode() + int(ts).to_bytes(8, "big", signed=True) + v
        for k, fam, q, ts, v in zip(
            part["row_key"],
            part["family"],
            part["qualifier"],
            part["timestamp_us"],
            part["value"],
            strict=True,
        )
    )
    codec = pa.Codec(settings.compression_codec)
    blk = max(int(settings.compression_block_bytes), 1024)
    packed = sum(
        len(codec.compress(blob[i : i + blk], asbytes=True)) for i in range(0, len(blob), blk)
    )
    return len(blob) / max(packed, 1)


__all__ = ["compression_ratio"]
