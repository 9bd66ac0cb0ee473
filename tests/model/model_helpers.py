"""Importable helpers for tests/model: small ONNX models and .om files compiled from them, and access to a
byte image from the C API (the image's address, kept alive by the caller's bytes object)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import acl
from ascendsim.compiler.build import compile as compile_om

AIPP_CFG = """aipp_op {
  aipp_mode: static
  input_format: RGB888_U8
  src_image_size_w: 8
  src_image_size_h: 8
  mean_chn_0: 10
  var_reci_chn_0: 0.5
}
"""


def conv_model(batch: str | int = "N", height: str | int = 8, width: str | int = 8) -> onnx.ModelProto:
    """x [batch, 3, h, w] -> Conv 3->4 (3x3, pad 1) -> Relu -> y [batch, 4, h, w]."""
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w")
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["y"])]
    graph = helper.make_graph(nodes, "conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                           [batch, 3, height, width])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 4, height, width])], [w])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def two_input_model() -> onnx.ModelProto:
    """a [n, m, 8] and b [n, 1, 4] -> MatMul(a, ones[8, 4]) + b -> out [n, m, 4]."""
    k = numpy_helper.from_array(np.ones((8, 4), np.float32), "k")
    nodes = [helper.make_node("MatMul", ["a", "k"], ["m"]), helper.make_node("Add", ["m", "b"], ["out"])]
    graph = helper.make_graph(nodes, "two", [helper.make_tensor_value_info("a", TensorProto.FLOAT, ["n", "m", 8]),
                                             helper.make_tensor_value_info("b", TensorProto.FLOAT, ["n", 1, 4])],
                              [helper.make_tensor_value_info("out", TensorProto.FLOAT, ["n", "m", 4])], [k])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def compile_models(directory: Path) -> dict[str, Path]:
    """One .om of each kind: static, dynamic batch, dynamic HW, dynamic dims, static AIPP, other SoC."""
    (directory / "aipp.cfg").write_text(AIPP_CFG)
    out = {
        "static": compile_om(conv_model(batch=2), directory / "static", soc_version="Ascend910B1"),
        "batch": compile_om(conv_model(), directory / "batch", soc_version="Ascend910B1",
                            input_shape="x:-1,3,8,8", dynamic_batch_size="1,2,4"),
        "hw": compile_om(conv_model(batch=1, height="h", width="w"), directory / "hw", soc_version="Ascend910B1",
                         input_shape="x:1,3,-1,-1", dynamic_image_size="8,8;16,12"),
        "dims": compile_om(two_input_model(), directory / "dims", soc_version="Ascend910B1",
                           input_shape="a:-1,-1,8;b:-1,1,4", dynamic_dims="1,4,1;2,8,2;4,2,4"),
        "aipp": compile_om(conv_model(batch=1), directory / "aipp", soc_version="Ascend910B1",
                           insert_op_conf=str(directory / "aipp.cfg")),
        "other_soc": compile_om(conv_model(batch=1), directory / "other", soc_version="Ascend310P3"),
    }
    return {name: Path(result.output) for name, result in out.items()}  # type: ignore[arg-type]


def address(image: bytes) -> int:
    """The address of the bytes object's buffer (no copy): keep `image` alive while it is used."""
    return acl.util.bytes_to_ptr(image)
