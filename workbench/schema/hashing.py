"""zlib's CRC-32, vectorized, for salts (G08): stable across processes and machines, unlike
Python's per-process randomized ``hash()``; and the same function in DuckDB's SQL, which has no
CRC-32 of its own (its hashes are md5, sha1, sha256 and its unstated ``hash``), for the keys
the engine path writes over the files (``Salt.key_sql``, ``analysis/file_writes.py``)."""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # pragma: no cover
    pass


# ----------------------------------------------------------------------------- hashing


def _crc_table() -> np.ndarray:
    table = np.zeros(256, dtype=np.uint32)
    for i in range(256):
        c = i
        for _ in range(8):
            c = (0xEDB88320 ^ (c >> 1)) if (c & 1) else (c >> 1)
        table[i] = c
    return table


_CRC_TABLE = _crc_table()


def crc32(texts: np.ndarray | pd.Series) -> np.ndarray:
    """zlib.crc32 of each string's UTF-8 bytes, computed column-wise (vectorized over events)."""
    codes, uniques = pd.factorize(pd.Series(np.asarray(texts, dtype=object), dtype=object))
    if len(uniques) == 0:
        return np.zeros(0, dtype=np.uint32)
    raw = (
        np.array([u.encode("utf-8") for u in uniques], dtype=object) if len(uniques) < 64 else None
    )
    if raw is not None:  # few distinct values: zlib directly
        out = np.array([zlib.crc32(b) for b in raw], dtype=np.uint32)
        return out[codes]
    b = np.char.encode(np.asarray(uniques, dtype=str), "utf-8")
    lengths = np.char.str_len(b)
    width = b.dtype.itemsize
    mat = np.frombuffer(b.tobytes(), dtype=np.uint8).reshape(len(b), width)
    crc = np.full(len(b), 0xFFFFFFFF, dtype=np.uint32)
    for j in range(width):
        live = lengths > j
        nxt = _CRC_TABLE[(crc ^ mat[:, j]) & 0xFF] ^ (crc >> np.uint32(8))
        crc = np.where(live, nxt, crc)
    return (crc ^ np.uint32(0xFFFFFFFF))[codes]


CRC32_SQL = "workbench_crc32"
"""The SQL name of :func:`crc32` on a connection :func:`register_crc32` has set up."""


def register_crc32(con: Any) -> None:
    """Make ``CRC32_SQL(text)`` (UINTEGER) :func:`crc32` of the text's UTF-8 bytes on the DuckDB
    connection ``con``: a vectorized Python function, called once per chunk of rows with them
    as an Arrow array (https://duckdb.org/docs/2.0/clients/python/function, ``type='arrow'``);
    a NULL stays NULL (DuckDB's default null handling never passes it in)."""
    import pyarrow as pa

    def crc32_arrow(texts: Any) -> Any:
        return pa.array(crc32(texts.to_numpy()), type=pa.uint32())

    con.create_function(CRC32_SQL, crc32_arrow, ["VARCHAR"], "UINTEGER", type="arrow")
