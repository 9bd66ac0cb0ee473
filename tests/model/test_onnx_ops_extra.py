"""The ONNX ops added for public models (issue 12, point 7), compiled by ascendsim.compile (force_fp32) and run
through aclmdlExecute against onnxruntime on the same model, several nodes per model to keep the compiles few.

Tolerances: integer, bool and index outputs exactly; float outputs rtol 1e-5 / atol 1e-6, except where the
computation sums in another order than onnxruntime (Einsum's MatMul/ReduceSum, LRN's window, GridSample's
taps, the function bodies of Mish/Celu/GroupNormalization): rtol 1e-4 / atol 1e-5, measured below 2e-6.
Also: an HF-transformers BERT-style attention mask (IsNaN on the softmax of a fully masked row, Where on bool
masks), NonZero folded at compile time for a constant input and refused, naming the node, for a computed one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from exec_helpers import compile_model, execute_once, reference
from onnx import TensorProto, helper, numpy_helper

from ascendcl import ACL_SUCCESS, aclGetRecentErrMsg, aclmdlLoadFromFile, aclmdlUnload
from ascendsim.compiler.errors import CompileError
from ascendsim.compiler.onnx_export import export_onnx
from ascendsim.compiler.onnx_import import import_onnx

RNG = np.random.default_rng(12)
EXACT, SUMMED = (1e-5, 1e-6), (1e-4, 1e-5)


def model(
    nodes: list[onnx.NodeProto],
    inputs: dict[str, np.ndarray],
    outputs: list[str],
    opset: int = 18,
    constants: dict[str, np.ndarray] | None = None,
) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "ops",
        [
            helper.make_tensor_value_info(k, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
            for k, v in inputs.items()
        ],
        [onnx.ValueInfoProto(name=o) for o in outputs],
        [numpy_helper.from_array(v, k) for k, v in (constants or {}).items()],
    )
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    typed = onnx.shape_inference.infer_shapes(proto)  # the outputs' types, which the checker wants
    for index, out in enumerate(typed.graph.output):
        proto.graph.output[index].CopyFrom(out)
        if not out.type.HasField("tensor_type"):  # onnx infers none for GroupNormalization: its input x's type
            proto.graph.output[index].type.CopyFrom(proto.graph.input[0].type)
    return proto


def check(
    tmp_path: Path,
    proto: onnx.ModelProto,
    inputs: dict[str, np.ndarray],
    tolerance: tuple[float, float] = EXACT,
    want: list[np.ndarray] | None = None,
) -> list[np.ndarray]:
    """Compiles and runs `proto`; every output must match onnxruntime's (or `want`). Returns ours."""
    want = reference(proto, inputs) if want is None else want
    om = compile_model(proto, tmp_path, "ops")
    model_id, ret = aclmdlLoadFromFile(str(om))
    assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
    try:
        got = execute_once(model_id, list(inputs.values()), want)
    finally:
        assert aclmdlUnload(model_id) == ACL_SUCCESS
    for index, (g, w) in enumerate(zip(got, want)):
        name = proto.graph.output[index].name
        if w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=tolerance[0], atol=tolerance[1], equal_nan=True, err_msg=name)
        else:
            np.testing.assert_array_equal(g, w, err_msg=name)
    onnx.checker.check_model(export_onnx(import_onnx(proto)))  # the IR of the new ops writes back as valid ONNX
    return got


def node(op: str, inputs: list[str], output: str, **attrs: Any) -> onnx.NodeProto:
    return helper.make_node(op, inputs, [output], name=output, **attrs)


