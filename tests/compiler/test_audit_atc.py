"""Audit of issue 3 point 11 and "Bad input" through the `atc` command line: each flag on a generated model
(--input_format and its ONNX default, --out_nodes, --precision_mode default, --log), opset 11 and 21 models,
ONNX external data, and every bad input -> ATC's failure line, exit 255, no .om (nor a temporary) left."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from backend_models import MODELS

from ascendsim.compiler import build
from ascendsim.compiler.atc import FAILED, START, SUCCESS, main
from ascendsim.compiler.om_reader import read_om
from onnx_models import resnet_block

BASE = ("--framework=5", "--soc_version=Ascend910B")


def atc(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main([*BASE, *args])
    return code, capsys.readouterr().out


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.rglob("*") if p.suffix in (".om", ".tmp") or ".om." in p.name)


@pytest.fixture
def inception(tmp_path: Path) -> Path:
    path = tmp_path / "inception.onnx"
    path.write_bytes(MODELS["inception"]().SerializeToString())
    return path


def test_input_format_default_is_nchw_for_onnx(inception: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """ATC: --input_format defaults to NCHW for ONNX; ND and NCDHW are the other ONNX values."""
    code, text = atc(capsys, f"--model={inception}", f"--output={tmp_path / 'a'}")
    assert code == 0, text
    assert read_om(tmp_path / "a.om").inout["inputs"][0]["format"] == "NCHW"
    code, text = atc(capsys, f"--model={inception}", f"--output={tmp_path / 'b'}", "--input_format=ND")
    assert code == 0, text
    om = read_om(tmp_path / "b.om")
    assert om.inout["inputs"][0]["format"] == "ND"
    assert next(t for t in om.plans[0]["tensors"] if t["kind"] == "INPUT")["format"] == "ND"
    code, text = atc(capsys, f"--model={inception}", f"--output={tmp_path / 'c'}", "--input_format=NC1HWC0")
    assert code == 255 and "--input_format" in text and not (tmp_path / "c.om").exists()


def test_bert_inputs_stay_nd_by_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "bert.onnx"
    model.write_bytes(MODELS["bert"]().SerializeToString())
    code, text = atc(capsys, f"--model={model}", f"--output={tmp_path / 'bert'}")
    assert code == 0, text
    assert {d["format"] for d in read_om(tmp_path / "bert.om").inout["inputs"]} == {"ND"}


def test_out_nodes_select_outputs_and_prune(inception: Path, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    relus = [n for n in onnx.load(inception).graph.node if n.op_type == "Relu"]
    wanted = [relus[0], relus[3]]
    code, text = atc(capsys, f"--model={inception}", f"--output={tmp_path / 'o'}",
                     "--out_nodes=" + ";".join(f"{n.name}:0" for n in wanted))
    assert code == 0, text
    om = read_om(tmp_path / "o.om")
    assert [d["name"] for d in om.inout["outputs"]] == [n.output[0] for n in wanted]
    full = read_om_after(capsys, inception, tmp_path)
    assert len(om.plans[0]["nodes"]) < len(full.plans[0]["nodes"])
    for bad in ("--out_nodes=nope:0", f"--out_nodes={wanted[0].name}:1", f"--out_nodes={wanted[0].name}"):
        code, text = atc(capsys, f"--model={inception}", f"--output={tmp_path / 'bad'}", bad)
        assert code == 255 and "--out_nodes" in text and FAILED in text
    assert not (tmp_path / "bad.om").exists()


def read_om_after(capsys: pytest.CaptureFixture[str], model: Path, tmp_path: Path) -> object:
    code, text = atc(capsys, f"--model={model}", f"--output={tmp_path / 'full'}")
    assert code == 0, text
    return read_om(tmp_path / "full.om")


def test_default_precision_and_log_levels(inception: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, text = atc(capsys, f"--model={inception}", f"--output={tmp_path / 'p'}", "--log=info")
    assert code == 0 and text.splitlines()[0] == START and text.splitlines()[-1] == SUCCESS
    for stage in ("import", "passes", "streams", "memory", "om"):
        assert f"[Build] {stage} ..." in text  # the progress display, one line per stage
    assert "streams" in text and "events" in text and "lower bound" in text and "no reuse" in text
    assert read_om(tmp_path / "p.om").model["precision_mode"] == "force_fp16"  # ATC's default on every SoC
    code, text = atc(capsys, f"--model={inception}", f"--output={tmp_path / 'q'}", "--log=error")
    assert code == 0 and "[Build] import ..." not in text


@pytest.mark.parametrize("opset", [11, 21])
def test_opset_11_and_21(opset: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / f"r{opset}.onnx"
    model.write_bytes(resnet_block(opset).SerializeToString())
    assert onnx.load(model).opset_import[0].version == opset
    code, text = atc(capsys, f"--model={model}", f"--output={tmp_path / 'r'}")
    assert code == 0, text
    assert read_om(tmp_path / "r.om").plans[0]["nodes"]


def test_external_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    proto = MODELS["resnet"]()
    model = tmp_path / "ext" / "resnet.onnx"
    model.parent.mkdir()
    external = onnx.ModelProto()
    external.CopyFrom(proto)
    onnx.save_model(external, model, save_as_external_data=True, all_tensors_to_one_file=True, location="w.bin",
                    size_threshold=0)
    assert (model.parent / "w.bin").stat().st_size > 1000
    code, text = atc(capsys, f"--model={model}", f"--output={tmp_path / 'ext_out'}", "--precision_mode=force_fp32")
    assert code == 0, text
    plain = build.compile(proto.SerializeToString(), precision_mode="force_fp32")
    om = read_om(tmp_path / "ext_out.om")
    for value in plain.weights.order:
        np.testing.assert_array_equal(om.weight_array(0, value.name), value.data)
    (model.parent / "w.bin").unlink()  # the external file is gone: a clear failure
    code, text = atc(capsys, f"--model={model}", f"--output={tmp_path / 'gone'}")
    assert code == 255 and FAILED in text and "w.bin" in text, text
    assert not (tmp_path / "gone.om").exists()
    # a ModelProto whose weights point to a file nobody loaded: a CompileError naming it, from the Python API
    with pytest.raises(build.CompileError, match=r"w\.bin"):
        build.compile(external.SerializeToString())


def _unsupported(path: Path) -> None:
    from onnx import TensorProto, helper

    node = helper.make_node("Multinomial", ["x"], ["y"], name="weird")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])])
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())


@pytest.mark.parametrize(("model", "extra", "message"), [
    ("missing.onnx", [], "does not exist"),
    ("empty.onnx", [], "ONNX model is invalid|cannot read ONNX"),
    ("corrupt.onnx", [], "cannot read ONNX"),
    ("truncated.onnx", [], "cannot read ONNX"),
    ("<dir>", [], "does not exist or cannot be read"),
    ("unsupported.onnx", [], "weird.*Multinomial"),
    ("good.onnx", ["--input_shape=input:1;3"], "not name:dim|not an integer|rank"),
    ("good.onnx", ["--input_shape=input:1,3,32,32,1"], "rank"),
    ("good.onnx", ["--input_shape=input:1,4,32,32"], "contradicts the model"),
    ("good.onnx", ["--input_shape=other:1,3,32,32"], "other"),
    ("good.onnx", ["--insert_op_conf=<bad_aipp>"], "E10052"),
    ("good.onnx", ["--insert_op_conf=<good_aipp>", "--input_format=ND"], "NCHW or NHWC"),
    ("good.onnx", ["--output=<out>/."], "directory"),
    ("good.onnx", ["--output=<out>"], "directory"),
    ("good.onnx", ["--output=/proc/ascendsim_x"], "cannot write"),
    ("good.onnx", ["--output=<out>/dir.om/x/y"], "not writable|does not exist"),
    ("good.onnx", ["--singleop=op.json"], "--singleop"),
    ("good.onnx", ["--framework=3"], "TensorFlow is not supported"),
])
def test_every_bad_input_fails_cleanly(model: str, extra: list[str], message: str, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    import re

    good = MODELS["resnet"](blocks=1, channels=4).SerializeToString()
    files = {"good.onnx": good, "empty.onnx": b"", "corrupt.onnx": b"\x08\x07garbage" * 10,
             "truncated.onnx": good[: len(good) // 2]}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    _unsupported(tmp_path / "unsupported.onnx")
    (tmp_path / "bad.cfg").write_text("aipp_op {\n aipp_mode: static\n input_format: RGB888_U8\n crop: maybe\n}\n")
    (tmp_path / "good.cfg").write_text("aipp_op {\n aipp_mode: static\n input_format: RGB888_U8\n}\n")
    (tmp_path / "dir").mkdir()
    out = tmp_path / "out"
    out.mkdir()
    model_path = tmp_path / "dir" if model == "<dir>" else tmp_path / model
    args = [f"--model={model_path}", f"--output={out / 'm'}"]
    for item in extra:
        args.append(item.replace("<bad_aipp>", str(tmp_path / "bad.cfg")).replace("<good_aipp>", str(
            tmp_path / "good.cfg")).replace("<out>", str(out)))
    code, text = atc(capsys, *args)
    lines = text.splitlines()
    assert code == 255 and lines[0] == START and lines[1] == FAILED and SUCCESS not in text, text
    assert re.search(message, text), text
    assert lines[2].startswith("E1"), text  # the E-code line after ATC's failure line
    assert leftovers(tmp_path) == [], leftovers(tmp_path)


def test_internal_error_is_a_failure_not_a_traceback(inception: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(build, "compile", broken)
    code, text = atc(capsys, f"--model={inception}", f"--output={tmp_path / 'x'}")
    assert code == 255 and FAILED in text and "boom" in text
    assert leftovers(tmp_path) == []


def test_exit_status_of_the_process(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "ascendsim.compiler.atc", *BASE, f"--model={tmp_path / 'no.onnx'}",
                           f"--output={tmp_path / 'x'}"], capture_output=True, text=True, check=False)
    assert proc.returncode == 255 and proc.stdout.splitlines()[:2] == [START, FAILED]
    assert "Traceback" not in proc.stdout + proc.stderr


def test_every_compile_in_these_tests_is_checked(inception: Path, tmp_path: Path,
                                                 check_every_memory_plan: list[int]) -> None:
    build.compile(str(inception), tmp_path / "x", dynamic_batch_size=None)
    assert check_every_memory_plan == [1]
