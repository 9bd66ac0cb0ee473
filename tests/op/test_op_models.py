"""Single-operator models written by `atc --singleop` (docs/om-format.md §10): aclopLoad and aclopSetModelDir
register them through parse_om, after which aclopExecute* runs them without compiling; dynamic models run
any shape in their ranges; foreign, corrupt and non-single-op files get GE's errors."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
from onnx import TensorProto, helper
from op_helpers import Const, OpTensors, Out, check, execute, make_attr, single_op_models, tensor_json

import acl
import ascendcl as c
import ascendsim
from acl_helpers import run_python

ROOT = Path(__file__).resolve().parents[2]


def load_file(path: Path) -> int:
    image = path.read_bytes()
    return c.aclopLoad(acl.util.bytes_to_ptr(image), len(image))


def test_the_add_sample_model_runs_after_aclopLoad(tmp_path: Path, stream: int) -> None:
    # The official acl_execute_add sample's op list: int32 Add of two [8, 16] tensors.
    (model,) = single_op_models([{"op": "Add", "input_desc": [tensor_json([8, 16], "int32")] * 2,
                                  "output_desc": [tensor_json([8, 16], "int32")]}], tmp_path / "add")
    assert model.name == "0_Add_3_2_8_16_3_2_8_16_3_2_8_16.om"
    a = np.arange(128, dtype=np.int32).reshape(8, 16)
    with OpTensors([a, a * 3], [Out(np.int32, [8, 16])]) as t:
        assert execute("Add", t.ins, t.outs, 0, stream) == c.ACL_ERROR_OP_NOT_FOUND
        registered = ascendsim.op_cache_stats()["registered"]
        check(load_file(model))
        assert ascendsim.op_cache_stats()["registered"] == registered + 1
        for face in ("c", "acl"):
            check(execute("Add", t.ins, t.outs, 0, stream, face=face))
            check(c.aclrtSynchronizeStream(stream))
            np.testing.assert_array_equal(t.outs[0].read(np.int32, [8, 16]), a * 4)


def test_dynamic_model_runs_shapes_in_its_ranges(tmp_path: Path, stream: int) -> None:
    ranged = tensor_json([-1, 16], shape_range=[[1, 8]])
    single_op_models([{"op": "Relu", "input_desc": [ranged], "output_desc": [ranged]}], tmp_path / "relu")
    for model in (tmp_path / "relu").glob("*.om"):
        check(load_file(model))
    for rows, code in ((1, 0), (8, 0), (9, c.ACL_ERROR_OP_NOT_FOUND)):
        x = np.linspace(-1, 1, rows * 16, dtype=np.float32).reshape(rows, 16)
        with OpTensors([x], [Out(np.float32, [rows, 16])]) as t:
            assert execute("Relu", t.ins, t.outs, 0, stream) == code
            if code == 0:
                check(c.aclrtSynchronizeStream(stream))
                np.testing.assert_array_equal(t.outs[0].read(np.float32, [rows, 16]), np.maximum(x, 0))


def test_constant_inputs_and_attribute_types(tmp_path: Path, stream: int) -> None:
    models = single_op_models([
        {"op": "ReduceSum", "input_desc": [tensor_json([2, 3, 4]),
                                           tensor_json([1], "int64", is_const=True, const_value=[1])],
         "output_desc": [tensor_json([2, 1, 4])], "attr": [{"name": "keep_dims", "type": "bool", "value": True}]},
    ], tmp_path / "reduce")
    check(load_file(models[0]))
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    with OpTensors([x, Const(np.array([1], np.int64))], [Out(np.float32, [2, 1, 4])]) as t:
        as_bool, as_int = make_attr({"keep_dims": True}), make_attr({"keep_dims": 1})
        check(execute("ReduceSum", t.ins, t.outs, as_bool, stream))
        check(c.aclrtSynchronizeStream(stream))
        np.testing.assert_array_equal(t.outs[0].read(np.float32, [2, 1, 4]), x.sum(1, keepdims=True))
        # GE matches the attribute's type too: the int 1 is not the model's bool true.
        assert execute("ReduceSum", t.ins, t.outs, as_int, stream) == c.ACL_ERROR_OP_NOT_FOUND
        c.aclopDestroyAttr(as_bool)
        c.aclopDestroyAttr(as_int)


def test_aclopLoad_refuses_what_is_not_a_single_op_model(tmp_path: Path, device: int) -> None:
    assert c.aclopLoad(0, 16) == c.ACL_ERROR_INVALID_PARAM
    image = b"\0" * 64
    assert c.aclopLoad(acl.util.bytes_to_ptr(image), 0) == c.ACL_ERROR_INVALID_PARAM
    assert "modelSize" in c.aclGetRecentErrMsg()
    assert acl.op.load(acl.util.bytes_to_ptr(image), len(image)) == c.ACL_ERROR_DESERIALIZE_MODEL
    assert "not a valid single-operator model" in c.aclGetRecentErrMsg()
    (model,) = single_op_models([{"op": "Abs", "input_desc": [tensor_json([4])], "output_desc": [tensor_json([4])]}],
                                tmp_path / "abs")
    truncated = model.read_bytes()[:200]
    assert c.aclopLoad(acl.util.bytes_to_ptr(truncated), len(truncated)) == c.ACL_ERROR_DESERIALIZE_MODEL
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
    network = ascendsim.compile(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(tmp_path / "network"), soc_version="Ascend910B1")
    assert network.output is not None
    assert load_file(network.output) == c.ACL_ERROR_PARSE_MODEL
    assert "not a single-operator model" in c.aclGetRecentErrMsg()


def test_set_model_dir_scans_three_levels_once(tmp_path: Path) -> None:
    # In a subprocess: aclopSetModelDir succeeds once per process (GE: ACL_ERROR_REPEAT_INITIALIZE after).
    ops = {name: [{"op": name, "input_desc": [tensor_json([4])], "output_desc": [tensor_json([4])]}]
           for name in ("Abs", "Neg", "Exp", "Sqrt")}
    single_op_models(ops["Abs"], tmp_path / "models")                 # depth 1: the directory itself
    single_op_models(ops["Neg"], tmp_path / "models" / "a")           # depth 2
    single_op_models(ops["Exp"], tmp_path / "models" / "a" / "b")     # depth 3: GE's last level
    single_op_models(ops["Sqrt"], tmp_path / "models" / "a" / "b" / "c")  # too deep: not loaded
    (tmp_path / "models" / "broken.om").write_bytes(b"not a model")   # skipped with a warning
    (tmp_path / "models" / "notes.txt").write_text("ignored")
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT / 'tests' / 'op')!r})
        sys.path.insert(0, {str(ROOT / 'tests')!r})
        import numpy as np
        import acl, ascendcl as c
        from op_helpers import OpTensors, Out, execute
        assert c.aclInit("") == 0 and c.aclrtSetDevice(0) == 0
        assert acl.op.set_model_dir({str(tmp_path / 'missing')!r}) == c.ACL_ERROR_READ_MODEL_FAILURE
        assert acl.op.set_model_dir({str(tmp_path / 'models')!r}) == 0, c.aclGetRecentErrMsg()
        assert c.aclopSetModelDir({str(tmp_path / 'models')!r}) == c.ACL_ERROR_REPEAT_INITIALIZE
        x = np.array([1.0, 4.0, 9.0, 16.0], np.float32)
        for op, want in (("Abs", 0), ("Neg", 0), ("Exp", 0), ("Sqrt", c.ACL_ERROR_OP_NOT_FOUND)):
            with OpTensors([x], [Out(np.float32, [4])]) as t:
                got = execute(op, t.ins, t.outs, 0, 0)
                assert got == want, (op, got, c.aclGetRecentErrMsg())
        assert c.aclrtSynchronizeDevice() == 0
        print("ok")
    """)
    result = run_python(code)
    assert result.returncode == 0 and "ok" in result.stdout, result.stderr + result.stdout

