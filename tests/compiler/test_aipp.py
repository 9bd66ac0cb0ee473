"""Static AIPP (issue 3 point 9, issue 12 point 6): the config parser (good and bad files), the AIPP ops
checked numerically for every input format (the compiled graph exported to ONNX and run by onnxruntime on
the raw uint8 image == aipp_reference.py, numpy written from CANN's AIPP documentation, followed by
onnxruntime on the original model), the checks against the model (E81012 / E10052 naming field and value),
the OM's input description and MODEL_AIPP_INFO, static AIPP with dynamic gears, atc."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from aipp_reference import raw_shape, reference_aipp
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
  padding_value : -1.5
  cpadding_value : 7
  min_chn_0 : 0.5
}"""
JPEG_YUV2RGB = """matrix_r0c0: 256 matrix_r0c1: 0 matrix_r0c2: 359 matrix_r1c0: 256 matrix_r1c1: -88
  matrix_r1c2: -183 matrix_r2c0: 256 matrix_r2c1: 454 matrix_r2c2: 0 input_bias_0: 0 input_bias_1: 128
  input_bias_2: 128"""
# from CANN's CSC configuration guide: YUV420SP_U8 (NV12) -> RGB for JPEG data, a crop and normalisation
NV12_RGB = f"""aipp_op {{ aipp_mode: static input_format: YUV420SP_U8 csc_switch: true rbuv_swap_switch: false
  {JPEG_YUV2RGB}
  src_image_size_w: 12 src_image_size_h: 10 crop: true load_start_pos_w: 2 load_start_pos_h: 2
  crop_size_w: 8 crop_size_h: 8 mean_chn_0: 100 min_chn_2: 0.3 var_reci_chn_1: 0.0173 }}"""
# NV21 with the default matrix (the template's YUV -> BGR BT.601 narrow), crop and padding
NV21_BGR_PAD = """aipp_op { aipp_mode: static input_format: YUV420SP_U8 csc_switch: true rbuv_swap_switch: true
  src_image_size_w: 8 src_image_size_h: 8 crop: true load_start_pos_h: 2 crop_size_w: 6 crop_size_h: 6
  padding: true left_padding_size: 1 right_padding_size: 1 top_padding_size: 1 bottom_padding_size: 1
  padding_value: 0.5 var_reci_chn_2: 0.25 }"""
NV12_YUV444 = "aipp_op { aipp_mode: static input_format: YUV420SP_U8 mean_chn_1: 128 mean_chn_2: 128 }"
# BT.601 narrow YUV -> RGB on YUV422SP_U8, cropped in width
YUV422SP_RGB = """aipp_op { aipp_mode: static input_format: YUV422SP_U8 csc_switch: true
  matrix_r0c0: 298 matrix_r0c1: 0 matrix_r0c2: 409 matrix_r1c0: 298 matrix_r1c1: -100 matrix_r1c2: -208
  matrix_r2c0: 298 matrix_r2c1: 516 matrix_r2c2: 0 input_bias_0: 16 input_bias_1: 128 input_bias_2: 128
  src_image_size_w: 12 src_image_size_h: 8 crop: true load_start_pos_w: 2 crop_size_w: 8 crop_size_h: 8 }"""
# BT.709 wide on YUYV_U8
YUYV_RGB = """aipp_op { aipp_mode: static input_format: YUYV_U8 csc_switch: true
  matrix_r0c0: 256 matrix_r0c1: 0 matrix_r0c2: 403 matrix_r1c0: 256 matrix_r1c1: -48 matrix_r1c2: -120
  matrix_r2c0: 256 matrix_r2c1: 475 matrix_r2c2: 0 input_bias_0: 0 input_bias_1: 128 input_bias_2: 128 }"""
AYUV_RGB = f"""aipp_op {{ aipp_mode: static input_format: AYUV444_U8 ax_swap_switch: true csc_switch: true
  {JPEG_YUV2RGB} mean_chn_2: 5 }}"""
