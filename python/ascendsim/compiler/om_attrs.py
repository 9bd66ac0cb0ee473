"""Strings and attributes of MODEL_DEF: a deduplicating string table and the attribute blob.

The string table is the concatenation of NUL-terminated UTF-8 strings; a string's id is its byte offset, and
id 0 is the empty string. The attribute blob holds, per node, an array of fixed 24-byte ATTR records (name,
type, count, aux, value); scalars sit in `value`, everything else (lists, tensors, nested dicts such as the
steps of a FusedElementwise `program`) sits elsewhere in the blob, 8-aligned, and `value` is its offset.
Nested dicts are arrays of ATTR records again, so a reader decodes everything with one recursive function.
"""

from __future__ import annotations

import itertools
import math
import struct
from dataclasses import dataclass
from typing import Any

import numpy as np

from .ir import DType
from .om_format import ATTR, AttrAux, AttrType, pad_to


@dataclass(frozen=True)
class Typed:
    """An attribute whose record type is given, not inferred from the Python value: a single-operator model
    keeps ATC's attribute types (docs/om-format.md §10.4), so an empty list of floats stays FLOATS and a bool
    is an INT with aux BOOL. `value`: int / float / str, or a list of them, or a list of int lists."""

    kind: AttrType
    value: Any
    aux: AttrAux = AttrAux.INT


class StringTable:
    def __init__(self) -> None:
        self._ids: dict[str, int] = {"": 0}
        self._data = bytearray(b"\0")

    def add(self, text: str) -> int:
        if text not in self._ids:
            self._ids[text] = len(self._data)
            self._data += text.encode("utf-8") + b"\0"
        return self._ids[text]

    def data(self) -> bytes:
        return bytes(self._data)


class AttrBlob:
    def __init__(self, strings: StringTable) -> None:
        self.strings = strings
        self.data = bytearray()

    def _append(self, payload: bytes) -> int:
        self.data += b"\0" * pad_to(len(self.data), 8)
        offset = len(self.data)
        self.data += payload
        return offset

    def add_attrs(self, attrs: dict[str, Any], where: str) -> tuple[int, int]:
        """Appends the ATTR records of `attrs` (None values are skipped); returns (offset, count)."""
        records = [self._record(name, value, f"{where} attribute {name!r}")
                   for name, value in sorted(attrs.items()) if value is not None]
        return self._append(b"".join(records)), len(records)

    def _record(self, name: str, value: Any, where: str) -> bytes:
        kind, count, aux, payload = self._encode(value, where)
        return ATTR.pack(self.strings.add(name), kind, count, aux, payload)

    def _encode(self, value: Any, where: str) -> tuple[int, int, int, int]:  # noqa: PLR0911
        if isinstance(value, Typed):
            return self._typed(value)
        if isinstance(value, (bool, np.bool_, int, np.integer)):
            return AttrType.INT, 1, 0, int(value) & 0xFFFFFFFFFFFFFFFF
        if isinstance(value, (float, np.floating)):
            return AttrType.FLOAT, 1, 0, struct.unpack("<Q", struct.pack("<d", float(value)))[0]
        if isinstance(value, str):
            return AttrType.STRING, 1, 0, self.strings.add(value)
        if isinstance(value, bytes):
            return AttrType.STRING, 1, 0, self.strings.add(value.decode("utf-8", "replace"))
        if isinstance(value, np.ndarray):
            return self._tensor(value, where)
        if isinstance(value, dict):
            kind, count, _aux, offset = self._dicts([value], where)
            return kind, count, 1, offset  # aux 1: a single dict, not a list of one
        if isinstance(value, (list, tuple)):
            return self._list(list(value), where)
        raise TypeError(f"{where}: values of type {type(value).__name__} cannot be stored in a .om file")

    def _list(self, items: list[Any], where: str) -> tuple[int, int, int, int]:
        if all(isinstance(v, (bool, np.bool_, int, np.integer)) for v in items):
            return AttrType.INTS, len(items), 0, self._append(np.asarray(items, dtype="<i8").tobytes())
        if all(isinstance(v, (bool, int, float, np.integer, np.floating)) for v in items):
            return AttrType.FLOATS, len(items), 0, self._append(np.asarray(items, dtype="<f8").tobytes())
        if all(isinstance(v, str) for v in items):
            ids = [self.strings.add(v) for v in items]
            return AttrType.STRINGS, len(items), 0, self._append(np.asarray(ids, dtype="<u4").tobytes())
        if all(isinstance(v, dict) for v in items):
            return self._dicts(items, where)
        raise TypeError(f"{where}: a list mixing {sorted({type(v).__name__ for v in items})} cannot be stored")

    def _typed(self, attr: Typed) -> tuple[int, int, int, int]:
        kind, value, aux = attr.kind, attr.value, int(attr.aux)
        if kind == AttrType.INT:
            return kind, 1, aux, int(value) & 0xFFFFFFFFFFFFFFFF
        if kind == AttrType.FLOAT:
            return kind, 1, aux, struct.unpack("<Q", struct.pack("<d", float(value)))[0]
        if kind == AttrType.STRING:
            return kind, 1, aux, self.strings.add(value)
        if kind == AttrType.STRINGS:
            ids = [self.strings.add(v) for v in value]
            return kind, len(ids), aux, self._append(np.asarray(ids, dtype="<u4").tobytes())
        if kind == AttrType.INT_LISTS:
            flat = [len(row) for row in value] + [v for row in value for v in row]
            return kind, len(value), aux, self._append(np.asarray(flat, dtype="<i8").tobytes())
        if kind in (AttrType.INTS, AttrType.FLOATS):
            payload = np.asarray(value, dtype="<i8" if kind == AttrType.INTS else "<f8").tobytes()
            return kind, len(value), aux, self._append(payload)
        raise TypeError(f"attribute records of type {kind.name} are not written from a Typed value")

    def _tensor(self, array: np.ndarray, where: str) -> tuple[int, int, int, int]:
        try:
            dtype = DType.of_numpy(array.dtype)
        except ValueError as error:
            raise TypeError(f"{where}: {error}") from None
        header = struct.pack("<II", int(dtype), array.ndim) + np.asarray(array.shape, dtype="<i8").tobytes()
        data = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
        return AttrType.TENSOR, int(array.size), 0, self._append(header + data)

    def _dicts(self, items: list[dict[str, Any]], where: str) -> tuple[int, int, int, int]:
        entries = [self.add_attrs(item, where) for item in items]
        table = b"".join(struct.pack("<I4xQ", count, offset) for offset, count in entries)
        return AttrType.DICTS, len(items), 0, self._append(table)


