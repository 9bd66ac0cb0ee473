"""Models whose tensors cannot exist or whose attributes point outside the input: `atc` refuses each with
ATC's failure line and a message naming the node and the value, never an internal error (issue 13, item 6),
and a size no longer wraps to 0 bytes on the way (numpy's int64 product did, for [2**40, 2**40])."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from frontend_cases import single_op

import ascendsim
from ascendsim.compiler.atc import FAILED, main
from ascendsim.compiler.errors import CompileError


def i64(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


HUGE = 1 << 31
CASES = {
    # a graph input of 2**62 floats: 2**64 bytes (the .om writer's struct.error before)
    "add_of_huge_inputs": (single_op("Add", [("f", (HUGE, HUGE)), ("f", (HUGE, HUGE))]),
                           ["input 'in0'", "more than a tensor can hold"]),
    "expand_to_huge": (single_op("Expand", [("f", (1, 1)), i64(HUGE, HUGE)]),
                       ["node 'the_Expand' (Expand)", "more than a tensor can hold"]),
    "constant_of_shape_2_80": (single_op("ConstantOfShape", [("i", (2,))], opset=17),
                               None),  # replaced below: its shape input must be a constant
    "split_axis_out_of_range": (single_op("Split", [("f", (4, 6))], outputs=2, out_rank=2, axis=5),
                                ["node 'the_Split' (Split)", "axis 5 is out of range", "rank 2"]),
    "pad_axes_out_of_range": (single_op("Pad", [("f", (4, 6)), i64(1, 1), None, i64(3)], opset=18, out_rank=2),
                              ["node 'the_Pad' (Pad)", "axes value 3 is out of range"]),
    "pad_axes_pads_mismatch": (single_op("Pad", [("f", (4, 6)), i64(1, 1, 1), None, i64(0)], opset=18, out_rank=2),
                               ["node 'the_Pad' (Pad)", "pads has 3 values; 1 axes need 2"]),
    # found by tests/fuzz/onnx_atc.py: a ValueError, OverflowError (NaN, inf) or TypeError (vectors) out of the
    # inference of Range and Resize
    "range_to_nan": (single_op("Range", [np.array(0, np.float32), np.array(np.nan, np.float32),
                                         np.array(1, np.float32)]),
                     ["node 'the_Range' (Range)", "start, limit and delta must be finite, got 0.0, nan, 1.0"]),
    "range_of_vectors": (single_op("Range", [np.array([0, 1], np.float32), np.array(5, np.float32),
                                             np.array(1, np.float32)], out_rank=1),
                         ["node 'the_Range' (Range)", "must be scalars, got shapes [[2], [], []]"]),
    "resize_by_inf": (single_op("Resize", [("f", (1, 1, 4, 4)), np.zeros(0, np.float32),
                                           np.array([1, 1, np.inf, 1], np.float32)], out_rank=4),
                      ["node 'the_Resize' (Resize)", "scales [1.0, 1.0, inf, 1.0] must be finite and greater than 0"]),
    "resize_by_nan": (single_op("Resize", [("f", (1, 1, 4, 4)), np.zeros(0, np.float32),
                                           np.array([1, 1, np.nan, -2], np.float32)], out_rank=4),
                      ["node 'the_Resize' (Resize)", "must be finite and greater than 0"]),
}
CASES["constant_of_shape_2_80"] = (single_op("ConstantOfShape", [i64(1 << 40, 1 << 40)]),
                                   ["node 'the_ConstantOfShape' (ConstantOfShape)", "more than a tensor can hold"])


@pytest.mark.parametrize("name", sorted(CASES))
def test_atc_refuses_with_a_message(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model, fragments = CASES[name]
    path = tmp_path / f"{name}.onnx"
    onnx.save(model, str(path))
    code = main([f"--model={path}", "--framework=5", f"--output={tmp_path / name}", "--soc_version=Ascend910B1"])
    text = capsys.readouterr().out
    assert code == 255 and FAILED in text, text
    assert "internal error" not in text, text
    for fragment in fragments or []:
        assert fragment in text, text
    assert not (tmp_path / f"{name}.om").exists()


def ones(*shape: int) -> np.ndarray:
    return np.ones(shape, np.float32)


CONTRADICTIONS = {
    "conv_bias_length": (single_op("Conv", [("f", (1, 3, 8, 8)), ones(4, 3, 3, 3), ones(5)], kernel_shape=[3, 3]),
                         "bias of shape [5] must be [4]"),
    "conv_kernel_shape": (single_op("Conv", [("f", (1, 3, 8, 8)), ones(4, 3, 3, 3)], kernel_shape=[5, 5], out_rank=4),
                          "kernel_shape [5, 5] contradicts the weight's spatial dims [3, 3]"),
    "batch_norm_length": (single_op("BatchNormalization", [("f", (1, 3, 8, 8)), ones(4), ones(3), ones(3), ones(3)],
                                    out_rank=4), "scale of shape [4] must be [3]"),
    "gather_constant_index": (single_op("Gather", [("f", (4, 6)), i64(7)]),
                              "indices [7] are out of range for axis 0 of size 4"),
    "tile_to_2_80": (single_op("Tile", [("f", (2, 2)), i64(1 << 40, 1 << 40)]), "more than a tensor can hold"),
    # zero elements, so zero bytes, but a dim of 3 * 2^62 (a struct.error traceback in the .om writer before)
    "tile_empty_with_a_dim_past_int64": (single_op("Tile", [("f", (2, 3)), i64(0, 1 << 62)], out_rank=2),
                                         "more than a .om dim can hold"),
    # found by tests/fuzz/onnx_atc.py: compiled, then "no kernel for this node" at load
    "conv_transpose_bias_length": (single_op("ConvTranspose", [("f", (1, 2, 4, 4)), ones(2, 3, 3, 3), ones(5)]),
                                   "bias of shape [5] must be [3]"),
    "conv_transpose_channels": (single_op("ConvTranspose", [("f", (1, 4, 4, 4)), ones(2, 3, 3, 3)], out_rank=4),
                                "input channels 4 != the weight's input channels 2"),
    "matmul_of_int64": (single_op("MatMul", [("i", (2, 8)), np.ones((8, 4), np.int64)]),
                        "input 0 ('in0') has dtype INT64; MatMul supports FLOAT and FLOAT16"),
    "gemm_of_int64": (single_op("Gemm", [("f", (2, 8)), np.ones((8, 4), np.int64)], out_rank=2),
                      "input 1 ('c1') has dtype INT64; Gemm supports FLOAT and FLOAT16"),
    "layer_norm_of_int64": (single_op("LayerNormalization", [("i", (2, 4)), ones(4), ones(4)], out_rank=2),
                            "input 0 ('in0') has dtype INT64; LayerNormalization supports FLOAT and FLOAT16"),
    "max_pool_of_bool": (single_op("MaxPool", [("b", (1, 1, 4, 4))], kernel_shape=[2, 2], out_rank=4),
                         "input 0 ('in0') has dtype BOOL; MaxPool supports FLOAT and FLOAT16"),
    "clip_of_int_bounds": (single_op("Clip", [("f", (2, 3)), np.array(0, np.int64)], out_rank=2),
                           "min has dtype INT64, the input FLOAT"),
    "layer_norm_scale_size": (single_op("LayerNormalization", [("f", (2, 3)), ones(4), ones(4)]),
                              "scale of shape [4] must hold 3 values (the normalized shape [3])"),
    "instance_norm_rank": (single_op("InstanceNormalization", [("f", (2, 3)), ones(3), ones(3)]),
                           "input rank 2 must be >= 3"),
    "instance_norm_bias_size": (single_op("InstanceNormalization", [("f", (1, 3, 4)), ones(3), ones(2)]),
                                "bias of shape [2] must hold 3 values (one value per channel)"),
    "concat_of_two_dtypes": (single_op("Concat", [("f", (2, 3)), ("i", (2, 3))], axis=0, out_rank=2),
                             "inputs have different dtypes ['FLOAT', 'INT64']"),
}


@pytest.mark.parametrize("name", sorted(CONTRADICTIONS))
def test_contradicting_model_is_a_compile_error(name: str) -> None:
    """Each compiled before and then failed at load or ran wrongly (issue 13, item 7; the ones after tile_to_2_80
    were found by the atc fuzzer, tests/fuzz/onnx_atc.py)."""
    model, fragment = CONTRADICTIONS[name]
    with pytest.raises(CompileError) as info:
        ascendsim.compile(model, None, soc_version="Ascend910B1")
    assert fragment in str(info.value) and "node 'the_" in str(info.value), str(info.value)


def test_negative_gather_index_in_range_still_compiles() -> None:
    ascendsim.compile(single_op("Gather", [("f", (4, 6)), i64(-4, 3)]), None, soc_version="Ascend910B1")



def declared_output(model: onnx.ModelProto, dims: list[int | str | None]) -> onnx.ModelProto:
    out = model.graph.output[0]
    out.CopyFrom(onnx.helper.make_tensor_value_info(out.name, onnx.TensorProto.FLOAT, dims))
    return model


def test_declared_output_shape_contradicting_inference_compiles_as_inferred_with_a_warning() -> None:
    """Issue 13, item 7: a graph output declared [3, 2], [] or of another rank that the node makes [2, 3]
    compiles as made, with a warning naming the node, as onnxruntime runs such (published) models."""
    for dims, shown in (([3, 2], "[3, 2]"), ([2, 3, 1], "[2, 3, 1]"), ([], "[]")):
        model = declared_output(single_op("Add", [("f", (2, 3)), ("f", (2, 3))]), dims)
        with pytest.warns(UserWarning) as caught:
            result = ascendsim.compile(model, None, soc_version="Ascend910B1")
        message = str(caught[0].message)
        assert "node 'the_Add' (Add)" in message and f"declared with shape {shown}" in message, message
        assert "produces [2, 3]" in message, message
        assert [list(v.shape) for v in result.graph.outputs] == [[2, 3]]


def test_declared_output_shapes_that_agree_compile_silently(recwarn: pytest.WarningsRecorder) -> None:
    # unknown and symbolic dims agree with anything; overridden inputs leave the declared shapes stale, as
    # ATC's --input_shape does (a batch of 4 for a model exported with 1)
    ascendsim.compile(declared_output(single_op("Add", [("f", (2, 3)), ("f", (2, 3))]), ["N", None]), None,
                      soc_version="Ascend910B1")
    stale = declared_output(single_op("Relu", [("f", ("N", 3))]), [1, 3])
    ascendsim.compile(stale, None, soc_version="Ascend910B1", input_shape="in0:4,3")
    assert not [w for w in recwarn if "declared with shape" in str(w.message)]


def test_slice_of_a_minus_one_dim_is_a_compile_error_not_a_traceback() -> None:
    """Found by tests/fuzz/onnx_atc.py (seed 3, case 2916): a graph input declared [-1, 6] without a gear
    flag reached Slice's shape function as a length of -1 (ValueError from Python's slice.indices)."""
    h = onnx.helper
    consts = [onnx.numpy_helper.from_array(i64(v), f"c{v}") for v in (1, 3, 0)]  # starts, ends, axes (steps 1)
    node = h.make_node("Slice", ["x", "c1", "c3", "c0", "c1"], ["y"], name="the_Slice")
    graph = h.make_graph([node], "slice", [h.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [-1, 6])],
                         [h.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [None, 6])], consts)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])  # (onnx's own inference aborts on -1)
    with pytest.raises(CompileError):
        ascendsim.compile(model, None, soc_version="Ascend910B1")


def test_topk_with_an_empty_k_is_a_compile_error_not_a_traceback() -> None:
    """Found by tests/fuzz/onnx_atc.py under the sanitizer build (seed 4, case 9197): an empty constant K reached
    TopK's shape function as k[0] (IndexError)."""
    h = onnx.helper
    k = onnx.numpy_helper.from_array(np.zeros(0, np.int64), "k")
    node = h.make_node("TopK", ["x", "k"], ["v", "i"], name="the_TopK")
    graph = h.make_graph([node], "topk", [h.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 5])],
                         [h.make_tensor_value_info("v", onnx.TensorProto.FLOAT, [2, None]),
                          h.make_tensor_value_info("i", onnx.TensorProto.INT64, [2, None])], [k])
    with pytest.raises(CompileError) as info:
        ascendsim.compile(h.make_model(graph, opset_imports=[h.make_opsetid("", 17)]), None, soc_version="Ascend910B1")
    assert "node 'the_TopK'" in str(info.value) and "K must hold one value, not 0" in str(info.value), str(info.value)