# ABGR (ax + rbuv swaps) -> YUV with GE's defaults (RGB->YUV BT.601 narrow, output bias 16, 128, 128)
ABGR_YUV = """aipp_op { aipp_mode: static input_format: ARGB8888_U8 ax_swap_switch: true rbuv_swap_switch: true
  csc_switch: true }"""


def conv_model(channels: int = 3, size: int = 16, dtype: int = TensorProto.FLOAT) -> onnx.ModelProto:
    rng = np.random.default_rng(3)
    np_type = np.float16 if dtype == TensorProto.FLOAT16 else np.float32
    w = numpy_helper.from_array((rng.standard_normal((4, channels, 3, 3)) * 0.2).astype(np_type), "w")
    nodes = [
        helper.make_node("Conv", ["image", "w"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "conv",
        [helper.make_tensor_value_info("image", dtype, [2, channels, size, size])],
        [helper.make_tensor_value_info("y", dtype, [2, 4, size, size])],
        [w],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def symbolic(model: onnx.ModelProto, *names: str) -> onnx.ModelProto:
    """The model with its input's dims named (None keeps a dim): --input_shape then gives them."""
    for dim, name in zip(model.graph.input[0].type.tensor_type.shape.dim, names):
        if name:
            dim.dim_param = name
    for dim in model.graph.output[0].type.tensor_type.shape.dim:
        dim.dim_param = "?"
    return model


def _fields(text: str) -> dict[str, object]:
    return dict(parse_aipp_config(text)[0].values)


def _raw_image(text: str, size: int, seed: int = 7) -> np.ndarray:
    cfg = _fields(text)
    h, w = int(cfg.get("src_image_size_h", 0)) or size, int(cfg.get("src_image_size_w", 0)) or size  # type: ignore[call-overload]
    return np.random.default_rng(seed).integers(0, 256, raw_shape(str(cfg["input_format"]), 2, h, w), dtype=np.uint8)


@pytest.mark.parametrize(
    ("text", "channels", "size", "desc_c"),
    [
        (RGB, 3, 16, 3),
        (XRGB_GREY, 1, 16, 4),
        (XRGB_YUV, 3, 16, 4),
        (GREY_PAD, 1, 16, 1),
        (NV12_RGB, 3, 8, 3),
        (NV21_BGR_PAD, 3, 8, 3),
        (NV12_YUV444, 3, 8, 3),
        (YUV422SP_RGB, 3, 8, 3),
        (YUYV_RGB, 3, 8, 3),
        (AYUV_RGB, 3, 8, 4),
        (ABGR_YUV, 2, 8, 4),
    ],
    ids=[
        "rgb-crop-swap-norm",
        "xrgb-grey-csc",
        "xrgb-yuv-default-csc",
        "yuv400-padding",
        "nv12-rgb-crop",
        "nv21-bgr-default-pad",
        "nv12-yuv444",
        "yuv422sp-rgb-crop",
        "yuyv-rgb709",
        "ayuv-rgb",
        "abgr-yuv-default",
    ],
)
def test_numerics_against_numpy_aipp(text: str, channels: int, size: int, desc_c: int, tmp_path: Path) -> None:
    cfg_path = tmp_path / "aipp.cfg"
    cfg_path.write_text(text)
    model = conv_model(channels, size)
    result = compile(
        model.SerializeToString(), tmp_path / "m", insert_op_conf=str(cfg_path), precision_mode="force_fp32"
    )
    for plan in result.plans:
        check_plan(plan.graph, plan.streams, plan.memory)
    image = _raw_image(text, size)
    (got,) = run_ort(export_onnx(result.graph), {"image": image})
    (want,) = run_ort(model, {"image": reference_aipp(image, _fields(text), channels, (size, size))})
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
    om = read_om(result.output)  # type: ignore[arg-type]
    desc = om.inout["inputs"][0]
    src_h, src_w = (int(_fields(text).get(f"src_image_size_{k}", 0)) or size for k in "hw")  # type: ignore[call-overload]
    assert desc["name"] == "image" and desc["dtype"] == "UINT8" and desc["format"] == "NHWC"
    assert desc["dims"] == [2, src_h, src_w, desc_c]  # aclmdlGetInputDims: the image
    assert desc["dims_v2"] == list(image.shape) and desc["size"] == image.size  # V2: the memory layout
    (info,) = om.inout["aipp"]
    assert info["input_index"] == 0 and info["aipp_type"] == 1 and info["src_dtype"] == "UINT8"
    assert (info["src_image_size_h"], info["src_image_size_w"]) == (src_h, src_w)
    assert info["out_dims"] == [[2, channels, size, size]] and info["out_format"] == "NCHW"
    assert info["src_dims"] == [[2, src_h, src_w, desc_c]]


def test_info_records_resolved_defaults(tmp_path: Path) -> None:
    (tmp_path / "a.cfg").write_text(XRGB_YUV)
    om = read_om(
        compile(conv_model().SerializeToString(), tmp_path / "m", insert_op_conf=str(tmp_path / "a.cfg")).output
    )  # type: ignore[arg-type]
    (info,) = om.inout["aipp"]
    assert info["input_format"] == 2 and info["csc_switch"] == 1 and info["ax_swap_switch"] == 1
    assert [info[f"matrix_r0c{c}"] for c in range(3)] == [66, 129, 25]  # GE's RGB->YUV default
    assert [info[f"output_bias_{i}"] for i in range(3)] == [16, 128, 128]
    assert info["var_reci_chn_0"] == 1.0 and info["crop_size_w"] == 16 and info["crop"] == 0


def test_float16_model_input_and_dynamic_batch(tmp_path: Path) -> None:
    (tmp_path / "a.cfg").write_text("aipp_op { aipp_mode: static input_format: RGB888_U8 mean_chn_1: 100 }")
    model = conv_model(dtype=TensorProto.FLOAT16)
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "N"
    result = compile(
        model.SerializeToString(),
        tmp_path / "m",
        insert_op_conf=str(tmp_path / "a.cfg"),
        input_shape="image:-1,3,16,16",
        dynamic_batch_size="1,4",
    )
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
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "g", [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])]
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    result = compile(
        model.SerializeToString(), tmp_path / "m", insert_op_conf=str(tmp_path / "a.cfg"), input_format="NHWC"
    )
    assert "Transpose" not in result.graph.count_ops()
    image = np.arange(192, dtype=np.uint8).reshape(1, 8, 8, 3)
    (got,) = run_ort(export_onnx(result.graph), {"x": image})
    np.testing.assert_array_equal(got, image.astype(np.float32))


# ---- the parser -----------------------------------------------------------------------------------------


def test_parse_good_config() -> None:
    configs = parse_aipp_config(
        RGB + "\naipp_op: { aipp_mode: static related_input_rank: 1 input_format: YUV400_U8 crop: false }\n", "cfg"
    )
    assert len(configs) == 2
    first, second = configs
    assert first.values["src_image_size_w"] == 20 and first.values["rbuv_swap_switch"] is True
    assert first.values["min_chn_0"] == pytest.approx(0.675) and first.lines["crop_size_h"] == 12
    assert second.values["related_input_rank"] == 1 and second.values["crop"] is False and second.line == 25


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("aipp_op { aipp_mode: static input_format: RGB888_U8 colour: 3 }", r"cfg:1: unknown field 'colour'"),
        (
            "aipp_op {\n aipp_mode: static\n input_format: RGB888_U8\n mean_chn_0: 1.5 }",
            r"cfg:4: field 'mean_chn_0'.*int32",
        ),
        ("aipp_op {\n aipp_mode: static\n input_format: BGR\n}", r"cfg:3: field 'input_format'.*BGR"),
        ("aipp_op { aipp_mode: static input_format: RGB888_U8 crop: maybe }", r"field 'crop'.*true or false"),
        (
            "aipp_op {\n aipp_mode: static\n input_format: RGB888_U8\n crop: true\n crop: false }",
            r"cfg:5: .*'crop' is given twice",
        ),
        ("aipp_op { input_format: RGB888_U8 }", r"aipp_mode must be configured"),
        ("aipp_op { aipp_mode: dynamic max_src_image_size: 100 }", r"field 'aipp_mode'.*dynamic AIPP is not supported"),
        ("aipp_op { aipp_mode: static }", r"input_format of a static AIPP must be configured"),
        ("aipp_op { aipp_mode: static input_format: RAW10 }", r"RAW10 is not supported by ascendsim"),
        (
            "aipp_op { aipp_mode: static input_format: RGB888_U8\n mean_chn_2: 300 }",
            r"^E81012: Compile op\[aipp\] failed, cause: mean_chn_2\[300\] should be within \[0, 255\] \(cfg:2 field",
        ),
        ("aipp_op { aipp_mode: static input_format: RGB888_U8 min_chn_1: 255.5 }", r"min_chn_1\[255.5\] .*\[0, 255\]"),
        (
            "aipp_op { aipp_mode: static input_format: RGB888_U8 var_reci_chn_0: 7e4 }",
            r"var_reci_chn_0\[70000\] .*65504",
        ),
        (
            "aipp_op { aipp_mode: static input_format: RGB888_U8 csc_switch: true matrix_r1c2: 40000 }",
            r"E81012.*matrix_r1c2\[40000\] should be within \[-32768, 32767\]",
        ),
        (
            "aipp_op { aipp_mode: static input_format: YUV420SP_U8 csc_switch: true input_bias_0: 256 }",
            r"input_bias_0\[256\] should be within \[0, 255\]",
        ),
        (
            "aipp_op { aipp_mode: static input_format: RGB888_U8 padding: true left_padding_size: 33 }",
            r"left_padding_size\[33\] should be within \[0, 32\]",
        ),
        (
            "aipp_op { aipp_mode: static input_format: RGB888_U8 src_image_size_w: 1 }",
            r"src_image_size_w\[1\] .*\[2, 4096\] or 0",
        ),
        ("aipp_op { aipp_mode: static input_format: RGB888_U8 src_image_size_h: 4097 }", r"src_image_size_h\[4097\]"),
        (
            "aipp_op { aipp_mode: static input_format: YUV400_U8 csc_switch: true }",
            r"E81012.*csc_switch\[1\].*YUV400_U8",
        ),
        (
            "aipp_op { aipp_mode: static input_format: RGB888_U8\n src_image_size_w: -4 }",
            r"cfg:2 field 'src_image_size_w'",
        ),
        ("aipp_op { aipp_mode: static input_format: RGB888_U8 resize: true }", r"resize is not supported"),
        ("aipp_op { aipp_mode: static input_format: RGB888_U8 ", r"missing '}'"),
        ("aipp_op aipp_mode: static }", r"must be followed by '\{'"),
        ("multi_shape_op { mode: batch }", r"multi_shape_op is not supported"),
        ("# nothing\n", r"no aipp_op block"),
        ("aipp_op { aipp_mode: static input_format: RGB888_U8 src_image_size_w: }", r"'src_image_size_w' has no value"),
        ("aipp_op { aipp_mode: static ; }", r"unexpected character ';'"),
    ],
)
def test_parse_bad_config(text: str, message: str) -> None:
    with pytest.raises(CompileError, match=message):
        parse_aipp_config(text, "cfg")