MAX_ATTR_DEPTH = 8  # nesting of DICTS a reader follows (a FusedElementwise program's step attrs are at depth 2)


def decode_attrs(blob: bytes, strings: bytes, offset: int, count: int, depth: int = 0, *,
                 single_op: bool = False) -> dict[str, Any]:
    """The inverse of AttrBlob.add_attrs (used by om_reader). Raises ValueError naming the broken rule of
    docs/om-format.md §4.5 for anything out of bounds, misaligned, of an unknown type or nested too deep.
    In a single-operator model (§10.4) an INT with aux BOOL decodes to a bool, with aux DATA_TYPE to a DType,
    an INTS with aux BOOL to a list of bools, and INT_LISTS to a list of int lists."""
    if depth > MAX_ATTR_DEPTH:
        raise ValueError(f"attributes nested deeper than {MAX_ATTR_DEPTH} DICTS levels")
    _span(blob, offset, count, ATTR.size, "ATTR records")
    result: dict[str, Any] = {}
    for i in range(count):
        name, kind, n, aux, value = ATTR.unpack_from(blob, offset + i * ATTR.size)
        if kind not in AttrType._value2member_map_ or (kind == AttrType.INT_LISTS and not single_op):
            raise ValueError(f"attribute type {kind} is unknown (0..{AttrType.DICTS}; {AttrType.INT_LISTS} in a "
                             "single-operator model)")
        if not _aux_valid(AttrType(kind), n, aux, single_op):
            raise ValueError(f"attribute aux {aux} is invalid for type {AttrType(kind).name} with count {n}")
        decoded = _decode(blob, strings, AttrType(kind), n, value, depth=depth, single_op=single_op)
        if kind == AttrType.DICTS and aux == 1:
            decoded = decoded[0]
        elif aux != AttrAux.INT:
            decoded = _with_aux(decoded, AttrAux(aux))
        result[string_at(strings, name)] = decoded
    return result


def _aux_valid(kind: AttrType, n: int, aux: int, single_op: bool) -> bool:
    if kind == AttrType.DICTS:
        return aux == 0 or (aux == 1 and n == 1)
    if single_op and kind == AttrType.INT:
        return aux in AttrAux._value2member_map_
    if single_op and kind == AttrType.INTS:
        return aux in (AttrAux.INT, AttrAux.BOOL)
    return aux == 0


