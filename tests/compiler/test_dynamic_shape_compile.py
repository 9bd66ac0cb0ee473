"""atc for dynamic-shape models (-1, lo~hi ranges and -2 in --input_shape without a gear option): the console
says so and lists the shape-dependent nodes, the .om is format 1.4 with the DYNAMIC_SHAPE flag, GE's
is_unknow_model header byte, -1 dims, ranges and no static memory plan (docs/om-format.md §11); a static
model still writes format 1.3 exactly as before; and what cannot run dynamically is refused naming it."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from ascendsim.compiler import om_format as F
from ascendsim.compiler.atc import SUCCESS, main
from ascendsim.compiler.build import compile
from ascendsim.compiler.build_options import parse_input_shape
from ascendsim.compiler.dynamic_shape import RUNTIME_SHAPE_OPS
from ascendsim.compiler.errors import CompileError
from ascendsim.compiler.om_reader import read_om
from ascendsim.show import describe, format_description

sys.path.insert(0, str(Path(__file__).parents[1] / "model"))
from dynamic_models import tiny_bert, tiny_convnet


def test_input_shape_ranges_and_unknown_rank_parse() -> None:
    ranges: dict[str, list[tuple[int, int]]] = {}
    shapes = parse_input_shape("input_ids:1,1~512;x:-2;y:-1,4;z:2~-1", ranges)
    assert shapes == {"input_ids": [1, -1], "x": [-2], "y": [-1, 4], "z": [-1]}
    assert ranges == {"input_ids": [(1, 1), (1, 512)], "y": [(1, -1), (4, 4)], "z": [(2, -1)]}
    for bad, message in [("a:3~2", "1 <= lo <= hi"), ("a:0~4", "1 <= lo"), ("a:1,-2", "only dim"),
                         ("a:-3", r"-2 \(unknown rank\)"), ("a:1~x", "not an integer or a range")]:
        with pytest.raises(CompileError, match=message):
            parse_input_shape(bad, {})


def test_atc_compiles_a_dynamic_bert(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    onnx.save(tiny_bert(), tmp_path / "bert.onnx")
    code = main([f"--model={tmp_path / 'bert.onnx'}", "--framework=5", f"--output={tmp_path / 'bert'}",
                 "--soc_version=Ascend910B1",
                 ("--input_shape=input_ids:1~4,1~512;attention_mask:1~4,1~512;token_type_ids:1~4,1~512")])
    out = capsys.readouterr().out
    assert code == 0 and SUCCESS in out, out
    assert "[Build] dynamic shape model: v2 runtime" in out and "input_ids:1~4,1~512" in out
    assert "nodes are shape-dependent: /embeddings/word_embeddings/Gather" in out
    om = read_om(tmp_path / "bert.om")
    assert om.model["format_version"] == "1.4" and om.model["dynamic_shape"] and om.header["is_unknow_model"] == 1
    assert om.plans[0]["feature_map_size"] == 0 and om.plans[0]["stream_count"] == 1
    inputs = om.inout["inputs"]
    assert inputs[0]["dims"] == [-1, -1] and inputs[0]["shape_range"] == [[1, 4], [1, 512]]
    assert inputs[0]["size"] == 4 * 512 * 8  # bounded: the largest shape
    assert om.inout["outputs"][0]["dims"] == [-1, -1, 32] and om.inout["outputs"][0]["size"] == 0
    flagged = [n["name"] for n in om.plans[0]["nodes"] if "SHAPE_DEPENDENT" in n["flags"]]
    assert "/embeddings/Slice" in flagged and len(flagged) < len(om.plans[0]["nodes"])


def test_unknown_rank_and_static_models(tmp_path: Path) -> None:
    conv = tiny_convnet()
    result = compile(conv, tmp_path / "any", soc_version="Ascend910B1", input_shape="image:-2")
    assert result.dynamic is not None and result.dynamic.ranges == {"image": []}
    assert read_om(result.output).inout["inputs"][0]["dims"] == [-2]
    shown = format_description(describe(read_om(result.output)))
    assert "dynamic shapes" in shown and "runtime: v2 (dynamic shape" in shown and "(shape-dependent)" in shown
    assert "image: FLOAT NCHW [-2], 0 bytes" in shown and "feature map: allocated per execution" in shown
    static = compile(conv, tmp_path / "static", soc_version="Ascend910B1", input_shape="image:1,3,16,16")
    assert "runtime: v1 (static: task sink)" in format_description(describe(read_om(static.output)))
    om = read_om(static.output)
    assert static.dynamic is None and om.model["format_version"] == f"1.{F.STATIC_FORMAT_MINOR}"
    assert not om.model["dynamic_shape"] and om.header["is_unknow_model"] == 0
    assert all("SHAPE_DEPENDENT" not in n["flags"] for n in om.plans[0]["nodes"])
    again = compile(conv, tmp_path / "static2", soc_version="Ascend910B1", input_shape="image:1,3,16,16")
    assert static.output.read_bytes() == again.output.read_bytes()


def test_refusals_name_what_cannot_run(tmp_path: Path) -> None:
    graph = helper.make_graph([helper.make_node("Det", ["x"], ["y"])], "det",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 2, 2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n"])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(CompileError, match=r"node '[^']*' \(Det\): op Det has no runtime shape function"):
        compile(model, tmp_path / "c", soc_version="Ascend910B1", input_shape="x:-1,2,2")
    with pytest.raises(CompileError, match=r"ranges \(lo~hi\) cannot be used with --dynamic_batch_size"):
        compile(tiny_convnet(), tmp_path / "g", soc_version="Ascend910B1", input_shape="image:1~4,3,16,16",
                dynamic_batch_size="1,2")
    with pytest.raises(CompileError, match="unknown-rank input"):
        compile(tiny_convnet(), tmp_path / "g", soc_version="Ascend910B1", input_shape="image:-2",
                dynamic_batch_size="1,2")


def test_the_compilers_list_is_the_runtimes_table() -> None:
    """RUNTIME_SHAPE_OPS (what atc lets into a dynamic-shape model) names exactly the op types the runtime
    registers a shape function for (csrc/model/shape_fns*.cpp)."""
    registered: set[str] = set()
    for source in (Path(__file__).parents[2] / "csrc" / "model").glob("shape_fns*.cpp"):
        text = source.read_text()
        registered |= {op for op in re.findall(r"ASCENDSIM_SHAPE_FN\((\w+), \"\"", text)}
        for group in re.findall(r"ASCENDSIM_SHAPES\(\w+,((?:\s*\"\w+\",?)+)\);", text):
            registered |= set(re.findall(r"\"(\w+)\"", group))
        registered |= {f"{domain}::{op}" for op, domain in
                       re.findall(r"register_shape_fn\(\"(\w+)\", \"(\w+)\"", text)}
    assert len(registered) > 100
    assert registered == RUNTIME_SHAPE_OPS, (registered ^ RUNTIME_SHAPE_OPS)

