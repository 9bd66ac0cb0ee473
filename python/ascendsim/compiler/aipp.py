"""Static AIPP (`--insert_op_conf`): the image preprocessing the device's AIPP unit does becomes ordinary
graph ops in front of the model input, and the model input becomes the raw uint8 image, as on the device.

For each `aipp_op` block (related_input_rank / related_input_name picks the input), with the model input
[N, C, H, W] (or [N, H, W, C] under --input_format=NHWC), float32 or float16:
- the new model input keeps the input's name: uint8, format NHWC, [N, src_h, src_w, Cimg] with Cimg = 3
  (RGB888_U8), 4 (XRGB8888_U8) or 1 (YUV400_U8); src_image_size_w/h default to the model's W/H (0 = unset,
  as in GE's Aipp kernel);
- then, in AIPP's hardware order (ATC AIPP guide): crop (Slice of [load_start_pos, +crop_size); crop sizes
  default to the model's H/W) -> channel swaps before CSC (ax_swap_switch moves the X/A channel of XRGB from
  first to last place, rbuv_swap_switch exchanges channels 0 and 2) as one Gather -> CSC when csc_switch:
  RGB->YUV `out = clip(floor(M . x / 256) + output_bias, 0, 255)` (MatMul, Mul, Floor, Add, Clip; defaults
  GE's RGB2YUV BT.601 matrix and output bias 16/128/128; the input bias only applies to YUV inputs, which
  have no CSC here) -> keep the model's C channels -> data type conversion
  `(x - mean_chn_i - min_chn_i) * var_reci_chn_i` (Sub, Mul; var_reci defaults to 1.0) -> padding with
  cpadding_value -> Transpose NHWC->NCHW -> Cast to float16 when the model input is float16.
Every op is an ONNX op, so the exporter and onnxruntime check the result numerically. Identity steps (no
crop, no swap, zero mean) emit nothing. The resolved parameters are returned as AippInfo records, which the
OM writer stores so that aclmdlGetAippType / aclmdlGetFirstAippInfo can answer (docs/om-format.md §7).
Not supported (clear errors): dynamic AIPP, other input formats, resize, CSC on YUV400, input_edge_idx.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .aipp_config import INPUT_FORMATS, AippConfig
from .errors import CompileError
from .ir import DType, Graph, Node, Value
from .shape_inference import infer_node_types

IMAGE_CHANNELS = {"RGB888_U8": 3, "XRGB8888_U8": 4, "YUV400_U8": 1}
# GE ge_aipp_op.cc defaults for csc_switch on an RGB input (RGB -> YUV, BT.601 narrow)
RGB2YUV = ((66, 129, 25), (-38, -74, 112), (112, -94, -18))
DEFAULT_OUTPUT_BIAS = (16, 128, 128)
DEFAULT_INPUT_BIAS = (16, 128, 128)
_EXACT = 1 << 24  # float32 holds every integer below this: the CSC sums stay exact


@dataclass
class AippInfo:
    """The resolved static AIPP parameters of one model input (what aclAippInfo reports)."""

    input_index: int
    input_format: str
    src_w: int
    src_h: int
    crop: bool
    load_start_w: int
    load_start_h: int
    crop_w: int
    crop_h: int
    padding: bool
    pads: tuple[int, int, int, int]  # left, right, top, bottom
    padding_value: float
    csc: bool
    rbuv_swap: bool
    ax_swap: bool
    matrix: tuple[int, ...]
    output_bias: tuple[int, int, int]
    input_bias: tuple[int, int, int]
    mean: tuple[int, int, int, int]
    min: tuple[float, float, float, float]
    var_reci: tuple[float, float, float, float]
    out_dtype: DType
    out_format: str  # layout of the tensor fed to the model: NCHW or NHWC
    out_dims: list[tuple[int, ...]] = field(default_factory=list)  # per plan (gear), set by the build

    @property
    def format_id(self) -> int:
        return INPUT_FORMATS[self.input_format]


def apply_aipp(graph: Graph, configs: list[AippConfig], input_format: str | None) -> list[AippInfo]:
    """Inserts the AIPP ops of every config in front of its model input; returns one AippInfo per config."""
    infos = []
    seen: dict[int, AippConfig] = {}
    first = graph.nodes[0] if graph.nodes else None
    for config in configs:
        index = _input_index(graph, config)
        if index in seen:
            raise config.error(None, f"model input {index} already has an aipp_op (line {seen[index].line}); "
                                     "each input takes at most one")
        seen[index] = config
        infos.append(_insert(graph, index, config, input_format, first))
    return infos


def _input_index(graph: Graph, config: AippConfig) -> int:
    names = [v.name for v in graph.inputs]
    if "related_input_name" in config.values:
        name = str(config.get("related_input_name"))
        if name not in names:
            raise config.error("related_input_name", f"{name!r} is not a model input; inputs: {', '.join(names)}")
        return names.index(name)
    rank = config.as_int("related_input_rank")
    if rank >= len(names):
        raise config.error("related_input_rank", f"related_input_rank {rank} is out of range: the model has "
                                                 f"{len(names)} input(s)")
    return rank


def _insert(graph: Graph, index: int, cfg: AippConfig, input_format: str | None, first: Node | None) -> AippInfo:
    model_in = graph.inputs[index]
    if model_in.dtype not in (DType.FLOAT, DType.FLOAT16) or not model_in.is_static or len(model_in.shape or ()) != 4:
        raise cfg.error(None, f"model input {model_in.name!r} is {model_in.dtype.name if model_in.dtype else '?'} "
                              f"{model_in.shape}: AIPP needs a static 4-D float32/float16 input (give --input_shape)")
    nhwc = input_format == "NHWC"
    n, c, h, w = (model_in.shape[i] for i in ((0, 3, 1, 2) if nhwc else (0, 1, 2, 3)))  # type: ignore[index]
    info = _resolve(cfg, index, (int(c), int(h), int(w)), model_in.dtype, "NHWC" if nhwc else "NCHW")
    channels = IMAGE_CHANNELS[info.input_format]
    emit = _Emitter(graph, first, f"{model_in.name}_aipp")
    name = model_in.name
    graph.values.pop(name, None)
    model_in.name = graph.unique_name(f"{name}_aipp_out")
    graph.values[model_in.name] = model_in
    raw = graph.value(name, DType.UINT8, (int(n), info.src_h, info.src_w, channels))
    raw.format = "NHWC"
    graph.inputs[index] = raw
    x = raw
    if info.crop and (info.crop_h, info.crop_w) != (info.src_h, info.src_w):
        x = emit("Slice", [x, emit.const([info.load_start_h, info.load_start_w]),
                           emit.const([info.load_start_h + info.crop_h, info.load_start_w + info.crop_w]),
                           emit.const([1, 2])])
    x = emit("Cast", [x], to=DType.FLOAT)
    order = list(range(channels))
    if info.ax_swap:
        order = order[1:] + order[:1]
    if info.rbuv_swap:
        order[0], order[2] = order[2], order[0]
    keep = 3 if info.csc else int(c)
    if order[:keep] != list(range(channels)):
        x = emit("Gather", [x, emit.const(order[:keep])], axis=3)
    if info.csc:
        matrix = np.asarray(info.matrix, np.float32).reshape(3, 3)
        x = emit("MatMul", [x, emit.const(matrix.T.copy(), np.float32)])
        x = emit("Floor", [emit("Mul", [x, emit.const(np.float32(1 / 256), np.float32)])])
        x = emit("Add", [x, emit.const(np.asarray(info.output_bias, np.float32), np.float32)])
        x = emit("Clip", [x, emit.const(np.float32(0), np.float32), emit.const(np.float32(255), np.float32)])
        if c < 3:
            x = emit("Slice", [x, emit.const([0]), emit.const([int(c)]), emit.const([3])])
    offset = np.asarray(info.mean[:c], np.float64) + np.asarray(info.min[:c], np.float64)
    if np.any(offset != 0):
        x = emit("Sub", [x, emit.const(offset.astype(np.float32), np.float32)])
    scale = np.asarray(info.var_reci[:c], np.float32)
    if np.any(scale != 1):
        x = emit("Mul", [x, emit.const(scale, np.float32)])
    if info.padding and any(info.pads):
        left, right, top, bottom = info.pads
        x = emit("Pad", [x], mode="constant", pads=[0, top, left, 0, 0, bottom, right, 0], value=info.padding_value)
    if not nhwc:
        x = emit("Transpose", [x], perm=[0, 3, 1, 2])
    if model_in.dtype == DType.FLOAT16:
        x = emit("Cast", [x], to=DType.FLOAT16)
    emit.finish(x, model_in)
    info.out_dims.append(tuple(int(d) for d in model_in.shape))  # type: ignore[union-attr]
    return info


def _resolve(cfg: AippConfig, index: int, chw: tuple[int, int, int], dtype: DType, layout: str) -> AippInfo:
    """Defaults (GE's SetDefaultParams) and the checks of the config against the model input (C, H, W)."""
    c, h, w = chw
    fmt = str(cfg.get("input_format"))
    src_w, src_h = cfg.as_int("src_image_size_w") or w, cfg.as_int("src_image_size_h") or h
    crop = cfg.flag("crop")
    start_w, start_h = (cfg.as_int("load_start_pos_w"), cfg.as_int("load_start_pos_h")) if crop else (0, 0)
    crop_w, crop_h = (cfg.as_int("crop_size_w") or w, cfg.as_int("crop_size_h") or h) if crop else (src_w, src_h)
    if start_w + crop_w > src_w or start_h + crop_h > src_h:
        raise cfg.error("crop_size_w" if start_w + crop_w > src_w else "crop_size_h",
                        f"crop window [{start_h}:{start_h + crop_h}, {start_w}:{start_w + crop_w}] (h, w) is outside "
                        f"the {src_h}x{src_w} source image")
    padding = cfg.flag("padding")
    pads = tuple(cfg.as_int(f"{side}_padding_size") if padding else 0 for side in ("left", "right", "top", "bottom"))
    out_h, out_w = crop_h + pads[2] + pads[3], crop_w + pads[0] + pads[1]
    if (out_h, out_w) != (h, w):
        raise cfg.error("src_image_size_h" if not crop else "crop_size_h",
                        f"the AIPP output is {out_h}x{out_w} (h x w: {'crop' if crop else 'source image'} size plus "
                        f"padding) but the model input expects {h}x{w}")
    csc = cfg.flag("csc_switch")
    image_channels = IMAGE_CHANNELS[fmt]
    if fmt == "YUV400_U8":
        for name in ("csc_switch", "rbuv_swap_switch", "ax_swap_switch"):
            if cfg.flag(name):
                raise cfg.error(name, f"{name} is not supported for YUV400_U8 (one channel)")
    if fmt == "RGB888_U8" and cfg.flag("ax_swap_switch"):
        raise cfg.error("ax_swap_switch", "ax_swap_switch needs a 4-channel input (XRGB8888_U8)")
    available = 3 if csc else image_channels
    if c > available:
        raise cfg.error("input_format", f"the model input has {c} channels but {fmt}"
                                        f"{' after CSC' if csc else ''} gives {available}")
    matrix = tuple(cfg.as_int(f"matrix_r{r}c{k}", RGB2YUV[r][k] if csc else 0) for r in range(3) for k in range(3))
    if csc and max(sum(abs(v) for v in matrix[r * 3:r * 3 + 3]) for r in range(3)) * 255 >= _EXACT:
        raise cfg.error("matrix_r0c0", "CSC matrix rows with |sum| x 255 >= 2^24 are not supported by ascendsim")
    bias = tuple(cfg.as_int(f"output_bias_{i}", DEFAULT_OUTPUT_BIAS[i] if csc else 0) for i in range(3))
    in_bias = tuple(cfg.as_int(f"input_bias_{i}", DEFAULT_INPUT_BIAS[i] if csc else 0) for i in range(3))
    return AippInfo(
        index, fmt, src_w, src_h, crop, start_w, start_h, crop_w, crop_h, padding, pads,  # type: ignore[arg-type]
        cfg.as_float("cpadding_value"), csc, cfg.flag("rbuv_swap_switch"), cfg.flag("ax_swap_switch"), matrix,
        bias, in_bias, tuple(cfg.as_int(f"mean_chn_{i}") for i in range(4)),  # type: ignore[arg-type]
        tuple(cfg.as_float(f"min_chn_{i}") for i in range(4)),  # type: ignore[arg-type]
        tuple(cfg.as_float(f"var_reci_chn_{i}", 1.0) for i in range(4)), dtype, layout)  # type: ignore[arg-type]


class _Emitter:
    """Adds nodes in order before `first` (so the graph stays topological) and infers their outputs."""

    def __init__(self, graph: Graph, first: Node | None, prefix: str) -> None:
        self.graph, self.first, self.prefix = graph, first, prefix
        self.last: Node | None = None

    def __call__(self, op: str, inputs: list[Value], **attrs: object) -> Value:
        node = self.graph.add_node(op, inputs, 1, attrs=attrs, name=self.graph.unique_name(f"{self.prefix}_{op}"),
                                   before=self.first)
        infer_node_types(node, {})
        self.last = node
        return node.outputs[0]

    def const(self, data: object, dtype: type = np.int64) -> Value:
        return self.graph.constant(f"{self.prefix}_const", np.asarray(data, dtype))

    def finish(self, result: Value, target: Value) -> None:
        """The last node writes `target` (the original model input value) instead of its fresh output."""
        node = self.last
        if node is None or result is not node.outputs[0]:
            raise CompileError("internal error: AIPP produced no node")
        if result.dtype != target.dtype or result.shape != target.shape:
            raise CompileError(f"internal error: AIPP output {result.dtype} {result.shape} != model input "
                               f"{target.dtype} {target.shape}")
        self.graph.values.pop(result.name, None)
        node.outputs[0] = target
        target.producer = node
