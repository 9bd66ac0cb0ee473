"""atc's console report and ascendsim's extension flags: --dump_graph and --disable_optimizations."""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest
from backend_models import MODELS

from ascendsim.compiler.atc import FAILED, SUCCESS, main


@pytest.fixture
def onnx_file(tmp_path: Path) -> Path:
    path = tmp_path / "resnet.onnx"
    path.write_bytes(MODELS["resnet"](batch=1).SerializeToString())
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().out


def base_args(onnx_file: Path, out: Path) -> list[str]:
    return [f"--model={onnx_file}", "--framework=5", f"--output={out}", "--soc_version=Ascend910B1"]


def test_console_shows_what_the_compiler_did(onnx_file: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, text = run(capsys, *base_args(onnx_file, tmp_path / "m"))
    assert code == 0 and text.rstrip().endswith(SUCCESS), text
    assert "[GraphOpt] total:" in text and "BatchNormalization folded" in text
    assert "lower bound" in text and "no reuse" in text and "[Build] time:" in text


def test_dump_graph_writes_each_stage_as_onnx(onnx_file: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    dumps = tmp_path / "dumps"
    dumps.mkdir()
    code, text = run(capsys, *base_args(onnx_file, tmp_path / "m"), f"--dump_graph={dumps}")
    assert code == 0, text
    stages = sorted(path.name for path in dumps.glob("*.onnx"))
    assert [name.split("_", 2)[-1] for name in stages] == [
        "prepare.onnx", "optimize_original.onnx", "stage1.onnx", "stage2.onnx", "build.onnx"]
    for path in dumps.glob("*.onnx"):
        onnx.checker.check_model(onnx.load(str(path)))


def test_disable_optimizations(onnx_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, text = run(capsys, *base_args(onnx_file, tmp_path / "m"), "--disable_optimizations=conv_bn_folding")
    assert code == 0 and "BatchNormalization folded" not in text, text
    code, text = run(capsys, *base_args(onnx_file, tmp_path / "m2"), "--disable_optimizations=no_such_pass")
    assert code != 0 and FAILED in text and "no_such_pass" in text
    assert not (tmp_path / "m2.om").exists()
