"""Static AIPP (`--insert_op_conf`): the image preprocessing the device's AIPP unit does becomes ordinary
graph ops in front of the model input, and the model input becomes the raw uint8 image, as on the device.

For each `aipp_op` block (related_input_rank / related_input_name picks the input), with the model input
[N, C, H, W] (or [N, H, W, C] under --input_format=NHWC), float32 or float16, in AIPP's hardware order
(CANN's AIPP configuration template: channel swap > crop > CSC > mean/normalisation > padding):
- the new model input keeps the input's name: uint8, NHWC, the raw layout of the input format
  (aipp_formats.py; e.g. [N, H*3/2, W, 1] for YUV420SP_U8), H x W = src_image_size_h x _w (0: the model's);
- crop + decode to one value per pixel and channel (Slice, Concat, Reshape/Expand for the chroma),
  then Cast to float32;
- the channel swaps as one Gather: ax_swap_switch (4-channel formats) moves channel 0 (X/A) last,
  then rbuv_swap_switch exchanges R and B (channels 0, 2) of RGB formats, U and V (1, 2) of YUV formats;
- CSC when csc_switch, integer arithmetic exact in float32 (MatMul, Floor of the /256, Clip to [0, 255]):
  YUV inputs `out = clip(floor(M . (x - input_bias) / 256), 0, 255)`,
  RGB inputs `out = clip(floor(M . x / 256) + output_bias, 0, 255)` (the doc's `>> 8`);
- keep the model's C channels; `(x - mean_chn_i - min_chn_i) * var_reci_chn_i` with min and var_reci as
  the fp16 values of the registers (Sub, Mul; var_reci defaults to 1.0);
- Pad with padding_value (the output value of the padded pixels); Transpose NHWC->NCHW; Cast to float16
  when the model input is float16.
Every op is an ONNX op, so the exporter and onnxruntime check the result numerically. Identity steps
emit nothing. The resolved parameters are AippInfo records (aipp_resolve.py), which the OM writer stores so
that aclmdlGetAippType / aclmdlGetFirstAippInfo can answer (docs/om-format.md §7).
Not supported (clear errors): dynamic AIPP, resize, the RAW / NC1HWC0DI formats, input_edge_idx.
"""

from __future__ import annotations

import numpy as np

from .aipp_config import AippConfig
from .aipp_formats import decode
from .aipp_resolve import AippInfo, fp16, resolve
from .errors import CompileError
from .ir import DType, Graph, Node, Value
from .shape_inference import infer_node_types

__all__ = ["AippInfo", "apply_aipp"]


def apply_aipp(
    graph: Graph, configs: list[AippConfig], input_format: str | None, soc_version: str = ""
) -> list[AippInfo]:
    """Inserts the AIPP ops of every config in front of its model input; returns one AippInfo per config."""
    infos = []
    seen: dict[int, AippConfig] = {}
    first = graph.nodes[0] if graph.nodes else None
    for config in configs:
        index = _input_index(graph, config)
        if index in seen:
            raise config.error(
                None,
                f"model input {index} already has an aipp_op (line {seen[index].line}); each input takes at most one",
            )
        seen[index] = config
        infos.append(_insert(graph, index, config, input_format=input_format, soc_version=soc_version, first=first))
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
        raise config.error(
            "related_input_rank", f"related_input_rank {rank} is out of range: the model has {len(names)} input(s)"
        )
    return rank


