"""Event values as cell payloads: text per value, and whole events as JSON or protobuf
messages for the serialized layout (G14, G28)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..errors import SchemaError
from .value_text import encode_text


def py_to_text(col: pd.Series) -> pd.Series:
    def one(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, float):
            return repr(v)
        return str(v)

    return col.map(one)


_PB_CACHE: dict[tuple, Any] = {}


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
    arrays = [
        s.to_numpy().tolist() if k != "s" else encode_text(s).tolist()
        for (_, k), s in zip(spec, cols.values(), strict=True)
    ]
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
    for v in values:
        m = cls()
        m.ParseFromString(v)
        recs.append({n: getattr(m, f"f{i}") for i, n in enumerate(names, start=1)})
    return recs
