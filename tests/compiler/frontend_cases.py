"""Single-op ONNX models for the frontend tests: one case per op form (and per opset where the form
changed), each a (id, model) pair built with onnx.helper."""

from __future__ import annotations

from typing import Any, Union

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

Input = Union[tuple[str, tuple[int, ...]], np.ndarray, None]  # ("f"|"i"|"b", shape) graph input, constant, absent
_ELEM = {"f": TensorProto.FLOAT, "i": TensorProto.INT64, "b": TensorProto.BOOL}


def single_op(op: str, inputs: list[Input], opset: int = 17, outputs: int = 1, out_rank: int | None = None,
              **attrs: Any) -> onnx.ModelProto:
    """A one-node model; output types from onnx.shape_inference, or float of rank `out_rank` where it
    cannot infer them (models meant to be rejected)."""
    graph_inputs, initializers, names = [], [], []
    for i, spec in enumerate(inputs):
        if spec is None:
            names.append("")
        elif isinstance(spec, np.ndarray):
            names.append(f"c{i}")
            initializers.append(numpy_helper.from_array(spec, f"c{i}"))
        else:
            names.append(f"in{i}")
            graph_inputs.append(helper.make_tensor_value_info(f"in{i}", _ELEM[spec[0]], list(spec[1])))
    outs = [f"out{i}" for i in range(outputs)]
    node = helper.make_node(op, names, outs, name=f"the_{op}", **attrs)
    graph = helper.make_graph([node], op, graph_inputs, [onnx.ValueInfoProto(name=o) for o in outs], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = min(model.ir_version, 10)
    model = onnx.shape_inference.infer_shapes(model, data_prop=True)  # types the graph outputs
    for out in model.graph.output:
        if out_rank is not None and not out.type.tensor_type.HasField("shape"):
            out.CopyFrom(helper.make_tensor_value_info(out.name, TensorProto.FLOAT, [None] * out_rank))
    return model


def F(*shape: int) -> Input:
    return ("f", shape)


def I(*shape: int) -> Input:
    return ("i", shape)


def B(*shape: int) -> Input:
    return ("b", shape)


def i64(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


def f32(*values: float) -> np.ndarray:
    return np.array(values, np.float32)


def scalar(value: float, dtype: Any = np.float32) -> np.ndarray:
    return np.array(value, dtype)


def _w(*shape: int) -> np.ndarray:
    return np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)


UNARY = ["Sqrt", "Exp", "Log", "Abs", "Neg", "Reciprocal", "Floor", "Ceil", "Relu", "Sigmoid", "Tanh",
         "HardSigmoid", "HardSwish", "Erf", "Softplus", "Elu", "Selu", "LeakyRelu", "Softsign", "Sign", "Round"]
REDUCE = ["ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2"]


def _elementwise() -> list[tuple[str, onnx.ModelProto]]:
    cases = [(op, single_op(op, [F(2, 3, 4)])) for op in UNARY]
    cases += [(f"{op}_bcast", single_op(op, [F(2, 3, 4), F(3, 1)])) for op in ("Add", "Sub", "Mul", "Div", "Pow")]
    cases += [
        ("Gelu", single_op("Gelu", [F(2, 5)], opset=20)),
        ("Gelu_tanh", single_op("Gelu", [F(2, 5)], opset=20, approximate="tanh")),
        ("LeakyRelu_alpha", single_op("LeakyRelu", [F(4, 4)], alpha=0.2)),
        ("Mod_int", single_op("Mod", [I(2, 3), i64(3, 2, 5)])),
        ("Mod_fmod", single_op("Mod", [F(2, 3), f32(1.5, 2.0, 0.7)], fmod=1)),
        ("PRelu", single_op("PRelu", [F(2, 3, 4, 4), _w(3, 1, 1)])),
        ("Equal", single_op("Equal", [I(2, 3), I(3)])),
        ("Greater", single_op("Greater", [F(2, 3), F(2, 1)])),
        ("Less", single_op("Less", [F(2, 3), F(3)])),
        ("GreaterOrEqual", single_op("GreaterOrEqual", [F(2, 3), F(3)])),
        ("Not", single_op("Not", [B(2, 3)])),
        ("And", single_op("And", [B(2, 3), B(3)])),
        ("Or", single_op("Or", [B(2, 1), B(3)])),
        ("Max3", single_op("Max", [F(2, 3), F(3), F(1, 1)])),
        ("Min2", single_op("Min", [F(4, 1), F(1, 5)])),
        ("Where", single_op("Where", [B(2, 1), F(2, 3), F(3)])),
        ("Clip", single_op("Clip", [F(3, 4), scalar(-0.5), scalar(0.5)])),
        ("Clip_max_only", single_op("Clip", [F(3, 4), None, scalar(6.0)])),
        ("Clip_11", single_op("Clip", [F(3, 4), scalar(0.0), scalar(6.0)], opset=11)),
        ("Cast_int", single_op("Cast", [F(2, 3)], to=TensorProto.INT64)),
        ("Cast_fp16", single_op("Cast", [F(2, 3)], to=TensorProto.FLOAT16)),
        ("Identity", single_op("Identity", [F(2, 3)])),
        ("Dropout_11", single_op("Dropout", [F(2, 3)], opset=11, ratio=0.3)),
        ("Dropout_13", single_op("Dropout", [F(2, 3), scalar(0.3)], opset=13, outputs=2)),
    ]
    return cases


def _nn() -> list[tuple[str, onnx.ModelProto]]:
    return [
        ("Conv", single_op("Conv", [F(1, 3, 9, 9), _w(4, 3, 3, 3), _w(4)], pads=[1, 1, 1, 1], strides=[2, 2])),
        ("Conv_group_dilation", single_op("Conv", [F(2, 4, 10, 10), _w(6, 2, 3, 3)], group=2, dilations=[2, 2])),
        ("Conv_depthwise", single_op("Conv", [F(1, 4, 8, 8), _w(4, 1, 3, 3)], group=4, pads=[1, 1, 1, 1])),
        ("Conv_same_upper", single_op("Conv", [F(1, 2, 7, 7), _w(3, 2, 4, 4)], auto_pad="SAME_UPPER",
                                      strides=[2, 2])),
        ("Conv_same_lower", single_op("Conv", [F(1, 2, 7, 7), _w(3, 2, 4, 4)], auto_pad="SAME_LOWER")),
        ("Conv_valid", single_op("Conv", [F(1, 2, 7, 7), _w(3, 2, 3, 3)], auto_pad="VALID")),
        ("Conv_1d", single_op("Conv", [F(2, 3, 11), _w(5, 3, 3)], pads=[2, 0])),
        ("ConvTranspose", single_op("ConvTranspose", [F(1, 4, 5, 5), _w(4, 3, 3, 3)], strides=[2, 2],
                                    pads=[1, 1, 1, 1], output_padding=[1, 1])),
        ("ConvTranspose_group", single_op("ConvTranspose", [F(1, 4, 5, 5), _w(4, 2, 2, 2), _w(4)], group=2,
                                          strides=[2, 2])),
        ("Gemm", single_op("Gemm", [F(3, 5), _w(4, 5), _w(4)], transB=1, alpha=0.5, beta=2.0)),
        ("Gemm_transA_noC", single_op("Gemm", [F(5, 3), _w(5, 4)], transA=1)),
        ("MatMul_3d", single_op("MatMul", [F(2, 3, 4), _w(4, 5)])),
        ("MatMul_1d_left", single_op("MatMul", [F(4), _w(2, 4, 5)])),
        ("MatMul_broadcast", single_op("MatMul", [F(2, 1, 3, 4), F(5, 4, 6)])),
        ("MatMul_1d_right", single_op("MatMul", [F(3, 4), _w(4)])),
        ("BatchNormalization", single_op("BatchNormalization", [F(2, 3, 4, 4), _w(3), _w(3), _w(3),
                                                                np.abs(_w(3)) + 0.1])),
        ("LayerNormalization", single_op("LayerNormalization", [F(2, 3, 8), _w(8), _w(8)])),
        ("LayerNormalization_axis1", single_op("LayerNormalization", [F(2, 3, 4), _w(3, 4)], axis=1)),
        ("InstanceNormalization", single_op("InstanceNormalization", [F(2, 3, 5, 5), _w(3), _w(3)])),
        ("MaxPool_ceil", single_op("MaxPool", [F(1, 2, 9, 9)], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)),
        ("MaxPool_ceil_pads", single_op("MaxPool", [F(1, 2, 8, 8)], kernel_shape=[2, 2], strides=[2, 2],
                                        pads=[1, 1, 1, 1], ceil_mode=1)),
        ("MaxPool_dilation", single_op("MaxPool", [F(1, 2, 9, 9)], kernel_shape=[2, 2], dilations=[2, 2])),
        ("MaxPool_same", single_op("MaxPool", [F(1, 2, 7, 7)], kernel_shape=[3, 3], strides=[2, 2],
                                   auto_pad="SAME_UPPER")),
        ("AveragePool", single_op("AveragePool", [F(1, 2, 8, 8)], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                                  count_include_pad=1)),
        ("AveragePool_ceil", single_op("AveragePool", [F(1, 2, 9, 9)], kernel_shape=[2, 2], strides=[2, 2],
                                       ceil_mode=1)),
        ("GlobalAveragePool", single_op("GlobalAveragePool", [F(2, 3, 5, 4)])),
        ("GlobalMaxPool", single_op("GlobalMaxPool", [F(2, 3, 5)])),
        ("Softmax", single_op("Softmax", [F(2, 3, 4)])),
        ("Softmax_axis1_13", single_op("Softmax", [F(2, 3, 4)], axis=1)),
        ("Softmax_axis1_11", single_op("Softmax", [F(2, 3, 4)], opset=11, axis=1)),
        ("Softmax_default_11", single_op("Softmax", [F(2, 3, 4)], opset=11)),
        ("LogSoftmax_last_11", single_op("LogSoftmax", [F(2, 3, 4)], opset=11, axis=2)),
        ("LogSoftmax", single_op("LogSoftmax", [F(2, 6)], axis=0)),
    ]


def _reductions() -> list[tuple[str, onnx.ModelProto]]:
    cases = []
    for op in REDUCE:
        input_since = 13 if op == "ReduceSum" else 18
        cases.append((f"{op}_11", single_op(op, [F(2, 3, 4)], opset=11, axes=[1], keepdims=0)))
        cases.append((f"{op}_input", single_op(op, [F(2, 3, 4), i64(-1, 0)], opset=input_since)))
        cases.append((f"{op}_all", single_op(op, [F(2, 3, 4)], opset=input_since)))
    cases += [
        ("ReduceSum_noop", single_op("ReduceSum", [F(2, 3)], opset=13, noop_with_empty_axes=1)),
        ("ArgMax", single_op("ArgMax", [F(2, 3, 4)], axis=1, keepdims=0)),
        ("ArgMax_last", single_op("ArgMax", [F(2, 3, 4)], axis=-1, select_last_index=1)),
        ("TopK", single_op("TopK", [F(2, 5, 3), i64(2)], axis=1, outputs=2)),
        ("TopK_smallest", single_op("TopK", [F(2, 6), i64(3)], largest=0, outputs=2)),
    ]
    return cases


def _tensor() -> list[tuple[str, onnx.ModelProto]]:
    return [
        ("Reshape", single_op("Reshape", [F(2, 3, 4), i64(0, -1, 2)])),
        ("Reshape_flat", single_op("Reshape", [F(2, 3, 4), i64(-1)])),
        ("Flatten0", single_op("Flatten", [F(2, 3, 4)], axis=0)),
        ("Flatten2", single_op("Flatten", [F(2, 3, 4)], axis=2)),
        ("Flatten_neg", single_op("Flatten", [F(2, 3, 4)], axis=-1)),
        ("Squeeze_11", single_op("Squeeze", [F(2, 1, 3, 1)], opset=11, axes=[1])),
        ("Squeeze_13", single_op("Squeeze", [F(2, 1, 3, 1), i64(-1)], opset=13)),
        ("Squeeze_all", single_op("Squeeze", [F(2, 1, 3, 1)], opset=13)),
        ("Unsqueeze_11", single_op("Unsqueeze", [F(2, 3)], opset=11, axes=[0, -1])),
        ("Unsqueeze_13", single_op("Unsqueeze", [F(2, 3), i64(1, -1)], opset=13)),
        ("Transpose", single_op("Transpose", [F(2, 3, 4)], perm=[1, 2, 0])),
        ("Transpose_default", single_op("Transpose", [F(2, 3, 4)])),
        ("Concat", single_op("Concat", [F(2, 3), F(2, 1), _w(2, 2)], axis=-1)),
        ("Split_11", single_op("Split", [F(6, 4)], opset=11, outputs=3)),
        ("Split_11_sizes", single_op("Split", [F(6, 4)], opset=11, outputs=2, split=[2, 4])),
        ("Split_13_sizes", single_op("Split", [F(2, 7), i64(3, 4)], opset=13, outputs=2, axis=1)),
        ("Split_18_uneven", single_op("Split", [F(7, 2)], opset=18, outputs=3, num_outputs=3)),
        ("Slice", single_op("Slice", [F(5, 6, 4), i64(1, 0), i64(4, 10), i64(0, 1), i64(2, 3)])),
        ("Slice_negative", single_op("Slice", [F(5, 6), i64(-1), i64(-100), i64(1), i64(-2)])),
        ("Slice_noaxes", single_op("Slice", [F(5, 6), i64(1, 2), i64(3, -1)])),
        ("Gather", single_op("Gather", [F(5, 4, 3), i64(0, 3, 1, 1).reshape(2, 2)], axis=1)),
        ("Gather_scalar", single_op("Gather", [F(5, 4), np.array(-1, np.int64)])),
        ("GatherElements", single_op("GatherElements", [F(3, 4), np.array([[0, 2], [1, 0], [2, 2]], np.int64)],
                                     axis=1)),
        ("Expand", single_op("Expand", [F(3, 1), i64(2, 1, 4)])),
        ("Tile", single_op("Tile", [F(2, 3), i64(2, 2)])),
        ("Pad_11", single_op("Pad", [F(2, 3), i64(1, 0, 0, 2), scalar(1.5)], opset=11)),
        ("Pad_reflect", single_op("Pad", [F(1, 2, 4, 4), i64(0, 0, 1, 2, 0, 0, 2, 1)], mode="reflect")),
        ("Pad_edge", single_op("Pad", [F(2, 3), i64(1, 1, 1, 1)], mode="edge")),
        ("Pad_18_axes", single_op("Pad", [F(2, 3, 4), i64(1, 2), None, i64(-1)], opset=18)),
        ("Pad_19_wrap", single_op("Pad", [F(3, 4), i64(1, 2, 1, 2)], opset=19, mode="wrap")),
        ("Resize_11_scales", single_op("Resize", [F(1, 2, 3, 4), f32(), f32(1, 1, 2, 2)], opset=11)),
        ("Resize_11_sizes", single_op("Resize", [F(1, 2, 3, 4), f32(), f32(), i64(1, 2, 5, 7)], opset=11,
                                      mode="linear")),
        ("Resize_13_linear", single_op("Resize", [F(1, 2, 4, 4), None, f32(1, 1, 0.5, 1.5)], opset=13,
                                       mode="linear", coordinate_transformation_mode="align_corners")),
        ("Resize_nearest_asym", single_op("Resize", [F(1, 1, 3, 3), None, f32(1, 1, 2, 3)], opset=13,
                                          coordinate_transformation_mode="asymmetric", nearest_mode="floor")),
        ("Resize_18_axes", single_op("Resize", [F(1, 2, 3, 4), None, f32(2, 2)], opset=18, axes=[2, 3])),
        ("Resize_18_sizes_axes", single_op("Resize", [F(1, 2, 3, 4), None, None, i64(6, 5)], opset=18,
                                           axes=[2, 3], mode="linear")),
        ("Shape", single_op("Shape", [F(2, 3, 4)])),
        ("Shape_15_slice", single_op("Shape", [F(2, 3, 4)], opset=15, start=1, end=-1)),
        ("ConstantOfShape", single_op("ConstantOfShape", [i64(2, 3)], value=numpy_helper.from_array(
            np.array([7], np.int64)))),
        ("Range", single_op("Range", [scalar(1.0), scalar(8.0), scalar(2.5)])),
        ("Range_int", single_op("Range", [scalar(10, np.int64), scalar(0, np.int64), scalar(-3, np.int64)])),
    ]


CASES: list[tuple[str, onnx.ModelProto]] = [*_elementwise(), *_nn(), *_reductions(), *_tensor()]
