"""Parser of ATC's AIPP configuration file (`--insert_op_conf`): protobuf text format of GE's
`domi.InsertNewOps` message (proto/insert_op.proto), e.g.

    aipp_op {                      # one block per model input that gets AIPP
        aipp_mode: static
        input_format : RGB888_U8
        src_image_size_w : 224
        mean_chn_0 : 123           # int32 in the proto
        var_reci_chn_0 : 0.0171    # float
    }

Algorithm: a line-aware tokenizer (comments start with '#'; tokens are identifiers, numbers, quoted strings,
'{', '}', ':') feeds a small recursive reader: `aipp_op [:] { field [:] value ... }`. Each field is checked
against the proto's field table (name -> type) at the line it appears; a field given twice is an error as in
protobuf (singular) and GE (repeated fields "can not be configed repeatedly"). Semantic checks that need only
the config follow GE's AippOp::ValidateParams (mode, input format, negative sizes: E10052) and the value
ranges the Aipp operator's compiler enforces (E81012, "Compile op[aipp] failed"; the ranges of CANN's AIPP
configuration template: mean and min [0, 255], var_reci an fp16, matrix int16, biases and padding sizes
[0, 255] / [0, 32], source sizes [2|0, 4096]); checks against the model (shapes, channels, parity of the
crop) are done by aipp_resolve.py. Every error names the file line, the field and the value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .aipp_formats import FORMATS
from .errors import CompileError

# insert_op.proto AippOpParams.InputFormat (same numbering as aclAippInputFormat for the formats below)
INPUT_FORMATS = {
    "UNDEFINED": 0,
    "YUV420SP_U8": 1,
    "XRGB8888_U8": 2,
    "RGB888_U8": 3,
    "YUV400_U8": 4,
    "NC1HWC0DI_FP16": 5,
    "NC1HWC0DI_S8": 6,
    "ARGB8888_U8": 7,
    "YUYV_U8": 8,
    "YUV422SP_U8": 9,
    "AYUV444_U8": 10,
    "RAW10": 11,
    "RAW12": 12,
    "RAW16": 13,
    "RAW24": 14,
    "RGB16": 15,
    "RGB20": 16,
    "RGB24": 17,
    "RGB8_IR": 18,
    "RGB16_IR": 19,
    "RGB24_IR": 20,
}
SUPPORTED_FORMATS = tuple(FORMATS)
FP16_MAX = 65504.0
AIPP_MODES = ("static", "dynamic")

# field -> type, from AippOpParams (int/uint/float/bool/enum/str)
_FIELDS: dict[str, str] = {
    "aipp_mode": "mode",
    "related_input_rank": "uint",
    "related_input_name": "str",
    "input_edge_idx": "uint",
    "max_src_image_size": "uint",
    "support_rotation": "bool",
    "input_format": "format",
    "csc_switch": "bool",
    "cpadding_value": "float",
    "rbuv_swap_switch": "bool",
    "ax_swap_switch": "bool",
    "single_line_mode": "bool",
    "src_image_size_w": "int",
    "src_image_size_h": "int",
    "crop": "bool",
    "load_start_pos_w": "int",
    "load_start_pos_h": "int",
    "crop_size_w": "int",
    "crop_size_h": "int",
    "resize": "bool",
    "resize_output_w": "int",
    "resize_output_h": "int",
    "padding": "bool",
    "left_padding_size": "int",
    "right_padding_size": "int",
    "top_padding_size": "int",
    "bottom_padding_size": "int",
    "padding_value": "float",
    "raw_rgbir_to_f16_n": "uint",
    **{f"mean_chn_{i}": "int" for i in range(4)},
    **{f"min_chn_{i}": "float" for i in range(4)},
    **{f"var_reci_chn_{i}": "float" for i in range(4)},
    **{f"matrix_r{r}c{c}": "int" for r in range(3) for c in range(3)},
    **{f"output_bias_{i}": "int" for i in range(3)},
    **{f"input_bias_{i}": "int" for i in range(3)},
}
_NON_NEGATIVE = (
    "src_image_size_w",
    "src_image_size_h",
    "load_start_pos_w",
    "load_start_pos_h",
    "crop_size_w",
    "crop_size_h",
    "resize_output_w",
    "resize_output_h",
    "left_padding_size",
    "right_padding_size",
    "top_padding_size",
    "bottom_padding_size",
)
_TOKEN = re.compile(r'\s*(?:(#.*)|("(?:[^"\\]|\\.)*")|([{}:])|([-+]?[A-Za-z0-9_.]+(?:[eE][-+]?\d+)?))')


@dataclass
class AippConfig:
    """One `aipp_op` block: the values given (by proto field name) and where each was given."""

    values: dict[str, object] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    line: int = 0  # line of `aipp_op`
    source: str = ""

    def get(self, name: str, default: object = None) -> object:
        return self.values.get(name, default)

    def as_int(self, name: str, default: int = 0) -> int:
        return int(self.values.get(name, default))  # type: ignore[call-overload]

    def as_float(self, name: str, default: float = 0.0) -> float:
        return float(self.values.get(name, default))  # type: ignore[arg-type]

    def flag(self, name: str) -> bool:
        return bool(self.values.get(name, False))

    def where(self, name: str | None = None) -> str:
        line = self.lines.get(name, self.line) if name else self.line
        return f"{self.source}:{line}" + (f" field {name!r}" if name else "")

    def error(self, name: str | None, message: str) -> CompileError:
        """GE's refusal of the configuration (insert_op / AippOp checks)."""
        return CompileError(f"E10052: AIPP configuration is invalid. Reason: {self.where(name)}: {message}")

    def op_error(self, name: str | None, cause: str) -> CompileError:
        """The Aipp operator compiler's refusal of a value (its checks run when ATC builds the op)."""
        return CompileError(f"E81012: Compile op[aipp] failed, cause: {cause} ({self.where(name)})")


