"""The .om file: GE header layout, partition table, round trip of every model through om_reader, weights
byte-exact, tasks and events, attributes, validation of corrupt files, atomic writes, precision marks,
dynamic gears."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import numpy as np
import pytest
from backend_models import MODELS

from ascendsim.compiler import om_format as F
from ascendsim.compiler.build import compile
from ascendsim.compiler.errors import CompileError
from ascendsim.compiler.ir import DType, Graph
from ascendsim.compiler.memory import check_plan, plan_memory, plan_weights
from ascendsim.compiler.om_attrs import AttrBlob, StringTable, decode_attrs
from ascendsim.compiler.om_reader import OmFormatError, parse_om, read_om
from ascendsim.compiler.om_writer import OmModel, OmPlan, write_om
from ascendsim.compiler.streams import assign_streams


@pytest.mark.parametrize("name", sorted(MODELS))
def test_round_trip(name: str, tmp_path: Path) -> None:
    result = compile(MODELS[name]().SerializeToString(), tmp_path / name, soc_version="Ascend910B1")
    assert result.output == tmp_path / f"{name}.om"
    raw = result.output.read_bytes()
    assert len(raw) == result.file_size
    magic, headsize, version = struct.unpack_from("<III", raw)
    assert raw[:4] == b"IMOD" and magic == 0x444F4D49 and headsize == 256 and version == 0x20000000
    assert struct.unpack_from("<Q", raw, 184)[0] == len(raw) - 256
    assert raw[160:171] == b"Ascend910B1" and raw[193] == 0
    om = read_om(result.output)
    weights_offset = om.partitions["WEIGHTS_DATA"][0]
    assert weights_offset % 512 == 0
    plan = om.plans[0]
    graph = result.graph
    assert [n["op_type"] for n in plan["nodes"]] == [n.op_type for n in graph.nodes]
    assert [n["stream"] for n in plan["nodes"]] == [n.stream for n in graph.nodes]
    assert plan["feature_map_size"] == result.memory.arena_size
    assert plan["event_count"] == result.streams.event_count
    by_name = {t["name"]: t for t in plan["tensors"]}
    for value in result.weights.order:
        np.testing.assert_array_equal(om.weight_array(0, value.name), value.data)
    for name_, offset in result.memory.offsets.items():
        assert by_name[name_]["kind"] == "FEATURE_MAP" and by_name[name_]["offset"] == offset
    kinds = [t["kind"] for t in plan["tensors"]]
    assert kinds.count("INPUT") == len(graph.inputs) and kinds.count("OUTPUT") == len(graph.outputs)
    tasks = om.tasks[0]
    assert sum(t["type"] == "KERNEL" for t in tasks) == len(graph.nodes)
    assert sum(t["type"] == "EVENT_WAIT" for t in tasks) == len(result.streams.events)
    assert [d["name"] for d in om.inout["inputs"]] == [v.name for v in graph.inputs]
    assert om.inout["inputs"][0]["size"] == graph.inputs[0].nbytes
    for node, record in zip(graph.nodes, plan["nodes"]):
        assert set(record["attrs"]) == {k for k, v in node.attrs.items() if v is not None}


def test_attributes_round_trip() -> None:
    strings = StringTable()
    blob = AttrBlob(strings)
    attrs = {"i": -3, "f": 0.5, "s": "Relu", "ints": [1, -2], "floats": [1.5, 2], "strs": ["a", "b"],
             "t": np.arange(6, dtype=np.float32).reshape(2, 3), "b": True, "none": None,
             "program": [{"op": "Add", "inputs": [0, 1], "attrs": {}}, {"op": "Relu", "inputs": [2],
                                                                       "attrs": {"alpha": 0.1}}]}
    offset, count = blob.add_attrs(attrs, "test")
    back = decode_attrs(bytes(blob.data), strings.data(), offset, count)
    np.testing.assert_array_equal(back.pop("t"), attrs["t"])
    assert back == {"i": -3, "f": 0.5, "s": "Relu", "ints": [1, -2], "floats": [1.5, 2.0], "strs": ["a", "b"],
                    "b": 1, "program": attrs["program"]}
    with pytest.raises(TypeError, match="cannot be stored"):
        blob.add_attrs({"x": object()}, "node 'n'")


def _small_om(tmp_path: Path) -> bytes:
    result = compile(MODELS["mobilenet"]().SerializeToString(), tmp_path / "m")
    return result.output.read_bytes()  # type: ignore[union-attr]


@pytest.mark.parametrize(("offset", "value", "message"), [
    (0, b"XXXX", "bad magic"), (4, struct.pack("<I", 100), "headsize"), (184, struct.pack("<Q", 5), "payload length"),
    (256, struct.pack("<I", 7), "partition count"), (12, b"\1", "checksum"),
])
def test_corrupt_files_are_rejected(tmp_path: Path, offset: int, value: bytes, message: str) -> None:
    raw = bytearray(_small_om(tmp_path))
    raw[offset:offset + len(value)] = value
    with pytest.raises(OmFormatError, match=message):
        parse_om(bytes(raw))


def test_truncated_and_garbage(tmp_path: Path) -> None:
    raw = _small_om(tmp_path)
    with pytest.raises(OmFormatError, match="payload length"):
        parse_om(raw[:-1])
    with pytest.raises(OmFormatError, match="shorter"):
        parse_om(b"IMOD")
    model_def = parse_om(raw).partitions["MODEL_DEF"][0]
    bad = bytearray(raw)
    bad[model_def:model_def + 4] = b"XXXX"
    with pytest.raises(OmFormatError, match="MODEL_DEF magic"):
        parse_om(bytes(bad), verify_checksum=False)
    with pytest.raises(OmFormatError, match="cannot read"):
        read_om(tmp_path / "missing.om")


def test_large_weights_streamed_and_no_partial_file_on_failure(tmp_path: Path) -> None:
    g = Graph("big")
    x = g.value("x", DType.FLOAT, (1, 1024))
    g.inputs.append(x)
    w = g.constant("w", np.random.default_rng(0).standard_normal((1024, 25600)).astype(np.float32))  # 100 MiB
    y = g.add_node("MatMul", [x, w]).outputs[0]
    y.dtype, y.shape = DType.FLOAT, (1, 25600)
    g.outputs.append(y)
    streams = assign_streams(g)
    model = OmModel("big", "Ascend910B", [OmPlan(g, streams, plan_memory(g, streams))], plan_weights(g))
    path = tmp_path / "big.om"
    write_om(path, model)
    om = read_om(path, verify_checksum=False)
    np.testing.assert_array_equal(om.weight_array(0, "w"), w.data)
    # a failure while writing (a constant that cannot be written) leaves neither the file nor a temp file
    g.nodes[0].attrs["bad"] = object()
    with pytest.raises(TypeError):
        write_om(tmp_path / "bad.om", model)
    assert sorted(os.listdir(tmp_path)) == ["big.om"]


def test_unwritable_output(tmp_path: Path) -> None:
    with pytest.raises(CompileError, match="cannot write"):
        compile(MODELS["mobilenet"]().SerializeToString(), tmp_path / "missing_dir" / "m")


@pytest.mark.parametrize(("mode", "cube", "vector"), [
    ("force_fp16", 3, 1), ("allow_fp32_to_fp16", 3, 0), ("force_fp32", 0, 0), ("must_keep_origin_dtype", 0, 0),
    (None, 3, 1)])
def test_precision_marks(mode: str | None, cube: int, vector: int, tmp_path: Path) -> None:
    result = compile(MODELS["bert"]().SerializeToString(), tmp_path / "b", precision_mode=mode)
    om = read_om(result.output)  # type: ignore[arg-type]
    for node in om.plans[0]["nodes"]:
        expected = cube if node["op_type"] in ("MatMul", "Gemm", "Conv") else vector
        flags = sum(F.NodeFlag[f] for f in node["flags"] if f != "VIEW")
        assert flags == expected, node
    with pytest.raises(CompileError, match="not supported"):
        compile(MODELS["bert"]().SerializeToString(), precision_mode="fp8")


def test_input_fp16_and_output_type(tmp_path: Path) -> None:
    result = compile(MODELS["mobilenet"]().SerializeToString(), tmp_path / "m", input_fp16_nodes="input",
                     output_type="FP16")
    om = read_om(result.output)  # type: ignore[arg-type]
    assert om.inout["inputs"][0]["dtype"] == "FLOAT16" and om.inout["outputs"][0]["dtype"] == "FLOAT16"
    assert om.inout["inputs"][0]["name"] == "input"
    ops = [n["op_type"] for n in om.plans[0]["nodes"]]
    assert ops[0] == "Cast" and ops[-1] == "Cast"
    with pytest.raises(CompileError, match="not a model input"):
        compile(MODELS["mobilenet"]().SerializeToString(), input_fp16_nodes="nope")
    with pytest.raises(CompileError, match="output_type"):
        compile(MODELS["mobilenet"]().SerializeToString(), output_type="FP8")


def test_dynamic_batch_gears(tmp_path: Path) -> None:
    model = MODELS["resnet"](batch="N").SerializeToString()
    result = compile(model, tmp_path / "dyn", input_shape="input:-1,3,32,32", dynamic_batch_size="1,2,4")
    assert [p.gear for p in result.plans] == [(1,), (2,), (4,)]
    for plan in result.plans:
        check_plan(plan.graph, plan.streams, plan.memory)
    om = read_om(result.output)  # type: ignore[arg-type]
    assert om.model["dynamic_type"] == "DYNAMIC_BATCH" and om.inout["dynamic_batch"] == [1, 2, 4]
    inputs = om.inout["inputs"]
    assert [d["name"] for d in inputs] == ["input", F.DYNAMIC_INPUT_NAME]
    assert inputs[0]["dims"] == [-1, 3, 32, 32] and inputs[0]["size"] == 4 * 3 * 32 * 32 * 4
    assert inputs[1]["dtype"] == "INT32" and inputs[1]["size"] == 4
    assert om.plans[2]["feature_map_size"] > om.plans[0]["feature_map_size"]
    assert om.model["weight_size"] == result.weights.size


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"input_shape": "input:1,3,x,32"}, "not an integer"), ({"input_shape": "input1,3"}, "name:dim"),
    ({"input_shape": "other:1,3,32,32"}, "does not have|not model input"),
    ({"input_shape": "input:1~4,3,32,32", "dynamic_batch_size": "1,2"}, "ranges"),
    ({"input_shape": "input:-1,3,32,32", "dynamic_batch_size": "1"}, "2 to 100"),
    ({"input_shape": "input:-1,3,32,32", "dynamic_batch_size": "1,2", "dynamic_dims": "1;2"}, "together"),
    ({"input_shape": "input:1,3,32,32", "dynamic_batch_size": "1,2"}, "-1"),
    ({"input_format": "NC1HWC0"}, "input_format"), ({"out_nodes": "nope:0"}, "out_nodes"),
    ({"insert_op_conf": "aipp.cfg"}, "AIPP"),
])
def test_bad_options(kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(CompileError, match=message):
        compile(MODELS["resnet"](batch="N").SerializeToString(), **kwargs)
