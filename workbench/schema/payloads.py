"""Event values as cell payloads: text per value, and whole events as JSON or protobuf
messages for the serialized layout (G14, G28).

A missing value is a field left out: absent from the JSON object, an unset field of the protobuf
message. Protobuf fields that can be missing (double, string) have explicit presence (proto3
``optional``: "Field Presence", protobuf.dev), so an unset field is told apart from 0.0 or "";
integers and booleans cannot be missing and keep proto3's implicit presence."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..errors import SchemaError
from .value_text import encode_text


def py_to_text(col: pd.Series) -> pd.Series:
    def one(v: Any) -> str | None:
        if v is None or (isinstance(v, float) and v != v):  # a field the payload left out
            return None
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, float):
            return repr(v)
        return str(v)

    return col.map(one)


_PB_CACHE: dict[tuple, Any] = {}
_MAY_BE_MISSING = ("f", "s")  # float and text columns can hold missing values


def _message_class(spec: tuple[tuple[str, str], ...]):
    """A protobuf message class built at run time from (column, kind) pairs (no hand-written wire format)."""
    if spec in _PB_CACHE:
        return _PB_CACHE[spec]
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    fdp = descriptor_pb2.FileDescriptorProto(
        name=f"workbench_event_{len(_PB_CACHE)}.proto", package="workbench.events", syntax="proto3"
    )
    msg = fdp.message_type.add(name="Event")
    types = {
        "f": descriptor_pb2.FieldDescriptorProto.TYPE_DOUBLE,
        "b": descriptor_pb2.FieldDescriptorProto.TYPE_BOOL,
        "i": descriptor_pb2.FieldDescriptorProto.TYPE_SINT64,
        "s": descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
    }
    for i, (name, kind) in enumerate(spec, start=1):
        fd = msg.field.add(
            name=f"f{i}",
            number=i,
            type=types[kind],
            label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL,
        )
        fd.json_name = name
        if kind in _MAY_BE_MISSING:  # explicit presence: proto3 `optional`, a synthetic oneof
            fd.proto3_optional = True
            fd.oneof_index = len(msg.oneof_decl)
            msg.oneof_decl.add(name=f"_f{i}")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    cls = message_factory.GetMessageClass(pool.FindMessageTypeByName("workbench.events.Event"))
    _PB_CACHE[spec] = cls
    return cls


def dtype_kind(dtype: str | None) -> str:
    """Protobuf field kind for a pandas dtype name: f(double), b(bool), i(sint64), s(string)."""
    d = (dtype or "").lower()
    if d.startswith("float"):
        return "f"
    if d == "bool":
        return "b"
    if d.startswith(("int", "uint")):
        return "i"
    return "s"


def protobuf_payloads(cols: dict[str, pd.Series]) -> np.ndarray:
    """One serialized message per event. Protobuf has no columnar encoder in Python, so this is the
    one per-event loop in ``to_cells`` (the serialized-protobuf layout only)."""
    spec = tuple((c, dtype_kind(str(s.dtype))) for c, s in cols.items())
    cls = _message_class(spec)
    names = [f"f{i}" for i in range(1, len(spec) + 1)]
    arrays, gaps = [], False
    for (_, k), s in zip(spec, cols.values(), strict=True):
        absent = s.isna().to_numpy(dtype=bool) if k in _MAY_BE_MISSING else None
        if absent is None or not absent.any():
            arrays.append(s.to_numpy().tolist() if k != "s" else encode_text(s).tolist())
            continue
        gaps = True
        vals = s.astype(object).where(~absent, "") if k == "s" else s
        arr = np.asarray(vals.to_numpy().tolist() if k != "s" else encode_text(vals), dtype=object)
        arr[absent] = None
        arrays.append(arr.tolist())
    if gaps:  # a missing value is an unset field
        return np.asarray(
            [
                cls(
                    **{n: v for n, v in zip(names, row, strict=True) if v is not None}
                ).SerializeToString(deterministic=True)
                for row in zip(*arrays, strict=True)
            ],
            dtype=object,
        )
    out = [
        cls(**dict(zip(names, row, strict=True))).SerializeToString(deterministic=True)
        for row in zip(*arrays, strict=True)
    ]
    return np.asarray(out, dtype=object)


def protobuf_records(values: np.ndarray, payload: tuple) -> list[dict]:
    """Parse payloads with the message class rebuilt from the payload's (column, dtype) list."""
    if len(values) == 0:
        return []
    if not payload:
        raise SchemaError(
            "Decoding protobuf cells needs the dataset's columns: bind the schema "
            "(schema.bind(ds)) or pass cells made by to_cells."
        )
    spec = tuple((c, dtype_kind(d)) for c, d in payload)
    cls = _message_class(spec)
    names = [c for c, _ in spec]
    recs = []
    maybe = [k in _MAY_BE_MISSING for _, k in spec]
    for v in values:
        m = cls()
        m.ParseFromString(v)
        recs.append(
            {
                n: getattr(m, f"f{i}")
                for i, (n, has) in enumerate(zip(names, maybe, strict=True), start=1)
                if not has or m.HasField(f"f{i}")
            }
        )
    return recs
