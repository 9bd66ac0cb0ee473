"""Mutations of a valid `.om` image: random byte-level ones and format-aware ones (docs/om-format.md).

`fields(image)` walks the layout of a file the compiler wrote and lists every integer field it holds, as
(file offset, width, signed, name): the GE header, the partition table, the MODEL_DEF header, every PLAN, TENSOR
and NODE record, their tensor-id arrays, every ATTR record and the i64 payload of INTS attributes, the TASK_INFO
header, directory and tasks, and the MODEL_INOUT_INFO TLV headers and tensor descriptions. Field positions come
from the struct formats of `om_format` (the writer's own), so the walk follows the format as it changes.

`mutate(rng, image, fields)` applies 1-3 mutations, one of:
  * random: flip bits, overwrite bytes, truncate, extend with random or zero bytes, duplicate or delete a chunk;
  * format-aware: set a field to an extreme (0, 1, -1, 2^31-1, 2^31, 2^32-1, 2^62, 2^63-1, -2^63, NONE), a
    neighbour of its value (+-1, *2, /2, the value of another field) or a random value of its width.
Then, most of the time, the lengths and the checksum are made consistent again (the GE header's `length` and
`model_length`, the last partition's size after a change of the file size, the SHA-256 of the payload), so that a
mutation gets past the header checks into the parser, the plan checks, the kernels' attribute checks and
execution; the rest of the time the file is left as mutated, to test those checks too.
"""

from __future__ import annotations

import hashlib
import random
import struct
from typing import NamedTuple

from ascendsim.compiler import om_format as F

EXTREMES = (0, 1, -1, 2, 7, 8, 255, 511, 512, 0xFFFF, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**40, 2**62,
            2**63 - 1, -(2**63), -(2**31), F.NO_TENSOR)


class Field(NamedTuple):
    offset: int  # in the file
    width: int  # bytes
    signed: bool
    name: str


def _struct_fields(fmt: struct.Struct, base: int, prefix: str) -> list[Field]:
    """The integer fields of one record of `fmt` at file offset `base` (pad bytes and char arrays skipped)."""
    out: list[Field] = []
    offset = 0
    spec = fmt.format.lstrip("<")
    count = ""
    for char in spec:
        if char.isdigit():
            count += char
            continue
        n = int(count or 1)
        count = ""
        if char in "xs":
            offset += n
            continue
        width = struct.calcsize("<" + char)
        for k in range(n):
            out.append(Field(base + offset + k * width, width, char.islower(), f"{prefix}.{char}{offset + k * width}"))
        offset += n * width
    return out


def _u32(image: bytes, offset: int) -> int:
    return int(struct.unpack_from("<I", image, offset)[0])


def fields(image: bytes) -> list[Field]:
    """Every integer field of a valid image (the walk assumes the file is valid: it is a seed)."""
    out = _struct_fields(F.HEADER, 0, "header")
    table = F.MODEL_FILE_HEAD_LEN
    count = _u32(image, table)
    out.append(Field(table, 4, False, "table.num"))
    parts: dict[int, tuple[int, int]] = {}
    end_of_table = table + F.TABLE_HEAD.size + count * F.TABLE_ENTRY.size
    for k in range(count):
        entry = table + F.TABLE_HEAD.size + k * F.TABLE_ENTRY.size
        out += _struct_fields(F.TABLE_ENTRY, entry, f"table[{k}]")
        kind, offset, size = F.TABLE_ENTRY.unpack_from(image, entry)
        parts[kind] = (end_of_table + offset, size)
    out += _model_def(image, parts[F.Partition.MODEL_DEF][0])
    out += _task_info(image, parts[F.Partition.TASK_INFO][0])
    out += _inout(image, *parts[F.Partition.MODEL_INOUT_INFO])
    return out


