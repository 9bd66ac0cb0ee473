"""Static AIPP end to end through the C ABI (issue 12 point 6): models compiled with --insert_op_conf are
loaded and executed on raw images, and the outputs equal onnxruntime on the original model fed with
aipp_reference.py (numpy from CANN's AIPP documentation). A YUV420SP_U8 (NV12, as DVPP writes it) input
with CSC and crop; static AIPP together with --dynamic_image_size (the image follows the gear, set with
aclmdlSetDynamicHWSize) and with --dynamic_dims (aclmdlSetInputDynamicDims on the NHWC image dims); the
model description's two views of the image (aclmdlGetInputDims / V2, the byte size) and aclAippInfo."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from aipp_reference import raw_shape, reference_aipp
from exec_helpers import DeviceBuffers, compile_model, reference
from model_helpers import conv_model

import acl
from ascendcl import (
    ACL_ERROR_GE_EXEC_LOAD_KERNEL_PARTITION_FAILED,
    ACL_SUCCESS,
    aclGetRecentErrMsg,
    aclmdlCreateDesc,
    aclmdlDestroyDesc,
    aclmdlExecute,
    aclmdlGetDesc,
    aclmdlGetInputDims,
    aclmdlGetInputDimsV2,
    aclmdlGetInputSizeByIndex,
    aclmdlLoadFromFile,
    aclmdlSetDynamicHWSize,
    aclmdlSetInputDynamicDims,
    aclmdlUnload,
)
from ascendsim.compiler.aipp_config import parse_aipp_config

TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}
NV12_RGB = """aipp_op {
  aipp_mode: static
  input_format: YUV420SP_U8
  src_image_size_w: 12
  src_image_size_h: 10
  crop: true
  load_start_pos_w: 2
  load_start_pos_h: 2
  crop_size_w: 8
  crop_size_h: 8
  csc_switch: true
  rbuv_swap_switch: false
  matrix_r0c0: 298
  matrix_r0c1: 0
  matrix_r0c2: 409
  matrix_r1c0: 298
  matrix_r1c1: -100
  matrix_r1c2: -208
  matrix_r2c0: 298
  matrix_r2c1: 516
  matrix_r2c2: 0
  input_bias_0: 16
  input_bias_1: 128
  input_bias_2: 128
  mean_chn_0: 104
  mean_chn_1: 117
  mean_chn_2: 123
  var_reci_chn_0: 0.0174
  var_reci_chn_1: 0.0175
  var_reci_chn_2: 0.0171
}
"""
# the image follows the gear: no sizes, no crop or padding (GE's rule with --dynamic_image_size)
NV21_GEARS = "aipp_op { aipp_mode: static input_format: YUV420SP_U8 csc_switch: true rbuv_swap_switch: true }"
RGB_GEARS = "aipp_op { aipp_mode: static input_format: RGB888_U8 mean_chn_1: 100 var_reci_chn_1: 0.5 }"


def load(path: Path) -> int:
    model_id, ret = aclmdlLoadFromFile(str(path))
    if ret == ACL_ERROR_GE_EXEC_LOAD_KERNEL_PARTITION_FAILED:
        pytest.skip(f"kernel not available yet: {aclGetRecentErrMsg()}")
    assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
    return model_id


def _config(tmp_path: Path, text: str) -> tuple[str, dict[str, object]]:
    (tmp_path / "aipp.cfg").write_text(text)
    return str(tmp_path / "aipp.cfg"), dict(parse_aipp_config(text)[0].values)


def test_yuv420sp_model_runs(tmp_path: Path, device: int) -> None:
    path, cfg = _config(tmp_path, NV12_RGB)
    model = conv_model(batch=1)
    model_id = load(compile_model(model, tmp_path, "nv12", insert_op_conf=path))
    desc = aclmdlCreateDesc()
    assert aclmdlGetDesc(desc, model_id) == ACL_SUCCESS
    assert aclmdlGetInputDims(desc, 0)[0]["dims"] == [1, 10, 12, 3]  # n, h, w, c (GE's table)
    assert aclmdlGetInputDimsV2(desc, 0)[0]["dims"] == [1, 15, 12, 1]  # n, h*1.5, w, 1
    assert aclmdlGetInputSizeByIndex(desc, 0) == 10 * 12 * 3 // 2
    assert aclmdlDestroyDesc(desc) == ACL_SUCCESS
    info, ret = acl.mdl.get_first_aipp_info(model_id, 0)
    assert ret == ACL_SUCCESS and info["inputFormat"] == 1 and info["cscSwitch"] == 1  # ACL_YUV420SP_U8
    (shape,) = info["outDims"]
    assert shape["srcDims"]["dims"] == [1, 10, 12, 3] and shape["srcSize"] == 180
    assert shape["aippOutdims"]["dims"] == [1, 3, 8, 8]
    rng = np.random.default_rng(5)
    out = np.zeros((1, 4, 8, 8), np.float32)
    for _ in range(2):
        image = rng.integers(0, 256, raw_shape("YUV420SP_U8", 1, 10, 12), dtype=np.uint8)
        ins, outs = DeviceBuffers([image]), DeviceBuffers([out])
        assert aclmdlExecute(model_id, ins.dataset, outs.dataset) == ACL_SUCCESS, aclGetRecentErrMsg()
        want = reference(model, {"x": reference_aipp(image, cfg, 3, (8, 8))})[0]
        np.testing.assert_allclose(outs.read()[0], want, **TOLERANCE)
        ins.close()
        outs.close()
    assert aclmdlUnload(model_id) == ACL_SUCCESS


def test_static_aipp_with_dynamic_image_size(tmp_path: Path, device: int) -> None:
    path, cfg = _config(tmp_path, NV21_GEARS)
    model = conv_model(batch=1, height="h", width="w")
    model_id = load(
        compile_model(
            model, tmp_path, "gears", insert_op_conf=path, input_shape="x:1,3,-1,-1", dynamic_image_size="8,8;16,12"
        )
    )
    desc = aclmdlCreateDesc()
    assert aclmdlGetDesc(desc, model_id) == ACL_SUCCESS
    assert aclmdlGetInputDims(desc, 0)[0]["dims"] == [1, -1, -1, 3]
    assert aclmdlGetInputSizeByIndex(desc, 0) == 16 * 12 * 3 // 2  # the largest gear
    assert aclmdlDestroyDesc(desc) == ACL_SUCCESS
    info, ret = acl.mdl.get_first_aipp_info(model_id, 0)
    assert ret == ACL_SUCCESS and info["shapeCount"] == 2 and info["srcImageSizeW"] == 0
    assert [s["srcDims"]["dims"] for s in info["outDims"]] == [[1, 8, 8, 3], [1, 16, 12, 3]]
    ins = DeviceBuffers([np.zeros(16 * 12 * 3 // 2, np.uint8), np.zeros(2, np.int32)])
    outs = DeviceBuffers([np.zeros((1, 4, 16, 12), np.float32)])
    rng = np.random.default_rng(6)
    for h, w in ((16, 12), (8, 8)):
        image = rng.integers(0, 256, raw_shape("YUV420SP_U8", 1, h, w), dtype=np.uint8)
        ins.write(0, image)
        assert aclmdlSetDynamicHWSize(model_id, ins.dataset, 1, h, w) == ACL_SUCCESS, aclGetRecentErrMsg()
        assert aclmdlExecute(model_id, ins.dataset, outs.dataset) == ACL_SUCCESS, aclGetRecentErrMsg()
        got = outs.read()[0].reshape(-1)[: 4 * h * w].reshape(1, 4, h, w)
        want = reference(model, {"x": reference_aipp(image, cfg, 3, (h, w))})[0]
        np.testing.assert_allclose(got, want, **TOLERANCE)
    ins.close()
    outs.close()
    assert aclmdlUnload(model_id) == ACL_SUCCESS


def test_static_aipp_with_dynamic_dims(tmp_path: Path, device: int) -> None:
    path, cfg = _config(tmp_path, RGB_GEARS)
    model = conv_model(batch="n", height="h", width="w")
    model_id = load(
        compile_model(model, tmp_path, "dims", insert_op_conf=path, input_shape="x:-1,3,-1,8", dynamic_dims="1,8;2,4")
    )
    desc = aclmdlCreateDesc()
    assert aclmdlGetDesc(desc, model_id) == ACL_SUCCESS
    dims, ret = aclmdlGetInputDims(desc, 0)
    assert ret == ACL_SUCCESS and dims["dims"] == [-1, -1, 8, 3]  # NHWC: the -1s keep their order (n, h)
    assert aclmdlDestroyDesc(desc) == ACL_SUCCESS
    ins = DeviceBuffers([np.zeros(2 * 8 * 8 * 3, np.uint8), np.zeros(2, np.int32)])
    outs = DeviceBuffers([np.zeros((2, 4, 8, 8), np.float32)])
    rng = np.random.default_rng(8)
    for n, h in ((2, 4), (1, 8)):
        image = rng.integers(0, 256, (n, h, 8, 3), dtype=np.uint8)
        ins.write(0, image)
        gear = {"name": "", "dimCount": 4, "dims": [n, h, 8, 3]}
        assert aclmdlSetInputDynamicDims(model_id, ins.dataset, 1, gear) == ACL_SUCCESS, aclGetRecentErrMsg()
        assert aclmdlExecute(model_id, ins.dataset, outs.dataset) == ACL_SUCCESS, aclGetRecentErrMsg()
        got = outs.read()[0].reshape(-1)[: n * 4 * h * 8].reshape(n, 4, h, 8)
        want = reference(model, {"x": reference_aipp(image, cfg, 3, (h, 8))})[0]
        np.testing.assert_allclose(got, want, **TOLERANCE)
    ins.close()
    outs.close()
    assert aclmdlUnload(model_id) == ACL_SUCCESS
