"""Model descriptions without loading a model (aclmdlGetDescFromFile / FromMem and every getter), checked
against the Python reference reader; the dynamic batch / HW / dims gear queries; pyACL's shapes in acl.mdl
(dims as dicts, ({}, ret) on failure, (index, ret)); datasets; the error paths."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from model_helpers import address, compile_models

import acl
import ascendcl as C
from ascendsim.compiler import om_format as F
from ascendsim.compiler.om_reader import read_om

INVALID = C.ACL_ERROR_INVALID_PARAM
DTYPES = {"FLOAT": C.ACL_FLOAT, "INT32": C.ACL_INT32, "UINT8": C.ACL_UINT8, "INT64": C.ACL_INT64}


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return compile_models(tmp_path_factory.mktemp("om"))


@pytest.fixture
def desc_of(models: dict[str, Path]):  # type: ignore[no-untyped-def]
    created: list[int] = []

    def make(kind: str, from_mem: bool = False) -> int:
        desc = C.aclmdlCreateDesc()
        assert desc
        created.append(desc)
        if from_mem:
            image = models[kind].read_bytes()
            assert C.aclmdlGetDescFromMem(desc, address(image), len(image)) == 0, C.aclGetRecentErrMsg()
        else:
            assert C.aclmdlGetDescFromFile(desc, str(models[kind])) == 0, C.aclGetRecentErrMsg()
        return desc

    yield make
    for desc in created:
        assert C.aclmdlDestroyDesc(desc) == 0


@pytest.mark.parametrize("kind", ["static", "batch", "hw", "dims", "aipp"])
@pytest.mark.parametrize("from_mem", [False, True])
def test_getters_match_the_file(models: dict[str, Path], desc_of, kind: str, from_mem: bool) -> None:  # type: ignore[no-untyped-def]
    om = read_om(models[kind])
    desc = desc_of(kind, from_mem)
    for is_input, descs in ((True, om.inout["inputs"]), (False, om.inout["outputs"])):
        count = C.aclmdlGetNumInputs(desc) if is_input else C.aclmdlGetNumOutputs(desc)
        assert count == len(descs)
        for i, d in enumerate(descs):
            size = C.aclmdlGetInputSizeByIndex if is_input else C.aclmdlGetOutputSizeByIndex
            name = C.aclmdlGetInputNameByIndex if is_input else C.aclmdlGetOutputNameByIndex
            fmt = C.aclmdlGetInputFormat if is_input else C.aclmdlGetOutputFormat
            dtype = C.aclmdlGetInputDataType if is_input else C.aclmdlGetOutputDataType
            dims = C.aclmdlGetInputDims if is_input else C.aclmdlGetOutputDims
            by_name = C.aclmdlGetInputIndexByName if is_input else C.aclmdlGetOutputIndexByName
            assert size(desc, i) == d["size"]
            assert name(desc, i) == d["name"]
            assert fmt(desc, i) == F.FORMATS[d["format"]]
            assert dtype(desc, i) == DTYPES[d["dtype"]]
            assert dims(desc, i) == ({"name": d["name"], "dimCount": len(d["dims"]), "dims": d["dims"]}, 0)
            assert by_name(desc, d["name"]) == (i, 0)
            if is_input:
                v2 = d["dims_v2"] or d["dims"]
                assert C.aclmdlGetInputDimsV2(desc, i) == ({"name": d["name"], "dimCount": len(v2), "dims": v2}, 0)
                ranges = [list(r) for r in d["shape_range"]] or [[x, x] for x in v2]
                assert C.aclmdlGetInputDimsRange(desc, i) == ({"rangeCount": len(ranges), "range": ranges}, 0)


def test_static_model(models: dict[str, Path], desc_of) -> None:  # type: ignore[no-untyped-def]
    desc = desc_of("static")
    assert C.aclmdlGetInputDims(desc, 0) == ({"name": "x", "dimCount": 4, "dims": [2, 3, 8, 8]}, 0)
    assert C.aclmdlGetInputFormat(desc, 0) == C.ACL_FORMAT_NCHW  # ATC's default for a 4-D ONNX input
    assert C.aclmdlGetInputSizeByIndex(desc, 0) == 2 * 3 * 8 * 8 * 4
    assert C.aclmdlGetOutputSizeByIndex(desc, 0) == 2 * 4 * 8 * 8 * 4
    # acllite detects dynamic batch this way: a static model has no ascend_mbatch_shape_data
    _index, ret = C.aclmdlGetInputIndexByName(desc, C.ACL_DYNAMIC_TENSOR_NAME)
    assert ret == INVALID and "ascend_mbatch_shape_data" in C.aclGetRecentErrMsg()
    assert C.aclmdlGetDynamicBatch(desc) == ({"batchCount": 0, "batch": []}, 0)
    assert C.aclmdlGetDynamicHW(desc, -1) == ({"hwCount": 0, "hw": []}, 0)
    assert C.aclmdlGetInputDynamicGearCount(desc, -1) == (0, 0)
    assert C.aclmdlGetInputDynamicDims(desc, -1, 0) == ([], 0)


def test_dynamic_batch(desc_of) -> None:  # type: ignore[no-untyped-def]
    desc = desc_of("batch")
    assert C.aclmdlGetNumInputs(desc) == 2  # x and ascend_mbatch_shape_data
    assert C.aclmdlGetInputIndexByName(desc, C.ACL_DYNAMIC_TENSOR_NAME) == (1, 0)
    assert C.aclmdlGetInputDataType(desc, 1) == C.ACL_INT32 and C.aclmdlGetInputSizeByIndex(desc, 1) == 4
    assert C.aclmdlGetDynamicBatch(desc) == ({"batchCount": 3, "batch": [1, 2, 4]}, 0)
    assert C.aclmdlGetInputDims(desc, 0)[0]["dims"] == [-1, 3, 8, 8]
    assert C.aclmdlGetInputDimsV2(desc, 0)[0]["dims"] == [4, 3, 8, 8]
    assert C.aclmdlGetInputDimsRange(desc, 0)[0]["range"] == [[1, 4], [3, 3], [8, 8], [8, 8]]
    assert C.aclmdlGetInputSizeByIndex(desc, 0) == 4 * 3 * 8 * 8 * 4  # the largest gear
    assert C.aclmdlGetDynamicHW(desc, -1) == ({"hwCount": 0, "hw": []}, 0)


def test_dynamic_hw(desc_of) -> None:  # type: ignore[no-untyped-def]
    desc = desc_of("hw")
    index, ret = C.aclmdlGetInputIndexByName(desc, C.ACL_DYNAMIC_TENSOR_NAME)
    assert ret == 0
    assert C.aclmdlGetDynamicHW(desc, index) == ({"hwCount": 2, "hw": [[8, 8], [16, 12]]}, 0)
    assert C.aclmdlGetDynamicHW(desc, -1) == C.aclmdlGetDynamicHW(desc, index)  # the index is ignored
    assert C.aclmdlGetDynamicBatch(desc) == ({"batchCount": 0, "batch": []}, 0)
    assert C.aclmdlGetInputDims(desc, 0)[0]["dims"] == [1, 3, -1, -1]


def test_dynamic_dims(desc_of) -> None:  # type: ignore[no-untyped-def]
    desc = desc_of("dims")
    assert C.aclmdlGetInputDynamicGearCount(desc, -1) == (3, 0)
    gears, ret = C.aclmdlGetInputDynamicDims(desc, -1, 3)
    assert ret == 0
    # GE: the dims of the inputs in MODEL_DESIGNATE_SHAPE_ORDER (a [-1,-1,8], b [-1,1,4]) concatenated, -1 filled
    assert [g["dims"] for g in gears] == [[1, 4, 8, 1, 1, 4], [2, 8, 8, 2, 1, 4], [4, 2, 8, 4, 1, 4]]
    assert all(g["dimCount"] == 6 and g["name"] == "" for g in gears)
    assert C.aclmdlGetInputDynamicDims(desc, -1, 5)[0] == gears  # a larger gear count is accepted
    assert C.aclmdlGetInputDynamicDims(desc, -1, 2) == ([], INVALID)  # fewer than the model's gears
    assert "gearCount 2" in C.aclGetRecentErrMsg()
    assert C.aclmdlGetInputDynamicDims(desc, 0, 3) == ([], INVALID)  # the index must be -1
    assert C.aclmdlGetInputDynamicGearCount(desc, 0) == (0, INVALID)
    assert "index must be -1" in C.aclGetRecentErrMsg()


def test_error_paths(models: dict[str, Path], desc_of, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    desc = desc_of("static")
    assert C.aclmdlGetInputDims(desc, 1) == ({}, INVALID)
    assert "input index 1 is out of range" in C.aclGetRecentErrMsg()
    assert C.aclmdlGetOutputDims(desc, 7) == ({}, INVALID)
    assert C.aclmdlGetInputDimsV2(desc, 2**64 - 1) == ({}, INVALID)
    assert C.aclmdlGetInputDimsRange(desc, 3) == ({}, INVALID)
    assert C.aclmdlGetInputSizeByIndex(desc, 1) == 0
    assert C.aclmdlGetOutputNameByIndex(desc, 1) == ""
    assert C.aclmdlGetInputFormat(desc, 1) == C.ACL_FORMAT_UNDEFINED
    assert C.aclmdlGetOutputDataType(desc, 1) == C.ACL_DT_UNDEFINED
    assert C.aclmdlGetOutputIndexByName(desc, "nope") == (0, INVALID)
    assert "no output named \"nope\"" in C.aclGetRecentErrMsg()
    # NULL / dead / empty descriptions
    assert C.aclmdlGetNumInputs(0) == 0
    assert "modelDesc" in C.aclGetRecentErrMsg()
    assert C.aclmdlGetInputDims(0, 0) == ({}, INVALID)
    assert C.aclmdlGetDynamicBatch(0) == ({}, INVALID)
    assert C.aclmdlGetDynamicHW(0, -1) == ({}, INVALID)
    assert C.aclmdlGetInputDynamicDims(0, -1, 1) == ([], INVALID)
    empty = C.aclmdlCreateDesc()
    assert C.aclmdlGetNumOutputs(empty) == 0 and "empty" in C.aclGetRecentErrMsg()
    assert C.aclmdlGetDescFromFile(empty, str(tmp_path / "none.om")) == 145002
    assert C.aclmdlGetDescFromMem(empty, 0, 10) == INVALID
    image = models["static"].read_bytes()
    assert C.aclmdlGetDescFromMem(empty, address(image), 0) == INVALID
    assert C.aclmdlGetDescFromMem(empty, address(image), len(image) - 1) == 145006
    assert C.aclmdlDestroyDesc(empty) == 0
    assert C.aclmdlDestroyDesc(empty) == INVALID and "not live" in C.aclGetRecentErrMsg()
    assert C.aclmdlGetNumInputs(empty) == 0 and "not live" in C.aclGetRecentErrMsg()
    assert C.aclmdlGetDescFromFile(empty, str(models["static"])) == INVALID
    assert C.aclmdlDestroyDesc(0) == INVALID
    C.aclGetRecentErrMsg()


def test_desc_refilled_and_shared_across_threads(models: dict[str, Path], desc_of) -> None:  # type: ignore[no-untyped-def]
    desc = desc_of("static")
    assert C.aclmdlGetDescFromFile(desc, str(models["batch"])) == 0  # a desc may be refilled
    assert C.aclmdlGetNumInputs(desc) == 2
    images = {k: models[k].read_bytes() for k in ("static", "batch")}
    errors: list[str] = []

    def worker(seed: int) -> None:
        for i in range(200):
            kind = ("static", "batch")[(i + seed) % 2]
            if C.aclmdlGetDescFromMem(desc, address(images[kind]), len(images[kind])) != 0:
                errors.append(C.aclGetRecentErrMsg())
            n = C.aclmdlGetNumInputs(desc)
            if n not in (1, 2) or C.aclmdlGetInputNameByIndex(desc, 0) != "x":
                errors.append(f"inputs {n}")

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_pyacl_shapes(models: dict[str, Path]) -> None:
    desc = acl.mdl.create_desc()
    assert isinstance(desc, int) and desc
    assert acl.mdl.get_desc_from_file(desc, str(models["batch"])) == 0
    assert acl.mdl.get_input_dims(desc, 0) == ({"name": "x", "dimCount": 4, "dims": [-1, 3, 8, 8]}, 0)
    assert acl.mdl.get_output_dims(desc, 0)[0]["dims"] == [-1, 4, 8, 8]
    assert acl.mdl.get_input_dims(desc, 9) == ({}, INVALID)
    assert acl.mdl.get_input_index_by_name(desc, "ascend_mbatch_shape_data") == (1, 0)
    assert acl.mdl.get_dynamic_batch(desc) == ({"batchCount": 3, "batch": [1, 2, 4]}, 0)
    assert acl.mdl.get_num_inputs(desc) == 2 and acl.mdl.get_input_size_by_index(desc, 0) == 4 * 3 * 8 * 8 * 4
    assert acl.mdl.get_input_name_by_index(desc, 0) == "x"
    assert acl.mdl.get_input_data_type(desc, 0) == 0 and acl.mdl.get_input_format(desc, 0) == 0
    work, weight, ret = acl.mdl.query_size(str(models["batch"]))
    assert ret == 0 and work >= 0 and weight == 512  # conv -> relu: every tensor is a user buffer
    with pytest.raises(TypeError):
        acl.mdl.get_input_dims(None, 0)
    assert acl.mdl.destroy_desc(desc) == 0
    C.aclGetRecentErrMsg()


def test_datasets() -> None:
    dataset = C.aclmdlCreateDataset()
    assert dataset and C.aclmdlGetDatasetNumBuffers(dataset) == 0
    buffers = [C.aclCreateDataBuffer(0x1000 * (i + 1), 64 * i) for i in range(3)]
    for buffer in buffers:
        assert C.aclmdlAddDatasetBuffer(dataset, buffer) == 0
    assert C.aclmdlGetDatasetNumBuffers(dataset) == 3
    assert [C.aclmdlGetDatasetBuffer(dataset, i) for i in range(3)] == buffers
    assert C.aclmdlGetDatasetBuffer(dataset, 3) == 0
    assert "index 3 is out of range" in C.aclGetRecentErrMsg()
    assert C.aclmdlAddDatasetBuffer(dataset, 0) == INVALID
    assert C.aclmdlAddDatasetBuffer(0, buffers[0]) == INVALID
    assert C.aclmdlGetDatasetNumBuffers(0) == 0
    assert C.aclmdlGetDatasetBuffer(0, 0) == 0
    # pyACL: add_dataset_buffer returns (dataset, ret); destroying the dataset leaves the buffers alive
    ds2 = acl.mdl.create_dataset()
    assert acl.mdl.add_dataset_buffer(ds2, buffers[1]) == (ds2, 0)
    assert acl.mdl.get_dataset_buffer(ds2, 0) == buffers[1]
    assert acl.mdl.destroy_dataset(ds2) == 0
    assert C.aclmdlDestroyDataset(dataset) == 0
    assert C.aclmdlDestroyDataset(dataset) == INVALID and "not live" in C.aclGetRecentErrMsg()
    assert C.aclmdlAddDatasetBuffer(dataset, buffers[0]) == INVALID
    assert C.aclmdlGetDatasetNumBuffers(dataset) == 0
    assert C.aclmdlDestroyDataset(0) == INVALID
    for buffer in buffers:
        assert C.aclGetDataBufferSizeV2(buffer) == 64 * buffers.index(buffer)  # still alive
        assert C.aclDestroyDataBuffer(buffer) == 0
    C.aclGetRecentErrMsg()


def test_datasets_concurrent_adds() -> None:
    dataset = C.aclmdlCreateDataset()
    buffer = C.aclCreateDataBuffer(0, 0)

    def worker() -> None:
        for _ in range(500):
            assert C.aclmdlAddDatasetBuffer(dataset, buffer) == 0

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert C.aclmdlGetDatasetNumBuffers(dataset) == 2000
    assert C.aclmdlDestroyDataset(dataset) == 0
    assert C.aclDestroyDataBuffer(buffer) == 0


def test_get_desc_of_loaded_models(models: dict[str, Path], device: int) -> None:
    model_id, ret = C.aclmdlLoadFromFile(str(models["batch"]))
    assert ret == 0, C.aclGetRecentErrMsg()
    desc = C.aclmdlCreateDesc()
    assert C.aclmdlGetDesc(desc, model_id) == 0
    assert C.aclmdlGetNumInputs(desc) == 2
    assert C.aclmdlGetDynamicBatch(desc) == ({"batchCount": 3, "batch": [1, 2, 4]}, 0)
    file_desc = C.aclmdlCreateDesc()
    assert C.aclmdlGetDescFromFile(file_desc, str(models["batch"])) == 0
    for i in range(2):
        assert C.aclmdlGetInputDims(desc, i) == C.aclmdlGetInputDims(file_desc, i)
        assert C.aclmdlGetInputSizeByIndex(desc, i) == C.aclmdlGetInputSizeByIndex(file_desc, i)
    assert acl.mdl.get_desc(desc, model_id) == 0  # pyACL: desc first
    assert C.aclmdlUnload(model_id) == 0
    assert C.aclmdlGetNumInputs(desc) == 2  # the description outlives the model, as in CANN
    assert C.aclmdlGetDesc(desc, model_id) == 145003  # ACL_ERROR_GE_EXEC_MODEL_ID_INVALID
    assert f"model id {model_id} is not loaded" in C.aclGetRecentErrMsg()
    assert C.aclmdlGetDesc(desc, 0) == 145003
    assert C.aclmdlGetDesc(0, 1) == INVALID
    for handle in (desc, file_desc):
        assert C.aclmdlDestroyDesc(handle) == 0
    C.aclGetRecentErrMsg()


def test_aipp_queries(models: dict[str, Path], device: int) -> None:
    static_id, ret = C.aclmdlLoadFromFile(str(models["static"]))
    assert ret == 0, C.aclGetRecentErrMsg()
    assert C.aclmdlGetAippType(static_id, 0) == (C.ACL_DATA_WITHOUT_AIPP, 0xFFFFFFFF, 0)
    assert acl.mdl.get_first_aipp_info(static_id, 0) == (None, 145015)  # ACL_ERROR_GE_AIPP_NOT_EXIST
    assert C.aclmdlGetAippType(static_id, 1) == (0, 0, INVALID)
    assert C.aclmdlUnload(static_id) == 0
    assert C.aclmdlGetAippType(static_id, 0)[2] == 145003
    assert acl.mdl.get_first_aipp_info(static_id, 0) == (None, 145003)
    C.aclGetRecentErrMsg()
    om = read_om(models["aipp"])
    record = om.inout["aipp"][0]
    model_id, ret = C.aclmdlLoadFromFile(str(models["aipp"]))
    if ret == 545005:  # the AIPP preprocessing needs kernels (Transpose, ...) the kernel work may not have yet
        pytest.skip(C.aclGetRecentErrMsg())
    assert ret == 0, C.aclGetRecentErrMsg()
    assert C.aclmdlGetAippType(model_id, 0) == (C.ACL_DATA_WITH_STATIC_AIPP, 0xFFFFFFFF, 0)
    info, ret = acl.mdl.get_first_aipp_info(model_id, 0)
    assert ret == 0
    assert info["inputFormat"] == 3 and info["srcImageSizeW"] == 8 and info["srcImageSizeH"] == 8  # RGB888_U8
    assert info["meanChn0"] == record["mean_chn_0"] == 10 and info["varReciChn0"] == 0.5
    assert info["srcFormat"] == C.ACL_FORMAT_NHWC and info["srcDatatype"] == C.ACL_UINT8
    assert info["shapeCount"] == 1 and info["srcDimNum"] == 4
    pyacl_keys = {  # every key pyACL's dict has
        "cscSwitch", "matrixR0C0", "matrixR0C1", "matrixR1C0", "matrixR1C1", "matrixR1C2", "matrixR2C2",
        "outputBias0", "outputBias1", "outputBias2", "inputBias0", "inputBias1", "inputBias2", "rbuvSwapSwitch",
        "axSwapSwitch", "singleLineMode", "srcImageSizeW", "srcImageSizeH", "srcFormat", "srcDatatype", "srcDimNum",
        "shapeCount", "inputFormat", "aippExtend", "cropSwitch", "loadStartPosW", "loadStartPosH", "cropSizeW",
        "cropSizeH", "resizeSwitch", "resizeOutputW", "resizeOutputH", "paddingSwitch", "leftPaddingSize",
        "rightPaddingSize", "topPaddingSize", "bottomPaddingSize", "meanChn0", "meanChn1", "meanChn2", "meanChn3",
        "minChn0", "minChn1", "minChn2", "minChn3", "varReciChn0", "varReciChn1", "varReciChn2", "varReciChn3",
        "outDims"}
    assert pyacl_keys <= set(info) and info["aippExtend"] == 0
    (shape,) = info["outDims"]
    assert shape["srcDims"]["dims"] == [1, 8, 8, 3] and shape["srcSize"] == 8 * 8 * 3
    assert shape["aippOutdims"]["dims"] == record["out_dims"][0] and shape["aippOutSize"] == 1 * 3 * 8 * 8 * 4
    assert C.aclmdlUnload(model_id) == 0


MSAME_STYLE = r"""
#include <stdio.h>
#include <string.h>
#include "acl/acl.h"

