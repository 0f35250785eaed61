"""Serialized-protobuf cells (G14, G28) checked against the protobuf wire format written out by
hand (protobuf.dev, "Encoding": a tag byte is field_number << 3 | wire_type; a double is wire
type 1, 8 bytes little-endian; sint64 is wire type 0, ZigZag-coded; bool wire type 0; a string
wire type 2, its length then UTF-8). proto3 leaves default-valued fields out; a missing double or
string is an unset field (explicit presence), told apart from 0.0 and "" when read back."""

from __future__ import annotations

import struct

import numpy as np
import pandas as pd
from google.protobuf.descriptor import FieldDescriptor

from workbench.schema import payloads
from workbench.schema.payloads import protobuf_payloads, protobuf_records


def _events() -> dict[str, pd.Series]:
    return {
        "temp": pd.Series([1.5, np.nan, 0.0]),
        "n": pd.Series([3, -1, 0], dtype="int64"),
        "ok": pd.Series([True, False, False]),
        "site": pd.Series(["ab", None, ""], dtype=object),
    }


def test_protobuf_cells_are_the_wire_bytes_written_by_hand():
    got = list(protobuf_payloads(_events()))
    first = (
        b"\x09"
        + struct.pack("<d", 1.5)  # field 1 (temp), double: tag 1<<3|1 = 0x09
        + b"\x10\x06"  # field 2 (n), sint64 3: tag 2<<3|0 = 0x10, ZigZag 3 -> 6
        + b"\x18\x01"  # field 3 (ok), bool true: tag 3<<3|0 = 0x18
        + b"\x22\x02ab"  # field 4 (site), string: tag 4<<3|2 = 0x22, length 2
    )
    # temp missing and site missing are unset; ok=false is proto3's default, left out;
    # n = -1 is ZigZag 1
    second = b"\x10\x01"
    # 0.0 and "" are set (explicit presence), 0 and false are defaults (left out)
    third = b"\x09" + struct.pack("<d", 0.0) + b"\x22\x00"
    assert got == [first, second, third]


def test_protobuf_cells_read_back_tell_missing_from_zero():
    payload = (("temp", "float64"), ("n", "int64"), ("ok", "bool"), ("site", "object"))
    recs = protobuf_records(protobuf_payloads(_events()), payload)
    assert recs[0] == {"temp": 1.5, "n": 3, "ok": True, "site": "ab"}
    assert recs[1] == {"n": -1, "ok": False}  # temp and site missing: no field at all
    assert recs[2] == {"temp": 0.0, "n": 0, "ok": False, "site": ""}


def test_the_message_class_types_each_field_by_its_columns_kind(monkeypatch):
    # built afresh (an empty class cache): field i is column i, double/sint64/bool/string by the
    # column's kind, and only the kinds that can be missing (double, string) have presence
    monkeypatch.setattr(payloads, "_PB_CACHE", {})
    cls = payloads._message_class((("temp", "f"), ("n", "i"), ("ok", "b"), ("site", "s")))
    fields = [(f.name, f.json_name, f.type, f.has_presence) for f in cls.DESCRIPTOR.fields]
    assert fields == [
        ("f1", "temp", FieldDescriptor.TYPE_DOUBLE, True),
        ("f2", "n", FieldDescriptor.TYPE_SINT64, False),
        ("f3", "ok", FieldDescriptor.TYPE_BOOL, False),
        ("f4", "site", FieldDescriptor.TYPE_STRING, True),
    ]