S = "aipp_op { aipp_mode: static input_format: "
YUV = S + "YUV420SP_U8 src_image_size_w: 20 src_image_size_h: 18 crop: true "


@pytest.mark.parametrize(
    ("text", "kwargs", "message"),
    [
        (
            S + "RGB888_U8 src_image_size_w: 20 }",
            {},
            r"E81012.*src_image_size_w\[20\] is 20, but the model input's W is 16 \(the AIPP output is 16x20\)",
        ),
        (
            S + "RGB888_U8 crop: true load_start_pos_w: 4 }",
            {},
            r"crop\[1\] or padding\[0\] on, src_image_size_w\[0\] and src_image_size_h\[0\] must be greater than 0",
        ),
        (
            S + "RGB888_U8 src_image_size_w: 16 src_image_size_h: 16 crop: true load_start_pos_w: 4 }",
            {},
            r"load_start_pos_w\[4\] \+ crop_size_w\[16\] exceeds src_image_size_w\[16\] .*field 'crop_size_w'",
        ),
        (
            S + "RGB888_U8 src_image_size_w: 16 src_image_size_h: 16 crop: true padding: true top_padding_size: 2 }",
            {},
            r"crop_size_w\[0\] or crop_size_h\[0\] is 0 .*padding\[1\]",
        ),
        (
            S + "RGB888_U8 src_image_size_w: 16 src_image_size_h: 14 padding: true top_padding_size: 1 }",
            {},
            r"src_image_size_h\[14\] \+ top/bottom padding is 15, but the model input's H is 16",
        ),
        (
            S + "YUV420SP_U8 src_image_size_w: 15 src_image_size_h: 16 }",
            {},
            r"src_image_size_h\[16\] and src_image_size_w\[15\] must be even for YUV420SP_U8 .*field 'src_image_size_w'",
        ),
        (
            YUV + "load_start_pos_w: 3 crop_size_w: 16 crop_size_h: 16 }",
            {},
            r"load_start_pos_h\[0\] and load_start_pos_w\[3\] must be even for YUV420SP_U8 .*field 'load_start_pos_w'",
        ),
        (
            YUV + "crop_size_w: 15 crop_size_h: 16 padding: true left_padding_size: 1 }",
            {},
            r"crop_size_w\[15\] must be even.*field 'crop_size_w'",
        ),
        (
            S + "YUYV_U8 src_image_size_w: 20 src_image_size_h: 16 crop: true load_start_pos_w: 1 crop_size_w: 16 }",
            {},
            r"load_start_pos_w\[1\] must be even for YUYV_U8",
        ),
        (
            S + "YUV422SP_U8 src_image_size_w: 17 src_image_size_h: 16 crop: true crop_size_w: 16 }",
            {},
            r"src_image_size_w\[17\] must be even for YUV422SP_U8",
        ),
        (S + "YUV400_U8 }", {}, r"3 channels but YUV400_U8 gives 1"),
        (S + "RGB888_U8 related_input_rank: 1 }", {}, r"related_input_rank 1 is out"),
        (
            'aipp_op { aipp_mode: static input_format: RGB888_U8 related_input_name: "nope" }',
            {},
            r"'nope' is not a model",
        ),
        (S + "RGB888_U8 }\naipp_op { aipp_mode: static input_format: RGB888_U8 }", {}, r"already has an aipp_op"),
        (S + "RGB888_U8 }", {"input_fp16_nodes": "image"}, r"E10034.*image"),
        (
            S + "RGB888_U8 crop: true }",
            {"input_shape": "image:2,3,-1,-1", "dynamic_image_size": "16,16;8,8"},
            r"E10052.*field 'crop'.*When --dynamic_image_size is set, crop and padding cannot be set to 'true'",
        ),
        (
            S + "RGB888_U8 src_image_size_h: 16 }",
            {"input_shape": "image:2,3,-1,-1", "dynamic_image_size": "16,16;8,8"},
            r"E10052.*src_image_size_w and src_image_size_h must be set to '0' \(got src_image_size_h 16\)",
        ),
        (
            S + "RGB888_U8 src_image_size_w: 16 src_image_size_h: 16 }",
            {"input_shape": "image:2,3,-1,-1", "dynamic_dims": "16,16;8,8"},
            r"src_image_size_h\[16\] is 16, but the model input's H is 8",
        ),
    ],
)
def test_config_against_model(text: str, kwargs: dict[str, str], message: str, tmp_path: Path) -> None:
    (tmp_path / "a.cfg").write_text(text)
    model = conv_model() if "input_shape" not in kwargs else symbolic(conv_model(), "N", "C", "H", "W")
    with pytest.raises(CompileError, match=message):
        compile(model.SerializeToString(), tmp_path / "m", insert_op_conf=str(tmp_path / "a.cfg"), **kwargs)
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
