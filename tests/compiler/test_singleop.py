"""`atc --singleop=list.json --output=<dir>`: ATC's single-operator JSON (every attribute type, dynamic shapes
with ranges, constant inputs), GE's file names, every error path with ATC's code and exit 255, and the files
read back by the Python reader (om_reader.py) and the C++ loader (aclmdlGetDescFromFile / QuerySizeFromMem)
as docs/om-format.md §10 describes them."""

from __future__ import annotations

import json
import re
import runpy
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import acl
import ascendcl as C
from ascendsim.compiler import singleop_json
from ascendsim.compiler._cann_ops import CANN_OPS
from ascendsim.compiler.atc import FAILED, START, SUCCESS, main
from ascendsim.compiler.ir import DType
from ascendsim.compiler.om_reader import read_om

ROOT = Path(__file__).resolve().parents[2]
SOC = "--soc_version=Ascend910B"


def tensor(shape: list[int], dtype: str = "float32", fmt: str = "ND", **extra: Any) -> dict[str, Any]:
    return {"format": fmt, "shape": shape, "type": dtype, **extra}


# The official sample's list (samples .../acl_execute_add/run/out/test_data/config/add_op.json, op "Add").
ADD_SAMPLE = [{"op": "Add", "input_desc": [tensor([8, 16], "int32"), tensor([8, 16], "int32")],
               "output_desc": [tensor([8, 16], "int32")]}]
ADD_SAMPLE_FILE = "0_Add_3_2_8_16_3_2_8_16_3_2_8_16.om"

EVERY_ATTR = [
    {"name": "b", "type": "bool", "value": True},
    {"name": "i", "type": "int", "value": -7},
    {"name": "i_trunc", "type": "int", "value": 2.9},  # nlohmann's get<int64_t> truncates a float
    {"name": "f", "type": "float", "value": 0.1},  # stored as the C float ATC keeps
    {"name": "s", "type": "string", "value": "NCHW"},
    {"name": "lb", "type": "list_bool", "value": [True, False]},
    {"name": "li", "type": "list_int", "value": [1, -2, 3]},
    {"name": "lf", "type": "list_float", "value": [0.5, 1]},
    {"name": "lf_empty", "type": "list_float", "value": []},
    {"name": "ls", "type": "list_string", "value": ["a", "", "b"]},
    {"name": "lli", "type": "list_list_int", "value": [[1, 2], [], [3]]},
    {"name": "dt_name", "type": "data_type", "value": "DT_FLOAT16"},
    {"name": "dt_number", "type": "data_type", "value": 3},
]
EVERY_ATTR_DECODED = {"b": True, "i": -7, "i_trunc": 2, "f": float(np.float32(0.1)), "s": "NCHW",
                      "lb": [True, False], "li": [1, -2, 3], "lf": [0.5, 1.0], "lf_empty": [], "ls": ["a", "", "b"],
                      "lli": [[1, 2], [], [3]], "dt_name": DType.FLOAT16, "dt_number": DType.INT32}


def run_atc(capsys: pytest.CaptureFixture[str], ops: Any, out: Path, *extra: str) -> tuple[int, str]:
    out.parent.mkdir(parents=True, exist_ok=True)
    path = out.parent / "ops.json"
    if isinstance(ops, bytes):
        path.write_bytes(ops)
    else:
        path.write_text(ops if isinstance(ops, str) else json.dumps(ops))
    code = main([f"--singleop={path}", f"--output={out}", SOC, *extra])
    return code, capsys.readouterr().out


def om_files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.glob("*")) if directory.exists() else []


def c_desc(path: Path) -> int:
    desc = C.aclmdlCreateDesc()
    assert C.aclmdlGetDescFromFile(desc, str(path)) == 0, C.aclGetRecentErrMsg()
    return desc


def c_accepts(image: bytes) -> bool:
    _work, _weight, ret = C.aclmdlQuerySizeFromMem(acl.util.bytes_to_ptr(image), len(image))
    C.aclGetRecentErrMsg()
    return ret == 0


# ---- the sample and the format ---------------------------------------------------------------------------------

