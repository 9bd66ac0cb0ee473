"""Parsing of ATC's option strings: --input_shape, --out_nodes, --dynamic_batch_size / --dynamic_image_size /
--dynamic_dims (gears), --input_format. Every malformed value is a CompileError naming the option and value.

Gears (ATC's rules): exactly one of the three dynamic options; --input_shape must mark the varying dims with
-1; dynamic_batch_size "1,2,4" gives one value per gear that replaces every -1; dynamic_image_size
"224,224;448,448" gives (h, w) per gear replacing the two -1s; dynamic_dims "1,224;2,448" gives one value per
-1 over all inputs in --input_shape order. ATC allows 2..100 gears.

Dynamic shape (no gear option): a dim of -1 varies at run time without bound, a range "1~512" between its
bounds ("1~-1": no upper bound), and the shape "-2" is an input of unknown rank. parse_input_shape writes a
range dim as -1 and records its bounds in `ranges` (per input, one (min, max) per dim; max -1 = unbounded).
"""

from __future__ import annotations

from .errors import CompileError
from .om_format import DynamicType

MAX_GEARS = 100
INPUT_FORMATS = ("NCHW", "ND", "NCDHW", "NHWC")


UNKNOWN_RANK = -2
InputRanges = dict[str, list[tuple[int, int]]]


def parse_input_shape(text: str | None, ranges: InputRanges | None = None) -> dict[str, list[int]]:
    """'name1:1,3,224,224;name2:-1,10' -> {'name1': [1, 3, 224, 224], ...} (the name may contain ':').
    With `ranges`, every input that has a -1 or a range gets its per-dim (min, max) there."""
    result: dict[str, list[int]] = {}
    for item in filter(None, (text or "").strip().strip('"').split(";")):
        name, sep, dims = item.rpartition(":")
        if not sep or not name:
            raise CompileError(f"--input_shape: {item!r} is not name:dim1,dim2,... "
                               '(e.g. "input_name1:n1,c1,h1,w1;input_name2:n2,c2,h2,w2")')
        values: list[int] = []
        bounds: list[tuple[int, int]] = []
        for raw in filter(None, dims.split(",")) if dims.strip() else []:
            value, bound = _parse_dim(raw.strip(), name, item)
            values.append(value)
            bounds.append(bound)
        if UNKNOWN_RANK in values and values != [UNKNOWN_RANK]:
            raise CompileError(f"--input_shape: {item!r}: -2 (unknown rank) must be the input's only dim")
        if ranges is not None and any(v < 0 for v in values) and values != [UNKNOWN_RANK]:
            ranges[name] = bounds
        if name in result:
            raise CompileError(f"--input_shape: input {name!r} is given twice")
        result[name] = values
    return result


def _parse_dim(dim: str, name: str, item: str) -> tuple[int, tuple[int, int]]:
    """One --input_shape dim: (value, (min, max)); a range "lo~hi" is the value -1."""
    def number(text: str) -> int:
        try:
            return int(text)
        except ValueError:
            raise CompileError(f"--input_shape: dim {dim!r} of {name!r} is not an integer or a range lo~hi") from None
    if "~" in dim:
        low_text, _, high_text = dim.partition("~")
        low, high = number(low_text), number(high_text)
        if low < 1 or (high != -1 and high < low):
            raise CompileError(f"--input_shape: range {dim!r} of {name!r} (in {item!r}) must be lo~hi with "
                               "1 <= lo <= hi, or lo~-1 for no upper bound")
        return -1, (low, high)
    value = number(dim)
    if value < UNKNOWN_RANK or value == 0:
        raise CompileError(f"--input_shape: dim {value} of {name!r} must be positive, -1 (dynamic) or -2 "
                           "(unknown rank)")
    return value, ((1, -1) if value < 0 else (value, value))


def is_dynamic_shape(shapes: dict[str, list[int]]) -> bool:
    return any(d < 0 for dims in shapes.values() for d in dims)