def test_bert_attention_mask(device: int, tmp_path: Path) -> None:
    """The mask arithmetic of an HF-transformers BERT export (torch's scaled_dot_product_attention): a bool mask
    from the 0/1 attention mask, -inf where masked, softmax, and IsNaN -> Where to zero the rows that were
    fully masked (their softmax is NaN); Not/And/Or/Where on bool tensors on the way."""
    scores = RNG.standard_normal((2, 2, 4, 4)).astype(np.float32)
    mask = np.array([[1, 1, 0, 0], [0, 0, 0, 0]], np.int64)  # the second sequence is fully masked
    consts = {
        "minus_inf": np.array(-np.inf, np.float32),
        "zero": np.array(0.0, np.float32),
        "causal": np.tril(np.ones((4, 4), bool)),
        "axes": np.array([1, 2], np.int64),
    }
    nodes = [
        node("Cast", ["mask"], "keep", to=TensorProto.BOOL),
        node("Unsqueeze", ["keep", "axes"], "keep4"),
        node("And", ["keep4", "causal"], "allowed"),
        node("Not", ["allowed"], "blocked"),
        node("Or", ["blocked", "blocked"], "blocked2"),
        node("Where", ["blocked2", "minus_inf", "scores"], "masked"),
        node("Softmax", ["masked"], "probs", axis=-1),
        node("IsNaN", ["probs"], "nan"),
        node("Where", ["nan", "zero", "probs"], "weights"),
        node("IsInf", ["masked"], "inf"),
    ]
    inputs = {"scores": scores, "mask": mask}
    got = check(tmp_path, model(nodes, inputs, ["weights", "inf", "nan"], constants=consts), inputs)
    assert got[2][1].all() and not got[0][1].any()  # the fully masked batch: NaN softmax, zeroed by the Where


def test_where_on_bool_values(device: int, tmp_path: Path) -> None:
    """Where choosing between bool tensors (onnxruntime has no kernel for it: checked against numpy)."""
    inputs = {"c": RNG.random((2, 3)) > 0.5, "a": RNG.random((2, 3)) > 0.5, "b": RNG.random((1, 3)) > 0.5}
    proto = model([node("Where", ["c", "a", "b"], "y")], inputs, ["y"])
    model_id, ret = aclmdlLoadFromFile(str(compile_model(proto, tmp_path, "where")))
    assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
    try:
        got = execute_once(model_id, list(inputs.values()), [np.zeros((2, 3), bool)])[0]
    finally:
        assert aclmdlUnload(model_id) == ACL_SUCCESS
    np.testing.assert_array_equal(got, np.where(inputs["c"], inputs["a"], inputs["b"]))


def test_isnan_isinf_math(device: int, tmp_path: Path) -> None:
    x = np.array([[np.nan, np.inf, -np.inf, 0.5], [-0.25, 0.0, 0.75, -0.9]], np.float32)
    half = x.astype(np.float16)
    math_ops = ("Acos", "Asin", "Atan", "Atanh", "Asinh", "Cosh", "Sinh", "Tan")
    nodes = [
        node("IsNaN", ["x"], "nan"),
        node("IsInf", ["x"], "inf"),
        node("IsInf", ["x"], "pos", detect_negative=0),
        node("IsInf", ["x"], "neg", detect_positive=0),
        node("IsNaN", ["h"], "nan16"),
        node("IsInf", ["h"], "inf16"),
        node("Abs", ["x"], "ax"),
        node("Add", ["ax", "one"], "ax1"),
        node("Acosh", ["ax1"], "acosh"),
        *[node(op, ["x"], op.lower()) for op in math_ops],
    ]
    outputs = ["nan", "inf", "pos", "neg", "nan16", "inf16", "acosh", *[op.lower() for op in math_ops]]
    inputs = {"x": x, "h": half}
    got = check(tmp_path, model(nodes, inputs, outputs, opset=20, constants={"one": np.array(1, np.float32)}), inputs)
    np.testing.assert_array_equal(got[2], np.isposinf(x))


def test_cumsum(device: int, tmp_path: Path) -> None:
    x = RNG.standard_normal((3, 4, 5)).astype(np.float32)
    ints = RNG.integers(-9, 9, (3, 4)).astype(np.int64)
    nodes = [
        node("CumSum", ["x", "one"], "plain"),
        node("CumSum", ["x", "minus1"], "excl", exclusive=1),
        node("CumSum", ["x", "zero"], "rev", reverse=1),
        node("CumSum", ["x", "one"], "both", exclusive=1, reverse=1),
        node("CumSum", ["ints", "axis"], "int_runtime_axis"),
    ]
    inputs = {"x": x, "ints": ints, "axis": np.array(-1, np.int32)}
    consts = {"one": np.array(1, np.int64), "minus1": np.array(-1, np.int64), "zero": np.array(0, np.int32)}
    check(
        tmp_path, model(nodes, inputs, ["plain", "excl", "rev", "both", "int_runtime_axis"], constants=consts), inputs
    )


