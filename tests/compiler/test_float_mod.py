"""Regression: Mod with fmod=0 on floating-point inputs is undefined in ONNX before opset 28 (onnxruntime
rejects it); the compiler refuses it instead of producing NaN where numpy would not."""

from __future__ import annotations

import pytest
from onnx import TensorProto, helper

from ascendsim.compiler.errors import CompileError
from ascendsim.compiler.onnx_import import import_onnx


def mod_model(fmod: int, elem: int) -> bytes:
    node = helper.make_node("Mod", ["a", "b"], ["y"], fmod=fmod)
    value = [helper.make_tensor_value_info(n, elem, [3]) for n in ("a", "b", "y")]
    graph = helper.make_graph([node], "mod", value[:2], value[2:])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def test_float_mod_needs_fmod_1() -> None:
    with pytest.raises(CompileError, match="fmod=0"):
        import_onnx(mod_model(0, TensorProto.FLOAT))
    assert import_onnx(mod_model(1, TensorProto.FLOAT)).nodes[0].op_type == "Mod"
    assert import_onnx(mod_model(0, TensorProto.INT32)).nodes[0].op_type == "Mod"
