"""Static AIPP (issue 3 point 9): the config parser (good and bad files), the AIPP ops checked numerically
(the compiled graph exported to ONNX and run by onnxruntime on the raw uint8 image == an independent numpy
AIPP followed by onnxruntime on the original model), the OM's input description and MODEL_AIPP_INFO, atc."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from ascendsim.compiler.aipp_config import parse_aipp_config
from ascendsim.compiler.atc import FAILED, SUCCESS, main
from ascendsim.compiler.build import compile
from ascendsim.compiler.errors import CompileError
from ascendsim.compiler.memory import check_plan
from ascendsim.compiler.om_reader import read_om
from ascendsim.compiler.onnx_export import export_onnx
from onnx_models import run_ort

RGB = """
# resnet-style preprocessing, as in CANN's samples
aipp_op {
    aipp_mode: static
    input_format : RGB888_U8
    src_image_size_w : 20
    src_image_size_h : 18
    crop: true
    load_start_pos_w: 3
    load_start_pos_h: 1
    crop_size_w: 16
    crop_size_h: 16
    rbuv_swap_switch: true
    mean_chn_0: 123
    mean_chn_1: 117
    mean_chn_2: 104
    min_chn_0: 0.675
    min_chn_1: 0.28
    min_chn_2: 0.53
    var_reci_chn_0: 0.0171
    var_reci_chn_1: 0.0175
    var_reci_chn_2: 0.0174
}
"""
XRGB_GREY = """aipp_op { aipp_mode: static input_format: XRGB8888_U8 ax_swap_switch: true csc_switch: true
  matrix_r0c0: 76 matrix_r0c1: 150 matrix_r0c2: 30 matrix_r1c0: 0 matrix_r1c1: 0 matrix_r1c2: 0
  matrix_r2c0: 0 matrix_r2c1: 0 matrix_r2c2: 0 output_bias_0: 0 output_bias_1: 0 output_bias_2: 0
  mean_chn_0: 128 var_reci_chn_0: 0.0078125 }"""
XRGB_YUV = """aipp_op { aipp_mode: static input_format: XRGB8888_U8 ax_swap_switch: true csc_switch: true }"""
GREY_PAD = """aipp_op {
  aipp_mode : static
  input_format : YUV400_U8
  src_image_size_w : 12
  src_image_size_h : 14
  padding : true
  left_padding_size : 2
  right_padding_size : 2
  bottom_padding_size : 2
  cpadding_value : -1.5
  min_chn_0 : 0.5
}"""


def conv_model(channels: int = 3, size: int = 16, dtype: int = TensorProto.FLOAT) -> onnx.ModelProto:
    rng = np.random.default_rng(3)
    np_type = np.float16 if dtype == TensorProto.FLOAT16 else np.float32
    w = numpy_helper.from_array((rng.standard_normal((4, channels, 3, 3)) * 0.2).astype(np_type), "w")
    nodes = [helper.make_node("Conv", ["image", "w"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["y"])]
    graph = helper.make_graph(nodes, "conv", [helper.make_tensor_value_info("image", dtype, [2, channels, size, size])],
                              [helper.make_tensor_value_info("y", dtype, [])], [w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def numpy_aipp(image: np.ndarray, cfg: dict[str, float], channels: int, size: int) -> np.ndarray:
    """AIPP as the CANN docs describe it, written independently of aipp.py: crop -> swaps -> CSC ((M.x) >> 8 +
    output bias, clipped to u8) -> (x - mean - min) * var_reci -> padding -> NCHW."""
    h0, w0 = int(cfg.get("load_start_pos_h", 0)), int(cfg.get("load_start_pos_w", 0))
    ch, cw = int(cfg.get("crop_size_h", image.shape[1])), int(cfg.get("crop_size_w", image.shape[2]))
    x = image[:, h0:h0 + ch, w0:w0 + cw, :].astype(np.int64)
    if cfg.get("ax_swap_switch"):
        x = np.concatenate([x[..., 1:], x[..., :1]], axis=3)
    if cfg.get("rbuv_swap_switch"):
        x = x[..., [2, 1, 0, *range(3, x.shape[3])]]
    if cfg.get("csc_switch"):
        default = [66, 129, 25, -38, -74, 112, 112, -94, -18]
        m = np.array([cfg.get(f"matrix_r{r}c{c}", default[3 * r + c]) for r in range(3) for c in range(3)],
                     np.int64).reshape(3, 3)
        bias = np.array([cfg.get(f"output_bias_{i}", (16, 128, 128)[i]) for i in range(3)], np.int64)
        x = np.clip(((x[..., :3] @ m.T) >> 8) + bias, 0, 255)
    x = x[..., :channels].astype(np.float32)
    mean = np.array([cfg.get(f"mean_chn_{i}", 0) for i in range(channels)], np.float32)
    low = np.array([cfg.get(f"min_chn_{i}", 0.0) for i in range(channels)], np.float32)
    var = np.array([cfg.get(f"var_reci_chn_{i}", 1.0) for i in range(channels)], np.float32)
    x = (x - mean - low) * var
    if cfg.get("padding"):
        pads = [int(cfg.get(f"{s}_padding_size", 0)) for s in ("top", "bottom", "left", "right")]
        x = np.pad(x, [(0, 0), pads[:2], pads[2:], (0, 0)], constant_values=cfg.get("cpadding_value", 0.0))
    assert x.shape[1:3] == (size, size)
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


def _fields(text: str) -> dict[str, float]:
    return {k: v for k, v in parse_aipp_config(text)[0].values.items() if isinstance(v, (int, float))}


@pytest.mark.parametrize(("text", "channels", "image_shape"), [
    (RGB, 3, (2, 18, 20, 3)), (XRGB_GREY, 1, (2, 16, 16, 4)), (XRGB_YUV, 3, (2, 16, 16, 4)),
    (GREY_PAD, 1, (2, 14, 12, 1)),
], ids=["rgb-crop-swap-norm", "xrgb-grey-csc", "xrgb-yuv-default-csc", "yuv400-padding"])
def test_numerics_against_numpy_aipp(text: str, channels: int, image_shape: tuple[int, ...], tmp_path: Path) -> None:
    cfg_path = tmp_path / "aipp.cfg"
    cfg_path.write_text(text)
    model = conv_model(channels)
    result = compile(model.SerializeToString(), tmp_path / "m", insert_op_conf=str(cfg_path),
                     precision_mode="force_fp32")
    for plan in result.plans:
        check_plan(plan.graph, plan.streams, plan.memory)
    image = np.random.default_rng(7).integers(0, 256, image_shape, dtype=np.uint8)
    (got,) = run_ort(export_onnx(result.graph), {"image": image})
    (want,) = run_ort(model, {"image": numpy_aipp(image, _fields(text), channels, 16)})
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    om = read_om(result.output)  # type: ignore[arg-type]
    desc = om.inout["inputs"][0]
    assert desc["name"] == "image" and desc["dtype"] == "UINT8" and desc["format"] == "NHWC"
    assert desc["dims"] == list(image_shape) and desc["size"] == int(np.prod(image_shape))
    (info,) = om.inout["aipp"]
    assert info["input_index"] == 0 and info["aipp_type"] == 1 and info["src_dtype"] == "UINT8"
    assert (info["src_image_size_h"], info["src_image_size_w"]) == image_shape[1:3]
    assert info["out_dims"] == [[2, channels, 16, 16]] and info["out_format"] == "NCHW"


def test_info_records_resolved_defaults(tmp_path: Path) -> None:
    (tmp_path / "a.cfg").write_text(XRGB_YUV)
    om = read_om(compile(conv_model().SerializeToString(), tmp_path / "m", insert_op_conf=str(tmp_path / "a.cfg")
                         ).output)  # type: ignore[arg-type]
    (info,) = om.inout["aipp"]
    assert info["input_format"] == 2 and info["csc_switch"] == 1 and info["ax_swap_switch"] == 1
    assert [info[f"matrix_r0c{c}"] for c in range(3)] == [66, 129, 25]  # GE's RGB->YUV default
    assert [info[f"output_bias_{i}"] for i in range(3)] == [16, 128, 128]
    assert info["var_reci_chn_0"] == 1.0 and info["crop_size_w"] == 16 and info["crop"] == 0


def test_float16_model_input_and_dynamic_batch(tmp_path: Path) -> None:
    (tmp_path / "a.cfg").write_text("aipp_op { aipp_mode: static input_format: RGB888_U8 mean_chn_1: 100 }")
    model = conv_model(dtype=TensorProto.FLOAT16)
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "N"
    result = compile(model.SerializeToString(), tmp_path / "m", insert_op_conf=str(tmp_path / "a.cfg"),
                     input_shape="image:-1,3,16,16", dynamic_batch_size="1,4")
    om = read_om(result.output)  # type: ignore[arg-type]
    desc = om.inout["inputs"][0]
    assert desc["dtype"] == "UINT8" and desc["dims"] == [-1, 16, 16, 3] and desc["size"] == 4 * 16 * 16 * 3
    (info,) = om.inout["aipp"]
    assert info["out_dtype"] == "FLOAT16" and info["out_dims"] == [[1, 3, 16, 16], [4, 3, 16, 16]]
    for plan in result.plans:
        check_plan(plan.graph, plan.streams, plan.memory)
        assert plan.graph.inputs[0].dtype.name == "UINT8"


def test_nhwc_model_input(tmp_path: Path) -> None:
    (tmp_path / "a.cfg").write_text("aipp_op { aipp_mode: static input_format: RGB888_U8 }")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 8, 3])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    result = compile(model.SerializeToString(), tmp_path / "m", insert_op_conf=str(tmp_path / "a.cfg"),
                     input_format="NHWC")
    assert "Transpose" not in result.graph.count_ops()
    image = np.arange(192, dtype=np.uint8).reshape(1, 8, 8, 3)
    (got,) = run_ort(export_onnx(result.graph), {"x": image})
    np.testing.assert_array_equal(got, image.astype(np.float32))


# ---- the parser -----------------------------------------------------------------------------------------


def test_parse_good_config() -> None:
    configs = parse_aipp_config(RGB + "\naipp_op: { aipp_mode: static related_input_rank: 1 input_format: "
                                "YUV400_U8 crop: false }\n", "cfg")
    assert len(configs) == 2
    first, second = configs
    assert first.values["src_image_size_w"] == 20 and first.values["rbuv_swap_switch"] is True
    assert first.values["min_chn_0"] == pytest.approx(0.675) and first.lines["crop_size_h"] == 12
    assert second.values["related_input_rank"] == 1 and second.values["crop"] is False and second.line == 25


@pytest.mark.parametrize(("text", "message"), [
    ("aipp_op { aipp_mode: static input_format: RGB888_U8 colour: 3 }", r"cfg:1: unknown field 'colour'"),
    ("aipp_op {\n aipp_mode: static\n input_format: RGB888_U8\n mean_chn_0: 1.5 }", r"cfg:4: field 'mean_chn_0'.*int32"),
    ("aipp_op {\n aipp_mode: static\n input_format: BGR\n}", r"cfg:3: field 'input_format'.*BGR"),
    ("aipp_op { aipp_mode: static input_format: RGB888_U8 crop: maybe }", r"field 'crop'.*true or false"),
    ("aipp_op {\n aipp_mode: static\n input_format: RGB888_U8\n crop: true\n crop: false }", r"cfg:5: .*'crop' is given twice"),
    ("aipp_op { input_format: RGB888_U8 }", r"aipp_mode must be configured"),
    ("aipp_op { aipp_mode: dynamic max_src_image_size: 100 }", r"field 'aipp_mode'.*dynamic AIPP is not supported"),
    ("aipp_op { aipp_mode: static }", r"input_format of a static AIPP must be configured"),
    ("aipp_op { aipp_mode: static input_format: YUV420SP_U8 }", r"YUV420SP_U8 is not supported by ascendsim"),
    ("aipp_op { aipp_mode: static input_format: RGB888_U8\n src_image_size_w: -4 }", r"cfg:2 field 'src_image_size_w'"),
    ("aipp_op { aipp_mode: static input_format: RGB888_U8 resize: true }", r"resize is not supported"),
    ("aipp_op { aipp_mode: static input_format: RGB888_U8 ", r"missing '}'"),
    ("aipp_op aipp_mode: static }", r"must be followed by '\{'"),
    ("multi_shape_op { mode: batch }", r"multi_shape_op is not supported"),
    ("# nothing\n", r"no aipp_op block"),
    ("aipp_op { aipp_mode: static input_format: RGB888_U8 src_image_size_w: }", r"'src_image_size_w' has no value"),
    ("aipp_op { aipp_mode: static ; }", r"unexpected character ';'"),
])
def test_parse_bad_config(text: str, message: str) -> None:
    with pytest.raises(CompileError, match=message):
        parse_aipp_config(text, "cfg")


@pytest.mark.parametrize(("text", "kwargs", "message"), [
    ("aipp_op { aipp_mode: static input_format: RGB888_U8 src_image_size_w: 20 }", {}, r"is 16x20.*expects 16x16"),
    ("aipp_op { aipp_mode: static input_format: RGB888_U8 crop: true load_start_pos_w: 4 }", {},
     r"crop_size_w.*outside the 16x16 source"),
    ("aipp_op { aipp_mode: static input_format: YUV400_U8 }", {}, r"3 channels but YUV400_U8 gives 1"),
    ("aipp_op { aipp_mode: static input_format: YUV400_U8 csc_switch: true }", {}, r"csc_switch.*YUV400"),
    ("aipp_op { aipp_mode: static input_format: RGB888_U8 ax_swap_switch: true }", {}, r"4-channel input"),
    ("aipp_op { aipp_mode: static input_format: RGB888_U8 related_input_rank: 1 }", {}, r"related_input_rank 1 is out"),
    ('aipp_op { aipp_mode: static input_format: RGB888_U8 related_input_name: "nope" }', {}, r"'nope' is not a model"),
    ("aipp_op { aipp_mode: static input_format: RGB888_U8 }\naipp_op { aipp_mode: static input_format: RGB888_U8 }",
     {}, r"already has an aipp_op"),
    ("aipp_op { aipp_mode: static input_format: RGB888_U8 }", {"input_fp16_nodes": "image"}, r"E10034.*image"),
    ("aipp_op { aipp_mode: static input_format: RGB888_U8 }",
     {"input_shape": "image:2,3,-1,-1", "dynamic_image_size": "16,16;8,8"}, r"dynamic_image_size.*not supported"),
])
def test_config_against_model(text: str, kwargs: dict[str, str], message: str, tmp_path: Path) -> None:
    (tmp_path / "a.cfg").write_text(text)
    with pytest.raises(CompileError, match=message):
        compile(conv_model().SerializeToString(), tmp_path / "m", insert_op_conf=str(tmp_path / "a.cfg"), **kwargs)
    assert not (tmp_path / "m.om").exists()


def test_missing_config_file(tmp_path: Path) -> None:
    with pytest.raises(CompileError, match=r"E10052.*cannot be read"):
        compile(conv_model().SerializeToString(), insert_op_conf=str(tmp_path / "none.cfg"))


# ---- atc ------------------------------------------------------------------------------------------------


def test_atc_insert_op_conf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model, cfg = tmp_path / "conv.onnx", tmp_path / "aipp.cfg"
    onnx.save(conv_model(), model)
    cfg.write_text(RGB)
    args = [f"--model={model}", "--framework=5", f"--output={tmp_path / 'out'}", "--soc_version=Ascend910B"]
    assert main([*args, f"--insert_op_conf={cfg}"]) == 0
    assert SUCCESS in capsys.readouterr().out
    assert main(["--mode=1", f"--om={tmp_path / 'out.om'}", f"--json={tmp_path / 'out.json'}"]) == 0
    assert '"aipp"' in (tmp_path / "out.json").read_text()
    cfg.write_text("aipp_op {\n aipp_mode: static\n input_format: RGB888_U8\n var_reci_chn_9: 1 }")
    (tmp_path / "out.om").unlink()
    assert main([*args, f"--insert_op_conf={cfg}"]) == 255
    out = capsys.readouterr().out
    assert FAILED in out and "E10052" in out and f"{cfg}:4: unknown field 'var_reci_chn_9'" in out
    assert not (tmp_path / "out.om").exists()