def test_official_add_sample(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "op_models"
    code, text = run_atc(capsys, ADD_SAMPLE, out)
    assert code == 0, text
    assert text.splitlines()[0] == START and text.splitlines()[-1] == SUCCESS
    assert om_files(out) == [ADD_SAMPLE_FILE]
    om = read_om(out / ADD_SAMPLE_FILE)
    assert om.model["format_version"] == "1.3" and om.model["single_op"] and om.model["flags"] == 2
    assert om.model["name"] == ADD_SAMPLE_FILE[:-3] and om.header["name"] == ADD_SAMPLE_FILE[:31]
    assert om.model["dynamic_type"] == "FIXED" and om.header["platform_version"] == "Ascend910B"
    plan = om.plans[0]
    assert plan["feature_map_size"] == 0 and plan["stream_count"] == 1 and plan["event_count"] == 0
    assert plan["nodes"] == [{"name": "Add", "op_type": "Add", "domain": "cann", "stream": 0, "inputs": [0, 1],
                              "outputs": [2], "attrs": {}, "flags": []}]
    assert [(t["name"], t["kind"], t["dtype"], t["format"], t["dims"], t["size"], t["io_index"])
            for t in plan["tensors"]] == [("__input0", "INPUT", "INT32", "ND", [8, 16], 512, 0),
                                          ("__input1", "INPUT", "INT32", "ND", [8, 16], 512, 1),
                                          ("__output0", "OUTPUT", "INT32", "ND", [8, 16], 512, 0)]
    assert om.tasks == [[{"type": "KERNEL", "stream": 0, "arg": 0, "node": 0}]]
    assert [d["name"] for d in om.inout["inputs"]] == ["__input0", "__input1"]
    assert all(d["shape_range"] == [] and d["size"] == 512 for d in om.inout["inputs"] + om.inout["outputs"])
    desc = c_desc(out / ADD_SAMPLE_FILE)
    assert C.aclmdlGetNumInputs(desc) == 2 and C.aclmdlGetNumOutputs(desc) == 1
    assert C.aclmdlGetInputDims(desc, 1) == ({"name": "__input1", "dimCount": 2, "dims": [8, 16]}, 0)
    assert C.aclmdlGetInputDataType(desc, 0) == C.ACL_INT32 and C.aclmdlGetInputFormat(desc, 0) == C.ACL_FORMAT_ND
    assert C.aclmdlDestroyDesc(desc) == 0


def test_the_samples_custom_op_is_refused_as_atc_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The sample itself names its custom op AddDsl: no CANN kernel for it (EZ3003), no file."""
    sample = [dict(ADD_SAMPLE[0], op="AddDsl")]
    code, text = run_atc(capsys, sample, tmp_path / "out")
    assert code == 255 and FAILED in text and SUCCESS not in text
    assert "EZ3003: No supported Ops kernel and engine are found for [AddDsl], optype [AddDsl]." in text
    assert om_files(tmp_path / "out") == []


def test_every_attribute_type(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ops = [dict(ADD_SAMPLE[0], name="attrs", attr=EVERY_ATTR)]
    code, text = run_atc(capsys, ops, tmp_path / "out")
    assert code == 0, text
    om = read_om(tmp_path / "out" / "attrs.om")
    assert om.plans[0]["nodes"][0]["attrs"] == EVERY_ATTR_DECODED
    assert isinstance(om.plans[0]["nodes"][0]["attrs"]["b"], bool)
    assert c_accepts((tmp_path / "out" / "attrs.om").read_bytes())
    # atc --mode=1 dumps it like any model (data types as their aclDataType numbers)
    assert main(["--mode=1", f"--om={tmp_path / 'out' / 'attrs.om'}", f"--json={tmp_path / 'attrs.json'}"]) == 0
    dumped = json.loads((tmp_path / "attrs.json").read_text())["plans"][0]["nodes"][0]["attrs"]
    assert dumped == {**EVERY_ATTR_DECODED, "dt_name": 1, "dt_number": 3}


def test_dynamic_shapes_with_ranges(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ops = [{"op": "Add", "name": "dyn",
            "input_desc": [tensor([-1, 16, -1], shape_range=[[1, 8], [2, -1]]), tensor([-2])],
            "output_desc": [tensor([-1, 16, -1], shape_range=[[1, 8], [2, -1]])]}]
    code, text = run_atc(capsys, ops, tmp_path / "out")
    assert code == 0, text
    path = tmp_path / "out" / "dyn.om"
    om = read_om(path)
    tensors = om.plans[0]["tensors"]
    assert [(t["dims"], t["size"]) for t in tensors] == [([-1, 16, -1], 0), ([-2], 0), ([-1, 16, -1], 0)]
    first, second = om.inout["inputs"]
    assert first["dims"] == first["dims_v2"] == [-1, 16, -1] and first["size"] == 0
    assert first["shape_range"] == [[1, 8], [16, 16], [2, -1]]  # GE SetShapeRange: (d, d) for static dims
    assert second["dims"] == [-2] and second["shape_range"] == []
    desc = c_desc(path)
    assert C.aclmdlGetInputDims(desc, 0)[0]["dims"] == [-1, 16, -1]
    assert C.aclmdlGetInputSizeByIndex(desc, 0) == 0
    assert C.aclmdlGetInputDimsRange(desc, 0) == ({"rangeCount": 3, "range": [[1, 8], [16, 16], [2, -1]]}, 0)
    assert C.aclmdlGetInputDims(desc, 1)[0]["dims"] == [-2]
    assert C.aclmdlDestroyDesc(desc) == 0


def test_constant_inputs_are_weights(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ops = [{"op": "Add", "name": "c",
            "input_desc": [tensor([2, 3], "float16"),
                           tensor([2, 3], "float16", is_const=True, const_value=[0.1, 1, 2, 3, 4, 65504])],
            "output_desc": [tensor([2, 3], "float16")]},
           {"op": "Add", "name": "u8", "input_desc": [tensor([3], "uint8", is_const=True, const_value=[1, 255, 256]),
                                                      tensor([3], "uint8")],
            "output_desc": [tensor([3], "uint8")]}]
    code, text = run_atc(capsys, ops, tmp_path / "out")
    assert code == 0, text
    om = read_om(tmp_path / "out" / "c.om")
    assert om.model["input_count"] == 1 and om.model["weight_size"] == 512
    node = om.plans[0]["nodes"][0]
    kinds = [om.plans[0]["tensors"][t]["kind"] for t in node["inputs"]]
    assert kinds == ["INPUT", "WEIGHT"]  # JSON order kept on the node; the constant is no model input
    np.testing.assert_array_equal(om.weight_array(0, "__input1"),
                                  np.array([[0.1, 1, 2], [3, 4, 65504]], np.float16))
    om = read_om(tmp_path / "out" / "u8.om")
    np.testing.assert_array_equal(om.weight_array(0, "__input0"), np.array([1, 255, 0], np.uint8))  # C narrowing
    assert [t["io_index"] for t in om.plans[0]["tensors"] if t["kind"] == "INPUT"] == [0]
    assert c_accepts((tmp_path / "out" / "c.om").read_bytes())


# ---- file names (GE GenerateFileName) ---------------------------------------------------------------------------

def test_file_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    add = ADD_SAMPLE[0]
    ops = [
        {"compile_flag": 1},  # GE: sets compile_flag for the rest, produces no model and no index
        dict(add, name="named-op.v1_2"),
        dict(add, name="has space"),  # not a valid file name: generated, index 1
        dict(add, name=".."),
        dict(add, name="x" * 200),
        {"op": "Relu", "input_desc": [tensor([-1, 4], "float16", "NCHW", shape_range=[[1, 2]])],
         "output_desc": [tensor([-1, 4], "float16", "NCHW", shape_range=[[1, 2]])]},
        {"op": "Add", "input_desc": [tensor(list(range(1, 9)), "float32")] * 2,
         "output_desc": [tensor(list(range(1, 9)), "float32")]},
    ]
    code, text = run_atc(capsys, ops, tmp_path / "out")
    assert code == 0, text
    long_name = "5_Add" + "_0_2_1_2_3_4_5_6_7_8" * 3
    assert om_files(tmp_path / "out") == sorted([
        "named-op.v1_2.om", "1_Add_3_2_8_16_3_2_8_16_3_2_8_16.om", "2_Add_3_2_8_16_3_2_8_16_3_2_8_16.om",
        "x" * 128 + ".om", "4_Relu_1_0_-1_4_1_0_-1_4.om", long_name[:128] + ".om"])
    assert read_om(tmp_path / "out" / "1_Add_3_2_8_16_3_2_8_16_3_2_8_16.om").plans[0]["nodes"][0]["name"] == \
        "has space"  # the node keeps the entry's name


def test_tensor_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ops = [{"op": "ConcatD", "name": "cat",
            "input_desc": [tensor([2], name="ignored", dynamic_input="x"), tensor([2], dynamic_input="x"),
                           tensor([2], name="extra")],
            "output_desc": [tensor([6], name="y")], "attr": [{"name": "concat_dim", "type": "int", "value": 0}]}]
    code, text = run_atc(capsys, ops, tmp_path / "out")
    assert code == 0, text
    tensors = read_om(tmp_path / "out" / "cat.om").plans[0]["tensors"]
    assert [t["name"] for t in tensors] == ["x0", "x1", "extra", "y"]


def test_output_directory_is_created_and_repeated_names_overwrite(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    ops = [dict(ADD_SAMPLE[0], name="same"), dict(ADD_SAMPLE[0], name="same", attr=EVERY_ATTR[:1])]
    code, text = run_atc(capsys, ops, tmp_path / "a" / "b")
    assert code == 0, text
    assert om_files(tmp_path / "a" / "b") == ["same.om"]
    assert read_om(tmp_path / "a" / "b" / "same.om").plans[0]["nodes"][0]["attrs"] == {"b": True}


# ---- errors ------------------------------------------------------------------------------------------------------

def bad_type(**changes: Any) -> list[dict[str, Any]]:
    return [dict(ADD_SAMPLE[0], input_desc=[dict(tensor([8, 16], "int32"), **changes), tensor([8, 16], "int32")])]


def with_attr(**attr: Any) -> list[dict[str, Any]]:
    return [dict(ADD_SAMPLE[0], attr=[attr])]


def with_input(item: dict[str, Any]) -> list[dict[str, Any]]:
    return [dict(ADD_SAMPLE[0], input_desc=[item, tensor([8, 16], "int32")])]


ERRORS = [
    ("[{", ("E10025: File .* specified by --singleop is not a valid JSON file. Reason: "
           r"\[json.exception.parse_error.101\] parse error at line 1")),
    ("", "E10025"),
    ({"op": "Add"}, (r"E10032: Parse json file .* failed. Reason: \[json.exception.type_error.302\] type must be "
                    "array, but is object")),
    ([dict(ADD_SAMPLE[0], input_desc=[{"format": "ND", "type": "int32"}])],
     r"E10032: .*\[json.exception.out_of_range.403\] key 'shape' not found"),
    ([dict(ADD_SAMPLE[0], input_desc=[{"shape": [1], "type": "int32"}])], "key 'format' not found"),
    (bad_type(shape="8,16"), "type must be array, but is string"),
    (bad_type(shape=[8, "16"]), "type must be number, but is string"),
    (bad_type(is_const="yes"), "type must be boolean, but is string"),
    ([{"input_desc": []}], "E10026: The Op name is empty in the file specified by --singleop."),
    ([dict(ADD_SAMPLE[0], op="")], "E10026"),
    ([5], "E10026"),
    ([dict(ADD_SAMPLE[0], op=5)], "E10032: .*type must be string, but is number"),
    ([{"op": "Add", "output_desc": ADD_SAMPLE[0]["output_desc"]}],  # no input_desc: 0 inputs
     ("E13014: Value 0 of parameter input size for Op Add is invalid. Reason: The number of actual input in "
     r"operator is less than the required number of inputs \(2\).")),
    ([dict(ADD_SAMPLE[0], name="a1", output_desc=[])], "E13014: Value 0 of parameter output size for Op a1"),
    (bad_type(type="int33"), ("E10027: Attribute datatype of input tensor 0 for Op Add is invalid when --singleop is "
                             "specified.")),
    (bad_type(format="NCHWX"), "E10027: Attribute format of input tensor 0"),
    (bad_type(type="x", format="y"), "E10027: Attribute dataType or format of input tensor 0"),
    (bad_type(origin_format="y"), "E10027: Attribute dataType or format of input tensor 0"),
    ([dict(ADD_SAMPLE[0], output_desc=[tensor([8, 16], "int33")])], "E10027: Attribute datatype of output tensor 0"),
    ([dict(ADD_SAMPLE[0], output_desc=[tensor([8, 16], "int32", "NCHWX")])],
     "E10027: Attribute format of output tensor 0"),
    (bad_type(type="bfloat16"), ("E10055: The operation is not supported. Reason: data type bfloat16 of input tensor 0 "
                                "of Op Add is not supported by ascendsim")),
    (bad_type(format="NC1C0HWPAD"), "E10055: .*format NC1C0HWPAD"),
    (with_attr(name="", type="int", value=1), "E10029: Attribute name of Op Add is empty"),
    (with_attr(name="a", type="list_data_type", value=[1]),
     "E10030: There is an invalid value for attribute name a of Op Add in the file specified by --singleop."),
    (with_attr(name="a", type="tensor", value=1), "E10030"),
    (with_attr(name="a", type="data_type", value="DT_NOPE"), "E10030"),
    (with_attr(name="a", type="data_type", value="DT_BF16"), "E10055: .*DT_BF16"),
    (with_attr(name="a", type="data_type", value=27), "E10055: .*data type 27"),
    (with_attr(name="a", type="bool", value=1), "E10032: .*type must be boolean, but is number"),
    (with_attr(name="a", type="int", value=True), "type must be number, but is boolean"),
    (with_attr(name="a", type="list_list_int", value=[1]), "type must be array, but is number"),
    (with_attr(name="a", type="int"), "key 'value' not found"),
    (with_attr(type="int", value=1), "key 'name' not found"),
    (with_input(tensor([-1, 16], "int32")), ("E13014: Value 0 of parameter shape range num for Op Add is invalid. "
                                            "Reason: The number of dimensions with a configured shape range")),
    (with_input(tensor([8, 16], "int32", shape_range=[[1, 2]])), "E13014: Value 1 of parameter shape range num"),
    (with_input(tensor([-2, 16], "int32")), r"E13014: Value \[-2,16\] of parameter shape .* must be set to \{-2\}"),
    (with_input(tensor([-2], "int32", shape_range=[[1, 2]])), "shape range size .* shape range is not empty"),
    (with_input(tensor([-1], "int32", shape_range=[[1, 2, 3]])), ("parameter shape range 0 size .* actual number "
                                                                 "is 3")),
    (with_input(tensor([-1], "int32", shape_range=[[5, 2]])), "parameter shape range 0 for Op Add"),
    (with_input(tensor([-3], "int32")), "must be -1 .dynamic. or at least 0"),
    (with_input(tensor([1] * 9, "int32")), "rank of the input tensor exceeds 8"),
    (with_input(tensor([2], "int32", is_const=True)), "E13014: .*const_value.*needs a static shape"),
    (with_input(tensor([2], "int32", is_const=True, const_value=[1])), "const_value .* needs 2 elements"),
    (with_input(tensor([-1], "int32", shape_range=[[1, 2]], is_const=True, const_value=[1])), "static shape"),
    (with_input(tensor([1], "int32", is_const=True, const_value=["a"])), ("E10032: .*type must be number, but is "
                                                                          "string")),
    (b"\xff\xfe[", r"E10025: .*parse error at byte 1"),
]


@pytest.mark.parametrize(("ops", "message"), ERRORS)
def test_errors(ops: Any, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, text = run_atc(capsys, ops, tmp_path / "out")
    lines = text.splitlines()
    assert code == 255 and lines[:2] == [START, FAILED] and SUCCESS not in text, text
    assert re.search(message, lines[2]), text
    assert om_files(tmp_path / "out") == []


def test_unknown_op_fails_its_entry_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """As GE's BuildSingleOpModels: the failing entry is reported, the others are still written."""
    ops = [dict(ADD_SAMPLE[0], op="NoSuchOp", name="bad"), dict(ADD_SAMPLE[0], name="good")]
    code, text = run_atc(capsys, ops, tmp_path / "out")
    assert code == 255 and "EZ3003: No supported Ops kernel and engine are found for [bad], optype [NoSuchOp]." in text
    assert om_files(tmp_path / "out") == ["good.om"]


@pytest.mark.parametrize(("args", "message"), [
    (["--model=x.onnx"], "E10047: --singleop and --model are mutually exclusive."),
    (["--framework=5"], (r"E10001: Value \[.*ops.json\] for parameter \[--singleop\] is invalid. Reason: When "
                        "--singleop is specified, only one of the following parameters can be used")),
    (["--mode=1"], "E10001: .*--singleop"),
    (["--insert_op_conf=aipp.cfg"], "E10001: .*--singleop"),
    (["--soc_version="], r"E10054: The required parameter \[--soc_version\] for ATC is empty."),
])
def test_flag_errors(args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, text = run_atc(capsys, ADD_SAMPLE, tmp_path / "out", *args)
    assert code == 255 and re.search(message, text), text
    assert om_files(tmp_path / "out") == []


def test_path_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main([f"--singleop={tmp_path / 'missing.json'}", f"--output={tmp_path}", SOC])
    text = capsys.readouterr().out
    assert code == 255 and f"E10023: Value {tmp_path / 'missing.json'} for parameter --singleop is invalid." in text
    (tmp_path / "file").write_text("x")
    code, text = run_atc(capsys, ADD_SAMPLE, tmp_path / "file")
    assert code == 255 and "E10001" in text and "--output" in text


def test_unreadable_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def denied(_self: Path) -> bytes:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(singleop_json.Path, "read_bytes", denied)
    code, text = run_atc(capsys, ADD_SAMPLE, tmp_path / "out")
    assert code == 255 and re.search("E10024: Failed to open file .*ops.json specified by --singleop.", text), text


# ---- the one list of CANN op names ---------------------------------------------------------------------------------

def test_op_names_come_from_the_runtime_table() -> None:
    table = (ROOT / "csrc" / "op" / "cann_ops.def").read_text()
    names = re.findall(r"^CANN_OP\(\s*(\w+)", table, re.MULTILINE)
    assert sorted(CANN_OPS) == sorted(names) and "Add" in CANN_OPS and "TransData" in CANN_OPS


@pytest.mark.parametrize(("table", "message"), [
    ("CANN_OP(Add, Add, Binary, 2, 2, 1, \"\")\nCANN_OP(Add, Add, Binary, 2, 2, 1, \"\")\n", "listed twice"),
    ("CANN_OP(Add, Add)\n", "cannot read the columns"),
    ("// nothing\n", "lists no operator"),
])
def test_generator_refuses_a_broken_table(table: str, message: str, tmp_path: Path) -> None:
    generator = runpy.run_path(str(ROOT / "cmake" / "gen_cann_ops.py"))
    (tmp_path / "ops.def").write_text(table)
    with pytest.raises(SystemExit, match=message):
        generator["main"](str(tmp_path / "out.py"), str(tmp_path / "ops.def"))


def test_generator_output(tmp_path: Path) -> None:
    generator = runpy.run_path(str(ROOT / "cmake" / "gen_cann_ops.py"))
    (tmp_path / "ops.def").write_text("// x\nCANN_OP(SplitD, Split, Split, 1, 1, -1, \"\")\n"
                                      "CANN_OP(Add, Add, Binary, 2, 2, 1, \"\")\n")
    generator["main"](str(tmp_path / "out.py"), str(tmp_path / "ops.def"))
    assert runpy.run_path(str(tmp_path / "out.py"))["CANN_OPS"] == {"Add": (2, 1), "SplitD": (1, 0)}
