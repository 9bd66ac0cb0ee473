"""The whole default pipeline on every model builder: fewer nodes, same numbers in onnxruntime."""

from __future__ import annotations

import pytest
from test_pass_helpers import optimize

from onnx_models import MODEL_BUILDERS


@pytest.mark.parametrize("name", sorted(MODEL_BUILDERS))
def test_pipeline_is_equivalent(name: str) -> None:
    optimized = optimize(MODEL_BUILDERS[name]())
    assert sum(optimized.after.values()) <= sum(optimized.before.values())
    optimized.assert_equivalent()


def test_resnet_block_counts() -> None:
    optimized = optimize(MODEL_BUILDERS["resnet"]())
    assert optimized.before == {"Conv": 3, "BatchNormalization": 3, "Relu": 3, "MaxPool": 1, "Add": 1,
                                "GlobalAveragePool": 1, "Flatten": 1, "Gemm": 1}
    # the residual Add and the Relu after it go into the last Conv (fused_sum, then activation)
    assert optimized.after == {"Conv": 3, "MaxPool": 1, "GlobalAveragePool": 1, "Flatten": 1, "Gemm": 1}
    assert optimized.report.stat("BatchNormalization folded") == 3
    assert optimized.report.stat("conv_sum fused") == 1
    assert optimized.report.stat("patterns fused") == 4


def test_bert_layer_counts() -> None:
    optimized = optimize(MODEL_BUILDERS["bert"]())
    assert optimized.report.stat("matmul_bias fused") == 6
    assert optimized.report.stat("gelu_erf_epilogue fused") == 1
    assert "Erf" not in optimized.after
    fused = [n for n in optimized.graph.nodes if n.attr("activation") == "Gelu"]
    assert len(fused) == 1 and fused[0].attr("fused_bias") == 1


def test_static_batch_folds_the_shape_arithmetic() -> None:
    optimized = optimize(MODEL_BUILDERS["shape_arith"](), input_shapes={"x": [2, 4, 6, 6]})
    assert optimized.after == {"Relu": 1, "Reshape": 1, "Gemm": 1}
    optimized.assert_equivalent()


def test_symbolic_batch_keeps_the_shape_arithmetic() -> None:
    optimized = optimize(MODEL_BUILDERS["shape_arith"]())
    assert optimized.after["Shape"] == 1 and optimized.after["Gather"] == 1
    optimized.assert_equivalent()