def _model_def(image: bytes, base: int) -> list[Field]:
    out = _struct_fields(F.MODEL_DEF_HEADER, base, "model")
    head = F.MODEL_DEF_HEADER.unpack_from(image, base)
    plan_count, plan_table, blob = head[5], head[6], base + head[9]
    input_count, output_count = head[14], head[15]
    for p in range(plan_count):
        at = base + plan_table + p * F.PLAN.size
        out += _struct_fields(F.PLAN, at, f"plan[{p}]")
        plan = F.PLAN.unpack_from(image, at)
        tensors, tensor_table, nodes, node_table = plan[1], plan[2], plan[3], plan[4]
        for t in range(tensors):
            out += _struct_fields(F.TENSOR, base + tensor_table + t * F.TENSOR.size, f"tensor[{t}]")
        for k in range(input_count):
            out.append(Field(base + plan[7] + 4 * k, 4, False, f"plan[{p}].input_id[{k}]"))
        for k in range(output_count):
            out.append(Field(base + plan[8] + 4 * k, 4, False, f"plan[{p}].output_id[{k}]"))
        for n in range(nodes):
            at = base + node_table + n * F.NODE.size
            out += _struct_fields(F.NODE, at, f"node[{n}]")
            node = F.NODE.unpack_from(image, at)
            for k in range(node[4] + node[5]):
                out.append(Field(base + node[6] + 4 * k, 4, False, f"node[{n}].io[{k}]"))
            out += _attrs(image, blob, node[7], node[8], f"node[{n}]")
    return out


def _attrs(image: bytes, blob: int, offset: int, count: int, prefix: str, *, depth: int = 0) -> list[Field]:
    out: list[Field] = []
    for a in range(count):
        at = blob + offset + a * F.ATTR.size
        out += _struct_fields(F.ATTR, at, f"{prefix}.attr[{a}]")
        _name, kind, n, _aux, value = F.ATTR.unpack_from(image, at)
        if kind == F.AttrType.INTS:
            out += [Field(blob + value + 8 * k, 8, True, f"{prefix}.attr[{a}].int[{k}]") for k in range(n)]
        elif kind == F.AttrType.TENSOR:
            out += [Field(blob + value, 4, False, f"{prefix}.attr[{a}].dtype"),
                    Field(blob + value + 4, 4, False, f"{prefix}.attr[{a}].rank")]
        elif kind == F.AttrType.DICTS and depth < 3:
            for d in range(n):
                entry = blob + value + 16 * d
                out += [Field(entry, 4, False, f"{prefix}.dict[{d}].n"), Field(entry + 8, 8, False, f"{prefix}.dict[{d}].at")]
                inner_count, inner = struct.unpack_from("<I4xQ", image, entry)
                out += _attrs(image, blob, inner, inner_count, f"{prefix}.dict[{d}]", depth=depth + 1)
    return out


def _task_info(image: bytes, base: int) -> list[Field]:
    out = _struct_fields(F.TASK_HEADER, base, "tasks")
    _magic, _major, _minor, header_size, plans = F.TASK_HEADER.unpack_from(image, base)
    for p in range(plans):
        at = base + header_size + p * F.TASK_DIR.size
        out += _struct_fields(F.TASK_DIR, at, f"tasks.dir[{p}]")
        count, offset = F.TASK_DIR.unpack_from(image, at)
        for t in range(count):
            out += _struct_fields(F.TASK, base + offset + t * F.TASK.size, f"task[{p}][{t}]")
    return out