/* What msame prints about a model before running it, through the C ABI. */
int main(int argc, char** argv) {
  (void)argc;
  aclmdlDesc* desc = aclmdlCreateDesc();
  if (aclmdlGetDescFromFile(desc, argv[1]) != ACL_SUCCESS) { printf("fail %s\n", aclGetRecentErrMsg()); return 1; }
  size_t n = aclmdlGetNumInputs(desc);
  printf("inputs %zu outputs %zu\n", n, aclmdlGetNumOutputs(desc));
  for (size_t i = 0; i < n; ++i) {
    aclmdlIODims dims;
    if (aclmdlGetInputDims(desc, i, &dims) != ACL_SUCCESS) return 2;
    printf("input %s size %zu dims", aclmdlGetInputNameByIndex(desc, i), aclmdlGetInputSizeByIndex(desc, i));
    for (size_t k = 0; k < dims.dimCount; ++k) printf(" %lld", (long long)dims.dims[k]);
    printf("\n");
  }
  size_t gears = 0;
  if (aclmdlGetInputDynamicGearCount(desc, (size_t)-1, &gears) != ACL_SUCCESS) return 3;
  aclmdlIODims all[8];
  if (aclmdlGetInputDynamicDims(desc, (size_t)-1, all, gears) != ACL_SUCCESS) return 4;
  for (size_t g = 0; g < gears; ++g) {
    printf("gear");
    for (size_t k = 0; k < all[g].dimCount; ++k) printf(" %lld", (long long)all[g].dims[k]);
    printf("\n");
  }
  size_t index = 0;
  if (aclmdlGetInputIndexByName(desc, ACL_DYNAMIC_TENSOR_NAME, &index) != ACL_SUCCESS) return 5;
  size_t work = 0, weight = 0;
  if (aclmdlQuerySize(argv[1], &work, &weight) != ACL_SUCCESS) return 6;
  aclmdlDataset* ds = aclmdlCreateDataset();
  static char memory[64];
  aclDataBuffer* buffer = aclCreateDataBuffer(memory, sizeof(memory));
  if (aclmdlAddDatasetBuffer(ds, buffer) != ACL_SUCCESS || aclmdlGetDatasetNumBuffers(ds) != 1 ||
      aclmdlGetDatasetBuffer(ds, 0) != buffer || aclmdlGetDatasetBuffer(ds, 1) != NULL)
    return 7;
  aclDestroyDataBuffer(buffer);
  aclmdlDestroyDataset(ds);
  aclmdlDestroyDesc(desc);
  printf("ok dynamic input %zu weight %zu\n", index, weight);
  return 0;
}
"""


def test_c_program(models: dict[str, Path], compiler) -> None:  # type: ignore[no-untyped-def]
    program = compiler.build(MSAME_STYLE, name="msame_style")
    result = compiler.run(program, str(models["dims"]))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == [
        "inputs 3 outputs 1",
        "input a size 512 dims -1 -1 8",  # the largest gear, (2, 8)
        "input b size 64 dims -1 1 4",
        "input ascend_mbatch_shape_data size 12 dims 3",
        "gear 1 4 8 1 1 4",
        "gear 2 8 8 2 1 4",
        "gear 4 2 8 4 1 4",
        "ok dynamic input 2 weight 512",
    ]
