"""The atc command line: success line, every flag, --mode=1 JSON dump, each bad input gives ATC's failure
line, a non-zero exit and no .om left behind."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from backend_models import MODELS

from ascendsim.compiler.atc import FAILED, START, SUCCESS, main


@pytest.fixture
def onnx_file(tmp_path: Path) -> Path:
    path = tmp_path / "resnet.onnx"
    path.write_bytes(MODELS["resnet"](batch="N").SerializeToString())
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().out


def test_success_and_json(onnx_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "resnet"
    code, text = run(capsys, f"--model={onnx_file}", "--framework=5", f"--output={out}", "--soc_version=Ascend910B",
                     "--input_shape=input:1,3,32,32", "--input_format=NCHW", "--precision_mode=allow_fp32_to_fp16",
                     "--log=info")
    assert code == 0 and text.startswith(START) and text.rstrip().endswith(SUCCESS), text
    assert "[Build]" in text and "feature map" in text
    code, text = run(capsys, "--mode=1", f"--om={out}.om", f"--json={tmp_path / 'r.json'}")
    assert code == 0 and SUCCESS in text
    dumped = json.loads((tmp_path / "r.json").read_text())
    assert dumped["header"]["platform_version"] == "Ascend910B"
    assert dumped["model"]["precision_mode"] == "allow_fp32_to_fp16"


def test_all_model_flags(onnx_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "dyn"
    code, text = run(capsys, f"--model={onnx_file}", "--framework=5", f"--output={out}", "--soc_version=Ascend910B",
                     "--input_shape=input:-1,3,32,32", "--dynamic_batch_size=1,2", "--input_fp16_nodes=input",
                     "--output_type=FP16", "--enable_single_stream=true", "--log=error")
    assert code == 0, text
    assert (tmp_path / "dyn.om").is_file()


def test_subprocess_entry_point(onnx_file: Path, tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "ascendsim.compiler.atc", f"--model={onnx_file}", "--framework=5",
                           f"--output={tmp_path / 'x'}", "--soc_version=Ascend910B",
                           "--input_shape=input:1,3,32,32"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and SUCCESS in proc.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["--framework=3"], "TensorFlow is not supported"), (["--framework=0"], "Caffe is not supported"),
    (["--framework=9"], "unknown framework"), (["--soc_version="], "--soc_version] for ATC is empty"),
    (["--model={missing}"], "does not exist"), (["--model={corrupt}"], "ONNX"),
    (["--input_shape=input:1,3,a,32"], "not an integer"), (["--input_shape=input:2,3,32"], "input"),
    (["--output={nodir}/x"], "not writable"), (["--precision_mode=fp8"], "not supported"),
    (["--insert_op_conf=aipp.cfg"], "AIPP"), (["--log=loud"], "--log"), (["--mode=7"], "--mode"),
    (["--enable_single_stream=yes"], "true or false"), (["--bogus=1"], "E10001"),
    (["--model={unsupported}", "--input_shape=x:2,2"], "weird.*Multinomial|Multinomial.*weird"),
])
def test_bad_input(args: list[str], message: str, onnx_file: Path, tmp_path: Path,
                   capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "corrupt.onnx").write_bytes(b"not a protobuf at all")
    from onnx import TensorProto, helper
    node = helper.make_node("Multinomial", ["x"], ["y"], name="weird")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])])
    (tmp_path / "unsupported.onnx").write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    base = {"model": f"--model={onnx_file}", "framework": "--framework=5", "output": f"--output={tmp_path / 'out'}",
            "soc_version": "--soc_version=Ascend910B", "input_shape": "--input_shape=input:1,3,32,32"}
    for template in args:
        arg = template.format(missing=tmp_path / "missing.onnx", corrupt=tmp_path / "corrupt.onnx",
                         nodir=tmp_path / "nodir", unsupported=tmp_path / "unsupported.onnx")
        base[arg.split("=")[0].lstrip("-")] = arg
    code, text = run(capsys, *base.values())
    assert code != 0 and FAILED in text and SUCCESS not in text
    assert re.search(message, text), text
    assert not list(tmp_path.glob("*.om")) and not list(tmp_path.glob(".*tmp"))


def test_bad_om_for_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "x.om").write_bytes(b"IMOD" + b"\0" * 300)
    code, text = run(capsys, "--mode=1", f"--om={tmp_path / 'x.om'}", f"--json={tmp_path / 'x.json'}")
    assert code != 0 and "--om" in text and not (tmp_path / "x.json").exists()
    code, text = run(capsys, "--mode=1", f"--om={tmp_path / 'x.om'}")
    assert code != 0 and "--json" in text


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, text = run(capsys, "--help")
    assert code == 0 and "--dynamic_batch_size" in text