def _inout(image: bytes, base: int, size: int) -> list[Field]:
    out: list[Field] = []
    at = base
    while at + F.TLV.size <= base + size:
        kind, length = F.TLV.unpack_from(image, at)
        out += _struct_fields(F.TLV, at, f"tlv@{at}")
        value = at + F.TLV.size
        out.append(Field(value, 4, False, f"tlv@{at}.count"))
        if kind in (F.ModelDescType.MODEL_INPUT_DESC, F.ModelDescType.MODEL_OUTPUT_DESC):
            desc = value + 4
            for _ in range(_u32(image, value)):
                out += _struct_fields(F.TENSOR_DESC_BASE, desc, f"desc@{desc}")
                _size, _fmt, _dt, name, dims, dims2, ranges = F.TENSOR_DESC_BASE.unpack_from(image, desc)
                dims_at = desc + F.TENSOR_DESC_BASE.size + name
                out += [Field(dims_at + 8 * k, 8, True, f"desc@{desc}.dim[{k}]") for k in range((dims + dims2) // 8)]
                desc += F.TENSOR_DESC_BASE.size + name + dims + dims2 + ranges
        at = value + length
    return out


# ---- mutations ----------------------------------------------------------------------------------------------

def _set_field(rng: random.Random, image: bytearray, fields_: list[Field]) -> None:
    target = rng.choice(fields_)
    if target.offset + target.width > len(image):
        return
    code = "<" + {1: "B", 2: "H", 4: "I", 8: "Q"}[target.width]
    current = struct.unpack_from(code, image, target.offset)[0]
    roll = rng.random()
    if roll < 0.5:
        value = rng.choice(EXTREMES)
    elif roll < 0.75:
        value = rng.choice([current + 1, current - 1, current * 2, current // 2, current + 512, current - 512])
    elif roll < 0.9:
        other = rng.choice(fields_)
        value = struct.unpack_from("<" + {1: "B", 2: "H", 4: "I", 8: "Q"}[other.width], image, other.offset)[0] \
            if other.offset + other.width <= len(image) else 0
    else:
        value = rng.getrandbits(8 * target.width)
    struct.pack_into(code, image, target.offset, value % (1 << (8 * target.width)))


def _random_bytes(rng: random.Random, image: bytearray) -> None:
    roll = rng.random()
    n = len(image)
    if roll < 0.3:
        for _ in range(rng.randint(1, 8)):
            image[rng.randrange(n)] ^= 1 << rng.randrange(8)
    elif roll < 0.5:
        for _ in range(rng.randint(1, 4)):
            image[rng.randrange(n)] = rng.choice([0, 0xFF, 0x7F, 0x80, rng.randrange(256)])
    elif roll < 0.65:
        del image[rng.randrange(n):]
    elif roll < 0.75:
        image += bytes(rng.randrange(256) for _ in range(rng.randint(1, 64))) if rng.random() < 0.5 \
            else bytes(rng.choice([1, 7, 512, 4096]))
    elif roll < 0.9:
        at, size = rng.randrange(n), rng.randint(1, 256)
        image[at:at] = image[at:at + size]
    else:
        at = rng.randrange(n)
        del image[at:at + rng.randint(1, 256)]


def _make_consistent(image: bytearray, original_size: int) -> None:
    """Lengths and checksum as a writer would have set them, so the mutation reaches past the header."""
    if len(image) < F.MODEL_FILE_HEAD_LEN + F.TABLE_HEAD.size:
        return
    payload = len(image) - F.MODEL_FILE_HEAD_LEN
    if len(image) != original_size:
        struct.pack_into("<Q", image, 184, payload)
        struct.pack_into("<I", image, 76, payload if payload < 1 << 32 else 0)
        count = _u32(image, F.MODEL_FILE_HEAD_LEN)
        last = F.MODEL_FILE_HEAD_LEN + F.TABLE_HEAD.size + (count - 1) * F.TABLE_ENTRY.size
        end_of_table = last + F.TABLE_ENTRY.size
        if 1 <= count <= 16 and end_of_table <= len(image):
            _kind, offset, _size = F.TABLE_ENTRY.unpack_from(image, last)
            struct.pack_into("<Q", image, last + 16, max(0, len(image) - end_of_table - offset))
    if image[81] == 0:
        image[12:44] = hashlib.sha256(bytes(image[F.MODEL_FILE_HEAD_LEN:])).digest()


def mutate(rng: random.Random, image: bytes, fields_: list[Field]) -> bytes:
    out = bytearray(image)
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        if not out:
            break
        if rng.random() < 0.7:
            _set_field(rng, out, fields_)
        else:
            _random_bytes(rng, out)
    if rng.random() < 0.85:
        _make_consistent(out, len(image))
    return bytes(out)
