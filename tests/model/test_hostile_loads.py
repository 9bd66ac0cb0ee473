"""Models that are well-formed but hostile at load (issue 13, item 3): a Pad by 2^38 compiles (its output has
far fewer than 2^63 bytes), and its load built a per-index table for every output dim, growing past the host's
memory; an output no device memory can hold is now refused at load, and Pad's kernel keeps no tables at all."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from exec_helpers import compile_model, execute_once
from onnx import TensorProto, helper, numpy_helper

import acl
from ascendsim.compiler.build import compile as compile_om


def pad_model(before: int) -> onnx.ModelProto:
    pads = numpy_helper.from_array(np.array([0, before, 0, 0], np.int64), "pads")
    graph = helper.make_graph([helper.make_node("Pad", ["x", "pads"], ["y"], name="the_pad")], "pad",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3 + before])], [pads])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def test_output_larger_than_device_memory_is_refused_at_load(device: int, tmp_path: Path) -> None:
    compile_om(pad_model(1 << 38), tmp_path / "pad", soc_version="Ascend910B1")
    _, ret = acl.mdl.load_from_file(str(tmp_path / "pad.om"))
    assert ret == 245000, ret  # ACL_ERROR_GE_MEMORY_ALLOCATION
    message = acl.get_recent_err_msg()
    assert "output 'y' needs 2199023255576 bytes, more than the device's memory" in message, message


def test_wide_pad_loads_without_tables_and_runs(device: int, tmp_path: Path) -> None:
    """A Pad whose output does fit: loading costs nothing per output index, and the result matches numpy."""
    before = 1 << 20
    compile_om(pad_model(before), tmp_path / "pad", soc_version="Ascend910B1")
    model_id, ret = acl.mdl.load_from_file(str(tmp_path / "pad.om"))
    assert ret == 0, acl.get_recent_err_msg()
    x = np.arange(6, dtype=np.float32).reshape(2, 3) + 1
    y = np.full((2, 3 + before), np.nan, np.float32)
    device_x, _ = acl.rt.malloc(x.nbytes, 0)
    device_y, _ = acl.rt.malloc(y.nbytes, 0)
    assert acl.rt.memcpy(device_x, x.nbytes, acl.util.numpy_to_ptr(x), x.nbytes, 1) == 0
    inputs, outputs = acl.mdl.create_dataset(), acl.mdl.create_dataset()
    buffers = [acl.create_data_buffer(device_x, x.nbytes), acl.create_data_buffer(device_y, y.nbytes)]
    acl.mdl.add_dataset_buffer(inputs, buffers[0])
    acl.mdl.add_dataset_buffer(outputs, buffers[1])
    try:
        assert acl.mdl.execute(model_id, inputs, outputs) == 0, acl.get_recent_err_msg()
        assert acl.rt.memcpy(acl.util.numpy_to_ptr(y), y.nbytes, device_y, y.nbytes, 2) == 0
    finally:
        for buffer in buffers:
            acl.destroy_data_buffer(buffer)
        acl.mdl.destroy_dataset(inputs)
        acl.mdl.destroy_dataset(outputs)
        acl.rt.free(device_x)
        acl.rt.free(device_y)
        assert acl.mdl.unload(model_id) == 0
    np.testing.assert_array_equal(y, np.pad(x, [(0, 0), (before, 0)]))


def run_model(model: onnx.ModelProto, tmp_path: Path, inputs: list[np.ndarray], like: list[np.ndarray]) -> list:
    model_id, ret = acl.mdl.load_from_file(str(compile_model(model, tmp_path, "m")))
    assert ret == 0, acl.get_recent_err_msg()
    try:
        return execute_once(model_id, inputs, like)
    finally:
        acl.mdl.unload(model_id)


def test_slice_with_a_step_of_int64_max_takes_one_element(device: int, tmp_path: Path) -> None:
    """Found by tests/fuzz/onnx_atc.py under the sanitizer build (seed 4, case 5408): the step reached the
    stride computation as 6 * (2^63 - 1), a signed overflow, when the kernel was built at load."""
    consts = [numpy_helper.from_array(np.array([v], np.int64), name)
              for name, v in (("starts", 1), ("ends", 4), ("axes", 0), ("steps", (1 << 63) - 1))]
    node = helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"], name="the_slice")
    graph = helper.make_graph([node], "slice", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 6])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 6])], consts)
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    (y,) = run_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), tmp_path, [x],
                     [np.empty((1, 6), np.float32)])
    np.testing.assert_array_equal(y, x[1:4:(1 << 63) - 1])


def test_int64_sums_wrap_as_twos_complement(device: int, tmp_path: Path) -> None:
    """Found by tests/fuzz/onnx_atc.py under the sanitizer build (seed 4, case 6041): a ReduceSum of int64 values
    near 2^62 overflowed signed arithmetic (undefined); it wraps as numpy's and the device's do."""
    axes = numpy_helper.from_array(np.array([1], np.int64), "axes")
    node = helper.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=0, name="the_sum")
    graph = helper.make_graph([node], "sum", [helper.make_tensor_value_info("x", TensorProto.INT64, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.INT64, [2])], [axes])
    x = np.array([[1 << 62, 1 << 62, 1 << 62], [-(1 << 62), -(1 << 62), 5]], np.int64)
    (y,) = run_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), tmp_path, [x],
                     [np.empty(2, np.int64)])
    np.testing.assert_array_equal(y, x.sum(axis=1))
