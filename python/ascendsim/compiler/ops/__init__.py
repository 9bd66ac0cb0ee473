"""The registry of supported ops: for each op type its dtype+shape inference and the ONNX opset that
introduced it (the exporter raises the opset it writes to that). `SUPPORTED_OPS` is the set the frontend
accepts; anything else is rejected with a CompileError naming the node, the op and this list.

One IR form per op (the frontend, onnx_opsets.py, normalises every ONNX opset 11-21 form into it, and the
exporter turns it back into the form of the opset it writes):

| op                                  | IR form                                                              |
|-------------------------------------|----------------------------------------------------------------------|
| Squeeze, Unsqueeze                  | attribute `axes` (ints, non-negative); Squeeze without axes on a    |
|                                     | known shape gets the explicit list of its 1-dims                     |
| ReduceMean/Sum/Max/Min/Prod/L2      | attribute `axes` (absent = all axes), `keepdims`; opset 13/18 axes   |
|                                     | input folded in; `noop_with_empty_axes` with no axes -> Identity      |
| Split                               | attributes `axis`, `split` (sizes; from the opset 13 input, or from  |
|                                     | opset 18 `num_outputs` when the dim is static; absent = equal parts) |
| Clip                                | inputs (x, min, max), absent bounds None (opset 11+ form)             |
| Pad                                 | attributes `mode`, `pads` (2*rank ints, opset 18 `axes` expanded),   |
|                                     | `value` (float); only x stays an input                               |
| Resize                              | inputs (x, None, scales, sizes): roi dropped (only                   |
|                                     | tf_crop_and_resize uses it, unsupported), opset 18 `axes` expanded    |
|                                     | to every axis; attributes explicit; modes nearest, linear and cubic  |
| Softmax, LogSoftmax                 | opset 13 meaning (one axis), `axis` explicit; opset 11/12 coercion   |
|                                     | to 2-D on a non-last axis becomes Flatten -> Softmax -> Reshape      |
| Conv, ConvTranspose, MaxPool,       | `kernel_shape`, `strides`, `pads`, `dilations` (and `group`) all     |
| AveragePool                         | explicit; `auto_pad` SAME_* / VALID resolved to `pads` when spatial  |
|                                     | dims are static (kept as `auto_pad` otherwise)                       |
| Cast                                | attribute `to` is an ir.DType (not ONNX's TensorProto number)         |
| ConstantOfShape                     | attribute `value`: a 1-element numpy array (default float32 0)       |
| Dropout                             | inputs (x) only: inference, ratio/training_mode dropped              |
| BatchNormalization                  | inference form, one output                                           |
| Constant                            | never a node: becomes a constant Value with numpy data               |
| QuantizeLinear                      | 3 inputs always: a zero point of the output dtype is made if absent  |
|                                     | (opset 21's output_dtype, else uint8); saturate dropped              |
| DFT                                 | attributes `axis` (non-negative) and `dft_length` (opset 20 inputs)  |
| GridSample                          | opset 20's mode names (linear, cubic; opset 16's bilinear/bicubic)   |
| RoiAlign                            | coordinate_transformation_mode always set (10: output_half_pixel)    |
| MelWeightMatrix                     | output_datatype keeps ONNX's TensorProto number                      |
| Sum, Mean, Einsum, STFT, ... (onnx_ | never a node: lowered to IR ops (onnx_lowering.py); ops ONNX defines |
| lowering.LOWERED_OPS), functions    | as functions become their body's nodes (onnx_functions.py)           |
| Gemm/Transpose/ArgMax/Reshape/...   | every defaulted attribute written out                                |
| fused (passes)                      | Conv/Gemm/MatMul + `activation`, `activation_alpha/beta`; MatMul     |
|                                     | `fused_bias=1` with a 3rd input; Conv `fused_sum=1` with a 4th input |
|                                     | (added before the activation); "FusedElementwise" (ascendsim         |
|                                     | domain) with a `program` of elementwise steps                        |
| NC1HWC0 (layout pass, layout.py)    | "TransData" (`src_format`, `dst_format`: aclFormat numbers, `channels`)|
|                                     | and "BlockedConv" (Conv's attributes), both ascendsim domain         |
"""

from __future__ import annotations

from ..errors import node_error
from ..ir import ASCENDSIM_DOMAIN, Node
from . import (  # families register on import
    elementwise,
    indexing,
    layout,
    nn,
    quantize,
    recurrent,
    reduce,
    spectral,
    tensor,
)
from ._common import InferContext, Known, TensorType
from ._registry import REGISTRY, OpSpec, lookup, register


def get_spec(node: Node) -> OpSpec:
    spec = lookup(node.op_type, node.domain)
    if spec is None:
        where = f" in domain {node.domain!r}" if node.domain else ""
        raise node_error(node.name, node.op_type, f"op{where} is not supported; supported ops: {supported_list()}")
    return spec


def supported_list() -> str:
    return ", ".join(sorted(f"{d}::{o}" if d else o for d, o in REGISTRY))


def infer_node(node: Node, known: dict[str, Known]) -> list[TensorType]:
    """Output (dtype, shape) of `node` from its inputs; `known` carries shape-arithmetic contents."""
    return get_spec(node).infer(InferContext(node, known))


SUPPORTED_OPS: frozenset[str] = frozenset(o for d, o in REGISTRY if d == "")
FUSED_OPS: frozenset[str] = frozenset(o for d, o in REGISTRY if d == ASCENDSIM_DOMAIN)

__all__ = ["FUSED_OPS", "SUPPORTED_OPS", "InferContext", "OpSpec", "TensorType", "elementwise", "get_spec",
           "indexing", "infer_node", "layout", "lookup", "nn", "quantize", "recurrent", "reduce", "register", "spectral",
           "supported_list", "tensor"]