def _with_aux(value: Any, aux: AttrAux) -> Any:
    """An INT / INTS of a single-operator model as its ATC type: bools 0/1, data types listed aclDataTypes."""
    items = value if isinstance(value, list) else [value]
    if aux == AttrAux.BOOL and any(v not in (0, 1) for v in items):
        raise ValueError(f"bool attribute value {value} is not 0 or 1")
    if aux == AttrAux.DATA_TYPE and any(v not in DType._value2member_map_ for v in items):
        raise ValueError(f"data type attribute value {value} is not a known aclDataType")
    convert = bool if aux == AttrAux.BOOL else DType
    return [convert(v) for v in value] if isinstance(value, list) else convert(value)


def _span(blob: bytes, offset: int, count: int, itemsize: int, what: str) -> None:
    if offset % 8 or offset + count * itemsize > len(blob):
        raise ValueError(f"{what} [{offset}, +{count}x{itemsize}) misaligned or outside the attribute blob "
                         f"({len(blob)} bytes)")


def _decode(blob: bytes, strings: bytes, kind: AttrType, n: int, value: int, *, depth: int,  # noqa: PLR0911
            single_op: bool) -> Any:
    if kind in (AttrType.INT, AttrType.FLOAT, AttrType.STRING) and n != 1:
        raise ValueError(f"scalar attribute of type {kind.name} has count {n}, not 1")
    if kind == AttrType.INT:
        return value - (1 << 64) if value >= 1 << 63 else value
    if kind == AttrType.FLOAT:
        return struct.unpack("<d", struct.pack("<Q", value))[0]
    if kind == AttrType.STRING:
        return string_at(strings, value)
    if kind in (AttrType.INTS, AttrType.FLOATS):
        _span(blob, value, n, 8, kind.name)
        return np.frombuffer(blob, "<i8" if kind == AttrType.INTS else "<f8", n, value).tolist()
    if kind == AttrType.STRINGS:
        _span(blob, value, n, 4, kind.name)
        return [string_at(strings, i) for i in np.frombuffer(blob, "<u4", n, value).tolist()]
    if kind == AttrType.TENSOR:
        return _decode_tensor(blob, n, value)
    if kind == AttrType.INT_LISTS:
        return _decode_int_lists(blob, n, value)
    items = []
    _span(blob, value, n, 16, "DICTS table")
    for i in range(n):
        count, offset = struct.unpack_from("<I4xQ", blob, value + 16 * i)
        items.append(decode_attrs(blob, strings, offset, count, depth + 1, single_op=single_op))
    return items


def _decode_int_lists(blob: bytes, n: int, value: int) -> list[list[int]]:
    _span(blob, value, n, 8, "INT_LISTS lengths")
    lengths = np.frombuffer(blob, "<i8", n, value).tolist()
    if any(length < 0 for length in lengths):
        raise ValueError(f"INT_LISTS lengths {lengths} negative")
    total = sum(lengths)
    _span(blob, value + 8 * n, total, 8, "INT_LISTS values")
    flat = np.frombuffer(blob, "<i8", total, value + 8 * n).tolist()
    ends = list(itertools.accumulate(lengths))
    return [flat[end - length:end] for end, length in zip(ends, lengths)]


def _decode_tensor(blob: bytes, n: int, value: int) -> np.ndarray:
    _span(blob, value, 1, 8, "TENSOR header")
    dtype, rank = struct.unpack_from("<II", blob, value)
    if dtype not in DType._value2member_map_ or rank > 8:
        raise ValueError(f"TENSOR attribute: dtype {dtype} unknown or rank {rank} > 8")
    _span(blob, value + 8, rank, 8, "TENSOR dims")
    shape = tuple(np.frombuffer(blob, "<i8", rank, value + 8).tolist())
    if any(d < 0 for d in shape) or math.prod(shape) != n:
        raise ValueError(f"TENSOR attribute: dims {list(shape)} negative or not {n} elements")
    np_dtype = DType(dtype).numpy.newbyteorder("<")
    data = value + 8 + 8 * rank
    if data + n * np_dtype.itemsize > len(blob):
        raise ValueError(f"TENSOR attribute data of {n} elements runs past the attribute blob")
    return np.frombuffer(blob, np_dtype, n, data).reshape(shape).copy()


def string_at(strings: bytes, offset: int) -> str:
    if not 0 <= offset < len(strings):
        raise ValueError(f"string id {offset} outside the string table ({len(strings)} bytes)")
    end = strings.index(b"\0", offset)
    try:
        return strings[offset:end].decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"string id {offset} is not valid UTF-8") from None