def load_aipp_config(path: str) -> list[AippConfig]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
        raise CompileError(
            f"E10052: AIPP configuration is invalid. Reason: --insert_op_conf={path} cannot be read: {reason}"
        ) from None
    return parse_aipp_config(text, path)


def parse_aipp_config(text: str, source: str = "<aipp config>") -> list[AippConfig]:
    tokens = _tokenize(text, source)
    configs: list[AippConfig] = []
    pos = 0
    while pos < len(tokens):
        line, tok = tokens[pos]
        if tok != "aipp_op":
            what = (
                "multi_shape_op is not supported by ascendsim"
                if tok == "multi_shape_op"
                else f"expected 'aipp_op {{', found {tok!r}"
            )
            raise _error(source, line, what)
        pos += 1
        if pos < len(tokens) and tokens[pos][1] == ":":
            pos += 1
        if pos >= len(tokens) or tokens[pos][1] != "{":
            raise _error(source, line, "'aipp_op' must be followed by '{'")
        config = AippConfig(line=line, source=source)
        pos = _read_block(tokens, pos + 1, config)
        _validate(config)
        configs.append(config)
    if not configs:
        raise _error(source, 1, "no aipp_op block found")
    return configs


def _tokenize(text: str, source: str) -> list[tuple[int, str]]:
    tokens: list[tuple[int, str]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        pos = 0
        while pos < len(raw):
            match = _TOKEN.match(raw, pos)
            if match is None or match.end() == pos:
                if raw[pos:].strip() == "":
                    break
                raise _error(source, number, f"unexpected character {raw[pos:].strip()[0]!r}")
            pos = match.end()
            token = match.group(2) or match.group(3) or match.group(4)
            if match.group(1) is not None:
                break
            if token:
                tokens.append((number, token))
    return tokens


def _read_block(tokens: list[tuple[int, str]], pos: int, config: AippConfig) -> int:
    source = config.source
    while pos < len(tokens):
        line, name = tokens[pos]
        if name == "}":
            return pos + 1
        if name not in _FIELDS:
            raise _error(source, line, f"unknown field {name!r} in aipp_op (known: {', '.join(sorted(_FIELDS))})")
        pos += 1
        if pos < len(tokens) and tokens[pos][1] == ":":
            pos += 1
        if pos >= len(tokens) or tokens[pos][1] in "{}:":
            raise _error(source, line, f"field {name!r} has no value")
        value_line, raw = tokens[pos]
        if name in config.values:
            raise _error(
                source,
                line,
                f"field {name!r} is given twice (first at line {config.lines[name]}); "
                "it can not be configured repeatedly",
            )
        config.values[name] = _convert(source, value_line, name, raw)
        config.lines[name] = line
        pos += 1
    raise _error(source, tokens[-1][0], "missing '}' at the end of aipp_op")


def _convert(source: str, line: int, name: str, raw: str) -> object:
    kind = _FIELDS[name]
    try:
        if kind == "bool":
            if raw in ("true", "True", "t", "1"):
                return True
            if raw in ("false", "False", "f", "0"):
                return False
            raise ValueError
        if kind in ("int", "uint"):
            value = int(raw, 0)
            if kind == "uint" and value < 0:
                raise ValueError
            if not -(1 << 31) <= value < (1 << 32 if kind == "uint" else 1 << 31):
                raise ValueError
            return value
        if kind == "float":
            return float(raw)
        if kind == "str":
            if len(raw) < 2 or raw[0] != '"':
                raise ValueError
            return raw[1:-1]
        choices = AIPP_MODES if kind == "mode" else tuple(INPUT_FORMATS)
        if raw not in choices:
            raise ValueError
        return raw
    except ValueError:
        expected = {
            "bool": "true or false",
            "int": "an int32",
            "uint": "a non-negative integer",
            "float": "a number",
            "str": "a quoted string",
            "mode": "static or dynamic",
            "format": "one of " + ", ".join(INPUT_FORMATS),
        }[kind]
        raise _error(source, line, f"field {name!r}: value {raw!r} is not {expected}") from None


def _validate(config: AippConfig) -> None:
    """GE's AippOp::ValidateParams, plus what ascendsim does not implement."""
    mode = config.get("aipp_mode")
    if mode is None:
        raise config.error(None, "aipp_mode must be configured as static or dynamic")
    if mode == "dynamic":
        raise config.error("aipp_mode", "dynamic AIPP is not supported by ascendsim; use aipp_mode: static")
    fmt = config.get("input_format")
    if fmt is None or fmt == "UNDEFINED":
        raise config.error("input_format" if fmt else None, "input_format of a static AIPP must be configured")
    if fmt not in SUPPORTED_FORMATS:
        raise config.error(
            "input_format",
            f"input_format {fmt} is not supported by ascendsim; supported: {', '.join(SUPPORTED_FORMATS)}",
        )
    for name in _NON_NEGATIVE:
        if config.as_int(name) < 0:
            raise config.error(name, f"{name} must not be configured smaller than 0 (got {config.as_int(name)})")
    _check_ranges(config)
    for name in ("resize", "single_line_mode", "support_rotation"):
        if config.flag(name):
            raise config.error(name, f"{name} is not supported by ascendsim")
    for name in ("input_edge_idx", "max_src_image_size", "raw_rgbir_to_f16_n"):
        if name in config.values:
            raise config.error(name, f"{name} is not supported by ascendsim (static AIPP on every use of the input)")


def _check_ranges(config: AippConfig) -> None:
    """The value ranges of the AIPP registers (fields not given keep their in-range defaults)."""
    ranges: list[tuple[str, float, float]] = [("src_image_size_h", 0, 4096)]
    ranges += [(f"mean_chn_{i}", 0, 255) for i in range(4)] + [(f"min_chn_{i}", 0, 255) for i in range(4)]
    ranges += [(f"var_reci_chn_{i}", -FP16_MAX, FP16_MAX) for i in range(4)]
    ranges += [("padding_value", -FP16_MAX, FP16_MAX)]
    if config.flag("csc_switch"):
        ranges += [(f"matrix_r{r}c{c}", -(1 << 15), (1 << 15) - 1) for r in range(3) for c in range(3)]
        ranges += [(f"{kind}_bias_{i}", 0, 255) for kind in ("output", "input") for i in range(3)]
    if config.flag("padding"):
        ranges += [(f"{side}_padding_size", 0, 32) for side in ("left", "right", "top", "bottom")]
    for name, low, high in ranges:
        value = config.values.get(name)
        if isinstance(value, (int, float)) and not low <= value <= high:
            raise config.op_error(name, f"{name}[{value:g}] should be within [{low:g}, {high:g}]")
    width = config.as_int("src_image_size_w")
    if width != 0 and not 2 <= width <= 4096:
        raise config.op_error("src_image_size_w", f"src_image_size_w[{width}] should be within [2, 4096] or 0")
    if config.get("input_format") == "YUV400_U8" and config.flag("csc_switch"):
        raise config.op_error(
            "csc_switch", "csc_switch[1] makes no sense for YUV400_U8 (one channel, nothing to convert to RGB)"
        )


def _error(source: str, line: int, message: str) -> CompileError:
    return CompileError(f"E10052: AIPP configuration is invalid. Reason: {source}:{line}: {message}")