def parse_out_nodes(text: str | None) -> list[tuple[str, int]]:
    """'node1:0;node2:1' -> [('node1', 0), ('node2', 1)]."""
    result = []
    for item in filter(None, (text or "").strip().split(";")):
        name, sep, index = item.rpartition(":")
        if not sep or not name or not index.isdigit():
            raise CompileError(f"--out_nodes: {item!r} is not node_name:output_index")
        result.append((name, int(index)))
    return result


def parse_gears(batch: str | None, image: str | None, dims: str | None,
                shapes: dict[str, list[int]]) -> tuple[DynamicType, list[tuple[int, ...]]]:
    given = [(k, v) for k, v in (("--dynamic_batch_size", batch), ("--dynamic_image_size", image),
                                 ("--dynamic_dims", dims)) if v]
    if not given:  # -1 / ranges / -2 without gears: a dynamic-shape model (build.py)
        return DynamicType.FIXED, []
    if len(given) > 1:
        raise CompileError(f"{' and '.join(k for k, _ in given)} cannot be set together: "
                           "dynamic_batch_size, dynamic_image_size and dynamic_dims can only be set one")
    option, text = given[0]
    if any(d == [UNKNOWN_RANK] for d in shapes.values()):
        raise CompileError(f"{option} cannot be used with an unknown-rank input (-2) in --input_shape")
    unknown = sum(d.count(-1) for d in shapes.values())
    if unknown == 0:
        raise CompileError(f"{option} needs --input_shape with -1 at the dynamic dims")
    rows = [row for row in text.strip().strip('"').split(";" if option != "--dynamic_batch_size" else ",") if row]
    try:
        gears = [tuple(int(x) for x in row.split(",")) for row in rows] if option != "--dynamic_batch_size" \
            else [(int(x),) for x in rows]
    except ValueError:
        raise CompileError(f"{option}={text!r}: gear values must be integers") from None
    kind = {"--dynamic_batch_size": DynamicType.DYNAMIC_BATCH, "--dynamic_image_size": DynamicType.DYNAMIC_IMAGE,
            "--dynamic_dims": DynamicType.DYNAMIC_DIMS}[option]
    width = {DynamicType.DYNAMIC_BATCH: 1, DynamicType.DYNAMIC_IMAGE: 2, DynamicType.DYNAMIC_DIMS: unknown}[kind]
    if kind == DynamicType.DYNAMIC_IMAGE and any(d.count(-1) not in (0, 2) for d in shapes.values()):
        raise CompileError("--dynamic_image_size needs exactly two -1 dims (h, w) in each dynamic input")
    for gear in gears:
        if len(gear) != width or any(v <= 0 for v in gear):
            raise CompileError(f"{option}: gear {','.join(map(str, gear))} must have {width} positive value(s)")
    if not 2 <= len(gears) <= MAX_GEARS or len(set(gears)) != len(gears):
        raise CompileError(f"{option}: {len(gears)} gears given; ATC needs 2 to {MAX_GEARS} distinct gears")
    return kind, gears


def gear_shapes(shapes: dict[str, list[int]], kind: DynamicType, gear: tuple[int, ...]) -> dict[str, list[int]]:
    """--input_shape with the -1 dims replaced by one gear's values."""
    values = iter(gear)
    result = {}
    for name, dims in shapes.items():
        if kind == DynamicType.DYNAMIC_BATCH:
            result[name] = [gear[0] if d == -1 else d for d in dims]
        elif kind == DynamicType.DYNAMIC_IMAGE:
            hw = iter(gear)
            result[name] = [next(hw) if d == -1 else d for d in dims]
        else:
            result[name] = [next(values) if d == -1 else d for d in dims]
    return result


def check_input_format(fmt: str | None) -> str | None:
    if fmt and fmt not in INPUT_FORMATS:
        raise CompileError(f"--input_format={fmt} is invalid; the value must be NCHW, ND or NCDHW in ONNX model "
                           "(ascendsim also accepts NHWC)")
    return fmt or None