def _insert(
    graph: Graph, index: int, cfg: AippConfig, *, input_format: str | None, soc_version: str, first: Node | None
) -> AippInfo:
    model_in = graph.inputs[index]
    if model_in.dtype not in (DType.FLOAT, DType.FLOAT16) or not model_in.is_static or len(model_in.shape or ()) != 4:
        raise cfg.error(
            None,
            f"model input {model_in.name!r} is {model_in.dtype.name if model_in.dtype else '?'} "
            f"{model_in.shape}: AIPP needs a static 4-D float32/float16 input (give --input_shape)",
        )
    nhwc = input_format == "NHWC"
    n, c, h, w = (int(model_in.shape[i]) for i in ((0, 3, 1, 2) if nhwc else (0, 1, 2, 3)))  # type: ignore[index]
    info = resolve(
        cfg, index, (n, c, h, w), dtype=model_in.dtype, layout="NHWC" if nhwc else "NCHW", soc_version=soc_version
    )
    fmt = info.image
    emit = _Emitter(graph, first, f"{model_in.name}_aipp")
    name = model_in.name
    graph.values.pop(name, None)
    model_in.name = graph.unique_name(f"{name}_aipp_out")
    graph.values[model_in.name] = model_in
    raw = graph.value(name, DType.UINT8, fmt.raw_shape(n, info.src_h, info.src_w))
    raw.format = "NHWC"
    graph.inputs[index] = raw
    x = decode(
        emit, fmt, raw, src_h=info.src_h, start=(info.load_start_h, info.load_start_w), size=(info.crop_h, info.crop_w)
    )
    x = emit("Cast", [x], to=DType.FLOAT)
    order = list(range(fmt.channels))
    if info.ax_swap and fmt.channels == 4:
        order = order[1:] + order[:1]
    if info.rbuv_swap and fmt.channels > 1:
        first_c = 1 if fmt.yuv else 0
        order[first_c], order[2] = order[2], order[first_c]
    keep = 3 if info.csc else c
    if order[:keep] != list(range(fmt.channels)):
        x = emit("Gather", [x, emit.const(order[:keep])], axis=3)
    if info.csc:
        x = _csc(emit, x, info)
        if c < 3:
            x = emit("Slice", [x, emit.const([0]), emit.const([c]), emit.const([3])])
    offset = np.asarray(info.mean[:c], np.float64) + np.asarray([fp16(v) for v in info.min[:c]], np.float64)
    if np.any(offset != 0):
        x = emit("Sub", [x, emit.const(offset.astype(np.float32), np.float32)])
    scale = np.asarray([fp16(v) for v in info.var_reci[:c]], np.float32)
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


def _csc(emit: _Emitter, x: Value, info: AippInfo) -> Value:
    """The CSC on [N, h, w, 3] float32 holding integers: every step is exact (aipp_resolve bounds M)."""
    if info.image.yuv and any(info.input_bias):
        x = emit("Sub", [x, emit.const(np.asarray(info.input_bias, np.float32), np.float32)])
    matrix = np.asarray(info.matrix, np.float32).reshape(3, 3)
    x = emit("MatMul", [x, emit.const(matrix.T.copy(), np.float32)])
    x = emit("Floor", [emit("Mul", [x, emit.const(np.float32(1 / 256), np.float32)])])
    if not info.image.yuv and any(info.output_bias):
        x = emit("Add", [x, emit.const(np.asarray(info.output_bias, np.float32), np.float32)])
    return emit("Clip", [x, emit.const(np.float32(0), np.float32), emit.const(np.float32(255), np.float32)])


class _Emitter:
    """Adds nodes in order before `first` (so the graph stays topological) and infers their outputs."""

    def __init__(self, graph: Graph, first: Node | None, prefix: str) -> None:
        self.graph, self.first, self.prefix = graph, first, prefix
        self.last: Node | None = None
        self.count = 0  # node names are numbered: graph.unique_name knows only value names

    def __call__(self, op: str, inputs: list[Value], **attrs: object) -> Value:
        self.count += 1
        name = self.graph.unique_name(f"{self.prefix}_{self.count}_{op}")
        node = self.graph.add_node(op, inputs, 1, attrs=attrs, name=name, before=self.first)
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
            raise CompileError(
                f"internal error: AIPP output {result.dtype} {result.shape} != model input "
                f"{target.dtype} {target.shape}"
            )
        self.graph.values.pop(result.name, None)
        node.outputs[0] = target
        target.producer = node