EINSUM = [
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ii->i", [(4, 4)]),
    ("i,j->ij", [(3,), (4,)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (1, 4, 2)]),
    ("ij->", [(3, 4)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("ij,ij->i", [(3, 4), (3, 4)]),
    ("bii->bi", [(2, 3, 3)]),
    ("ijk", [(2, 3, 4)]),
    ("ji,kj", [(3, 2), (4, 3)]),
]


def test_einsum(device: int, tmp_path: Path) -> None:
    nodes, inputs, outputs = [], {}, []
    for index, (equation, shapes) in enumerate(EINSUM):
        names = [f"e{index}_{k}" for k in range(len(shapes))]
        inputs.update({n: RNG.standard_normal(s).astype(np.float32) for n, s in zip(names, shapes)})
        nodes.append(node("Einsum", names, f"einsum{index}", equation=equation))
        outputs.append(f"einsum{index}")
    check(tmp_path, model(nodes, inputs, outputs, opset=17), inputs, SUMMED)


def test_scatter_gather_nd(device: int, tmp_path: Path) -> None:
    data = RNG.standard_normal((4, 3, 2)).astype(np.float32)
    consts = {
        "idx_nd": np.array([[1], [3], [1]], np.int64),
        "upd_nd": RNG.standard_normal((3, 3, 2)).astype(np.float32),
        "idx_pts": np.array([[0, 2], [-1, 0]], np.int64),
        "idx_el": np.array([[1, 0], [2, 2]], np.int64),
        "upd_el": np.array([[10, 20], [30, 40]], np.float32),
        "idx_b": np.array([[[1], [0]], [[0], [2]]], np.int64),
    }
    nodes = [
        node("ScatterND", ["data", "idx_nd", "upd_nd"], "nd_add", reduction="add"),
        node("ScatterND", ["data", "idx_nd", "upd_nd"], "nd_mul", reduction="mul"),
        node("ScatterND", ["data", "idx_pts", "upd_pts"], "nd_none"),
        node("ScatterElements", ["mat", "idx_el", "upd_el"], "el_none", axis=1),
        node("ScatterElements", ["mat", "idx_el", "upd_el"], "el_max", axis=0, reduction="max"),
        node("ScatterElements", ["mat", "idx_el", "upd_el"], "el_add", axis=-1, reduction="add"),
        node("GatherND", ["data", "idx_pts"], "gnd"),
        node("GatherND", ["mat3", "idx_b"], "gnd_batch", batch_dims=1),
    ]
    inputs = {
        "data": data,
        "upd_pts": RNG.standard_normal((2, 2)).astype(np.float32),
        "mat": RNG.standard_normal((3, 3)).astype(np.float32),
        "mat3": RNG.standard_normal((2, 3, 4)).astype(np.float32),
    }
    outputs = ["nd_add", "nd_mul", "nd_none", "el_none", "el_max", "el_add", "gnd", "gnd_batch"]
    check(tmp_path, model(nodes, inputs, outputs, constants=consts), inputs)


def test_trilu_onehot_hardmax(device: int, tmp_path: Path) -> None:
    x = RNG.standard_normal((2, 4, 5)).astype(np.float32)
    consts = {
        "k1": np.array(1, np.int64),
        "km2": np.array(-2, np.int64),
        "depth": np.array(5, np.int64),
        "values": np.array([-1.0, 3.0], np.float32),
        "values_i": np.array([0, 7], np.int64),
    }
    nodes = [
        node("Trilu", ["x"], "upper"),
        node("Trilu", ["x", "k1"], "upper_k", upper=1),
        node("Trilu", ["x", "km2"], "lower_k", upper=0),
        node("Trilu", ["b", "k"], "runtime_k", upper=0),
        node("OneHot", ["idx", "depth", "values"], "hot"),
        node("OneHot", ["idx", "depth", "values_i"], "hot_axis", axis=1),
        node("Hardmax", ["x"], "hardmax", axis=1),
    ]
    inputs = {
        "x": x,
        "b": RNG.random((3, 3)) > 0.5,
        "k": np.array(1, np.int64),
        "idx": np.array([[0, 4, -1], [-5, 7, 2]], np.int64),
    }  # 7: out of range, a row of 'off'
    check(
        tmp_path,
        model(
            nodes, inputs, ["upper", "upper_k", "lower_k", "runtime_k", "hot", "hot_axis", "hardmax"], constants=consts
        ),
        inputs,
    )


def test_functions_and_lowerings(device: int, tmp_path: Path) -> None:
    """Ops compiled as their ONNX function body (Mish, Celu, ThresholdedRelu, Shrink, GroupNormalization) or as
    compositions (Sum, Mean, DepthToSpace, SpaceToDepth, LpNormalization, ReduceLogSum, EyeLike, Size)."""
    x = RNG.standard_normal((2, 4, 2, 3)).astype(np.float32)
    consts = {
        "scale": RNG.standard_normal(4).astype(np.float32),
        "bias": RNG.standard_normal(4).astype(np.float32),
        "axes": np.array([1, 3], np.int64),
        "ten": np.array(10, np.int64),
    }
    nodes = [
        node("Mish", ["x"], "mish"),
        node("Celu", ["x"], "celu", alpha=0.7),
        node("ThresholdedRelu", ["x"], "trelu", alpha=0.3),
        node("Shrink", ["x"], "shrink", lambd=0.4, bias=0.1),
        node("GroupNormalization", ["x", "scale", "bias"], "gn", num_groups=2, epsilon=1e-3),
        node("Sum", ["x", "x", "mish"], "sum"),
        node("Mean", ["x", "celu"], "mean"),
        node("DepthToSpace", ["x"], "d2s", blocksize=2, mode="CRD"),
        node("SpaceToDepth", ["y"], "s2d", blocksize=2),
        node("LpNormalization", ["x"], "l1", axis=1, p=1),
        node("Abs", ["x"], "ax"),
        node("ReduceLogSum", ["ax", "axes"], "rls"),
        node("EyeLike", ["m"], "eye", k=1),
        node("HannWindow", ["ten"], "hann", periodic=0),
        node("Size", ["x"], "size"),
    ]
    inputs = {"x": x, "y": RNG.standard_normal((1, 2, 4, 6)).astype(np.float32), "m": np.zeros((3, 4), np.int32)}
    outputs = ["mish", "celu", "trelu", "shrink", "gn", "sum", "mean", "d2s", "s2d", "l1", "rls", "eye", "hann", "size"]
    check(tmp_path, model(nodes, inputs, outputs, opset=21, constants=consts), inputs, SUMMED)


@pytest.mark.parametrize("spatial", [2, 3])
def test_grid_sample(device: int, tmp_path: Path, spatial: int) -> None:
    x = RNG.standard_normal((2, 3, *([5] * spatial))).astype(np.float32)
    grid = RNG.uniform(-1.3, 1.3, (2, 4, *([3] * (spatial - 1)), spatial)).astype(np.float32)
    modes = ["linear", "nearest", *(["cubic"] if spatial == 2 else [])]
    nodes, outputs = [], []
    for mode in modes:
        for padding in ("zeros", "border", "reflection"):
            for align in (0, 1):
                name = f"{mode}_{padding}_{align}"
                nodes.append(
                    node("GridSample", ["x", "grid"], name, mode=mode, padding_mode=padding, align_corners=align)
                )
                outputs.append(name)
    inputs = {"x": x, "grid": grid}
    check(tmp_path, model(nodes, inputs, outputs, opset=20), inputs, SUMMED)


def test_lrn_bitwise_quantize_reverse(device: int, tmp_path: Path) -> None:
    x = RNG.standard_normal((2, 5, 3, 3)).astype(np.float32)
    a = RNG.integers(0, 255, (3, 4)).astype(np.uint8)
    consts = {
        "shift": np.array([1, 3, 7, 9], np.uint8),
        "scale": np.array([0.02, 0.05, 0.1, 0.01, 0.2], np.float32),
        "zp": np.array([0, -3, 5, 10, -128], np.int8),
        "lens": np.array([1, 3, 2], np.int64),
    }
    nodes = [
        node("LRN", ["x"], "lrn", size=3, alpha=1e-2, beta=0.6, bias=2.0),
        node("BitwiseAnd", ["a", "b"], "and"),
        node("BitwiseOr", ["a", "b"], "or"),
        node("BitwiseXor", ["a", "b"], "xor"),
        node("BitwiseNot", ["a"], "not"),
        node("BitShift", ["a", "shift"], "left", direction="LEFT"),
        node("BitShift", ["a", "shift"], "right", direction="RIGHT"),
        node("QuantizeLinear", ["x", "scale", "zp"], "q", axis=1),
        node("DequantizeLinear", ["q", "scale", "zp"], "dq", axis=1),
        node("ReverseSequence", ["seq", "lens"], "rev", time_axis=0, batch_axis=1),
    ]
    inputs = {
        "x": x,
        "a": a,
        "b": RNG.integers(0, 255, (1, 4)).astype(np.uint8),
        "seq": RNG.standard_normal((4, 3, 2)).astype(np.float32),
    }
    outputs = ["lrn", "and", "or", "xor", "not", "left", "right", "q", "dq", "rev"]
    check(tmp_path, model(nodes, inputs, outputs, opset=18, constants=consts), inputs, SUMMED)


def test_nonzero_constant_folded_and_computed_refused(device: int, tmp_path: Path) -> None:
    flags = np.array([[1, 0, 2], [0, 3, 0]], np.float32)
    nodes = [
        node("NonZero", ["flags"], "where"),
        node("Cast", ["where"], "where_f", to=TensorProto.FLOAT),
        node("Add", ["x", "where_f"], "y"),
    ]
    inputs = {"x": RNG.standard_normal((2, 3)).astype(np.float32)}
    check(tmp_path, model(nodes, inputs, ["y"], constants={"flags": flags}), inputs)
    computed = model([node("NonZero", ["x"], "idx")], inputs, ["idx"])
    with pytest.raises(CompileError, match=r"node 'idx' \(NonZero\).*dynamic shapes are not supported yet"):
        compile_model(computed, tmp_path, "computed")
    with pytest.raises(CompileError, match=r"node 'where' \(NonZero\).*constant_folding pass is disabled"):
        compile_model(
            model(nodes, inputs, ["y"], constants={"flags": flags}),
            tmp_path,
            "unfolded",
            disabled_passes=["constant_folding"],
        )


def recurrent_model(layout: int, inputs: dict[str, np.ndarray]) -> onnx.ModelProto:
    """RNN (Relu), GRU (both reset orders) and LSTM (peepholes, clip), bidirectional, with sequence lengths."""
    seed = np.random.default_rng(5)
    gates_of = {"RNN": 1, "GRU": 3, "LSTM": 4}
    size, hidden = inputs["x"].shape[2], 6
    consts: dict[str, np.ndarray] = {}
    nodes, outputs = [], []
    cells = (
        ("RNN", {"activations": ["Relu", "Tanh"]}),
        ("GRU", {"linear_before_reset": 1}),
        ("GRU", {"linear_before_reset": 0}),
        ("LSTM", {"clip": 1.5}),
    )
    for op, extra in cells:
        name, gates = f"{op.lower()}{len(nodes)}", gates_of[op]
        consts[f"{name}_w"] = (seed.standard_normal((2, gates * hidden, size)) * 0.5).astype(np.float32)
        consts[f"{name}_r"] = (seed.standard_normal((2, gates * hidden, hidden)) * 0.5).astype(np.float32)
        consts[f"{name}_b"] = seed.standard_normal((2, 2 * gates * hidden)).astype(np.float32)
        ins = [f"{name}_w", f"{name}_r", f"{name}_b", "lens"]
        if op == "LSTM":
            consts[f"{name}_p"] = seed.standard_normal((2, 3 * hidden)).astype(np.float32)
            ins += ["", "", f"{name}_p"]
        outs = [f"{name}_y", f"{name}_h"] + ([f"{name}_c"] if op == "LSTM" else [])
        attrs = {"hidden_size": hidden, "direction": "bidirectional", **extra, **({"layout": 1} if layout else {})}
        nodes.append(helper.make_node(op, ["x", *ins], outs, name=name, **attrs))
        outputs += outs
    return model(nodes, inputs, outputs, opset=14, constants=consts)


@pytest.mark.parametrize("layout", [0, 1])
def test_recurrent(device: int, tmp_path: Path, layout: int) -> None:
    """Y is 0 past a sequence's length and Y_h / Y_c the state after its last step (onnxruntime). onnxruntime
    refuses layout=1, so the batch-first model is checked against its layout-0 results, transposed."""
    x = RNG.standard_normal((5, 3, 4)).astype(np.float32)  # (seq, batch, input)
    lens = np.array([5, 2, 4], np.int32)
    want = reference(recurrent_model(0, {"x": x, "lens": lens}), {"x": x, "lens": lens})
    if layout:
        x = x.transpose(1, 0, 2).copy()
        want = [w.transpose(2, 0, 1, 3) if w.ndim == 4 else w.transpose(1, 0, 2) for w in want]
    inputs = {"x": x, "lens": lens}
    check(tmp_path, recurrent_model(layout, inputs), inputs, SUMMED, want)


def test_integer_products(device: int, tmp_path: Path) -> None:
    """MatMulInteger (batch broadcast, per-column zero points), ConvInteger and QLinearConv (groups, strides, pads,
    per-channel weight scales, int32 bias) and QLinearMatMul: exact integers, as onnxruntime's (QLinearConv: as the
    spec's, see below)."""
    seed = np.random.default_rng(9)
    x = seed.integers(0, 255, (2, 4, 7, 6)).astype(np.uint8)
    a = seed.integers(0, 255, (2, 3, 5)).astype(np.uint8)
    consts = {
        "b": seed.integers(-128, 127, (5, 4)).astype(np.int8),
        "a_zp": np.array(120, np.uint8),
        "b_zp": np.array([1, -2, 3, 0], np.int8),
        "w": seed.integers(0, 255, (6, 2, 3, 3)).astype(np.uint8),
        "x_zp": np.array(128, np.uint8),
        "w_zp": np.array(127, np.uint8),
        "qw": seed.integers(-100, 100, (6, 2, 3, 3)).astype(np.int8),
        "qw_zp": np.array(0, np.int8),
        "x_scale": np.array(0.02, np.float32),
        "qw_scale": (seed.random(6) * 0.01 + 0.001).astype(np.float32),
        "y_scale": np.array(0.05, np.float32),
        "y_zp": np.array(100, np.uint8),
        "bias": seed.integers(-500, 500, 6).astype(np.int32),
        "a_scale": np.array(0.03, np.float32),
        "b_scale": np.array(0.01, np.float32),
    }
    window = {"kernel_shape": [3, 3], "strides": [2, 1], "pads": [1, 0, 1, 2], "group": 2}
    nodes = [
        node("MatMulInteger", ["a", "b", "a_zp", "b_zp"], "mmi"),
        node("ConvInteger", ["x", "w", "x_zp", "w_zp"], "convi", **window),
        node(
            "QLinearConv",
            ["x", "x_scale", "x_zp", "qw", "qw_scale", "qw_zp", "y_scale", "y_zp", "bias"],
            "qconv",
            **window,
        ),
        node("QLinearMatMul", ["a", "a_scale", "a_zp", "b", "b_scale", "b_zp0", "y_scale", "y_zp"], "qmm"),
    ]
    consts["b_zp0"] = np.array(0, np.int8)
    inputs = {"x": x, "a": a}
    proto = model(nodes, inputs, ["mmi", "convi", "qconv", "qmm"], opset=13, constants=consts)
    want = reference(proto, inputs)
    # onnxruntime's QLinearConv with uint8 x and int8 weights sums products pairwise in int16 on x86 without VNNI
    # (AVX2), which saturates at these values: the spec's exact result, computed here, is the reference.
    acc = integer_conv(x.astype(np.int64) - 128, consts["qw"].astype(np.int64), strides=(2, 1), pads=(1, 0, 1, 2), group=2)
    acc = acc + consts["bias"].reshape(1, -1, 1, 1)
    scale = np.float32(0.02) * consts["qw_scale"] / np.float32(0.05)
    want[2] = np.clip(np.rint(acc.astype(np.float32) * scale.reshape(1, -1, 1, 1)) + 100, 0, 255).astype(np.uint8)
    check(tmp_path, proto, inputs, want=want)


def integer_conv(x: np.ndarray, w: np.ndarray, strides: tuple[int, int], pads: tuple[int, int, int, int],
                 group: int) -> np.ndarray:
    """The exact int64 2-D convolution (NCHW, pads top, left, bottom, right)."""
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    maps, per_group, kh, kw = w.shape
    oh = (xp.shape[2] - kh) // strides[0] + 1
    ow = (xp.shape[3] - kw) // strides[1] + 1
    out = np.zeros((x.shape[0], maps, oh, ow), np.int64)
    for m in range(maps):
        g = m // (maps // group)
        for i in range(kh):
            for j in range(kw):
                window = xp[:, g * per_group:(g + 1) * per_group, i:i + strides[0] * oh:strides[0], j:j + strides[1] * ow:strides[1]]
                out[:, m] += np.einsum("nchw,c->nhw", window, w[m, :, i, j])
    return out


def test_det_dft_roi_unpool(device: int, tmp_path: Path) -> None:
    """Det, DFT (real and complex input, onesided, inverse, a dft_length that pads and one that cuts), RoiAlign
    (both coordinate modes, avg and max, sampling_ratio 0 and 2), MaxRoiPool and MaxUnpool."""
    seed = np.random.default_rng(4)
    signal = seed.standard_normal((2, 8, 3, 1)).astype(np.float32)
    spectrum = seed.standard_normal((2, 8, 3, 2)).astype(np.float32)
    image = seed.standard_normal((2, 3, 9, 11)).astype(np.float32)
    consts = {
        "rois": np.array([[0.5, 1.0, 6.0, 7.5], [2.0, 0.0, 10.0, 8.0], [-1.0, -1.0, 3.0, 2.0]], np.float32),
        "batch": np.array([0, 1, 1], np.int64),
        "len10": np.array(10, np.int64),
        "len6": np.array(6, np.int64),
        "rois5": np.array([[0, 1.2, 0.4, 7.6, 5.5], [1, 3.0, 2.0, 10.0, 8.0]], np.float32),
        "idx": np.array([[[[0, 3], [9, 14]]]], np.int64),
    }
    nodes = [
        node("Det", ["m"], "det"),
        node("DFT", ["signal"], "fft", axis=1),
        node("DFT", ["signal", "len10"], "rfft", axis=1, onesided=1),
        node("DFT", ["spectrum", "len6"], "ifft", axis=1, inverse=1),
        node("DFT", ["spectrum"], "cfft2", axis=2),
        node("DFT", ["spectrum"], "irfft", axis=1, inverse=1, onesided=1),
        node("RoiAlign", ["image", "rois", "batch"], "align_avg", output_height=3, output_width=2, spatial_scale=0.9),
        node(
            "RoiAlign",
            ["image", "rois", "batch"],
            "align_max",
            mode="max",
            output_height=2,
            output_width=4,
            sampling_ratio=2,
            coordinate_transformation_mode="output_half_pixel",
        ),
        node("MaxRoiPool", ["image", "rois5"], "roipool", pooled_shape=[2, 3], spatial_scale=0.8),
        node("MaxUnpool", ["small", "idx"], "unpool", kernel_shape=[2, 2], strides=[2, 2]),
    ]
    inputs = {
        "m": seed.standard_normal((3, 4, 4)).astype(np.float32),
        "signal": signal,
        "spectrum": spectrum,
        "image": image,
        "small": seed.standard_normal((1, 1, 2, 2)).astype(np.float32),
    }
    outputs = ["det", "fft", "rfft", "ifft", "cfft2", "irfft", "align_avg", "align_max", "roipool", "unpool"]
    check(tmp_path, model(nodes, inputs, outputs, opset=18, constants=consts), inputs, SUMMED)


def test_resize_cubic(device: int, tmp_path: Path) -> None:
    """Resize's cubic mode (coefficient a, exclude_outside, up and down, the coordinate modes) and the
    half_pixel_symmetric coordinates, against onnxruntime."""
    x = RNG.standard_normal((1, 2, 5, 7)).astype(np.float32)
    consts = {"up": np.array([1, 1, 1.6, 2.0], np.float32), "down": np.array([1, 1, 0.6, 0.5], np.float32)}
    nodes, outputs = [], []
    for scales in ("up", "down"):
        for ctm in ("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel", "half_pixel_symmetric"):
            for extra in ({}, {"cubic_coeff_a": -0.5, "exclude_outside": 1}):
                name = f"{scales}_{ctm}_{len(extra)}"
                nodes.append(
                    node("Resize", ["x", "", scales], name, mode="cubic", coordinate_transformation_mode=ctm, **extra)
                )
                outputs.append(name)
        nodes.append(
            node(
                "Resize",
                ["x", "", scales],
                f"{scales}_linear_symmetric",
                mode="linear",
                coordinate_transformation_mode="half_pixel_symmetric",
            )
        )
        outputs.append(f"{scales}_linear_symmetric")
    inputs = {"x": x}
    check(tmp_path, model(nodes, inputs, outputs, opset=19, constants=consts), inputs, SUMMED)


def test_affine_grid(device: int, tmp_path: Path) -> None:
    """AffineGrid (a constant size; its ONNX function body needs If) 2-D and 3-D, into GridSample."""
    consts = {"size2": np.array([2, 3, 4, 5], np.int64), "size3": np.array([2, 1, 2, 3, 4], np.int64)}
    nodes = [
        node("AffineGrid", ["theta2", "size2"], "grid2"),
        node("AffineGrid", ["theta2", "size2"], "grid2a", align_corners=1),
        node("AffineGrid", ["theta3", "size3"], "grid3", align_corners=1),
        node("GridSample", ["x", "grid2"], "sampled"),
    ]
    inputs = {
        "theta2": RNG.standard_normal((2, 2, 3)).astype(np.float32),
        "theta3": RNG.standard_normal((2, 3, 4)).astype(np.float32),
        "x": RNG.standard_normal((2, 3, 6, 6)).astype(np.float32),
    }
    check(
        tmp_path,
        model(nodes, inputs, ["grid2", "grid2a", "grid3", "sampled"], opset=20, constants=consts),
        inputs,
        SUMMED,
    )


@pytest.mark.filterwarnings("ignore:.*is declared with shape")  # onnx's inference: 16 bins for a onesided STFT
def test_stft_mel(device: int, tmp_path: Path) -> None:
    """STFT (a Hann window, onesided and not, real and complex signals; constant frame_step and frame_length) into
    a mel spectrogram whose MelWeightMatrix (constant inputs) is folded at compile time."""
    consts = {
        "step": np.array(4, np.int64),
        "length": np.array(16, np.int64),
        "bins": np.array(8, np.int64),
        "dft": np.array(16, np.int64),
        "rate": np.array(8000, np.int64),
        "low": np.array(20.0, np.float32),
        "high": np.array(3800.0, np.float32),
        "ten": np.array(10, np.int64),
    }
    nodes = [
        node("HannWindow", ["length"], "window"),
        node("STFT", ["signal", "step", "window", "length"], "spectrum"),
        node("STFT", ["complex", "step", "", "ten"], "full", onesided=0),
        node("ReduceSumSquare", ["spectrum", "last"], "power", keepdims=0),
        node("MelWeightMatrix", ["bins", "dft", "rate", "low", "high"], "mel"),
        node("MatMul", ["power", "mel"], "mel_spectrum"),
    ]
    consts["last"] = np.array([-1], np.int64)
    inputs = {
        "signal": RNG.standard_normal((2, 64, 1)).astype(np.float32),
        "complex": RNG.standard_normal((1, 30, 2)).astype(np.float32),
    }
    check(
        tmp_path, model(nodes, inputs, ["spectrum", "full", "mel_spectrum"], opset=18, constants=consts), inputs, SUMMED
    )
