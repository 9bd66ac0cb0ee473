"""The AscendCL model-inference sample flow in C, built against the installed headers and libascendcl.so (as
tests/test_c_programs.py builds its programs): aclInit -> aclrtSetDevice -> aclrtCreateContext ->
aclrtCreateStream -> aclmdlLoadFromFile -> aclmdlCreateDesc/aclmdlGetDesc -> input/output datasets sized from
the description -> aclrtMemcpy host to device -> aclmdlExecute (and aclmdlExecuteAsync + synchronize) ->
aclrtMemcpy device to host -> destroy datasets -> aclmdlUnload -> destroy desc, stream, context ->
aclrtResetDevice -> aclFinalize, on an .om compiled in the test, the output checked against onnxruntime."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from exec_helpers import compile_model, reference

from acl_helpers import Compiler
from ascendsim.models import default_model, resnet50

SAMPLE = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "acl/acl.h"

#define CHECK(call) do { aclError ret_ = (call); if (ret_ != ACL_SUCCESS) { \
    fprintf(stderr, "%s failed: %d %s\n", #call, (int)ret_, aclGetRecentErrMsg()); return 1; } } while (0)
#define CHECK_PTR(p) do { if ((p) == NULL) { \
    fprintf(stderr, "%s is NULL: %s\n", #p, aclGetRecentErrMsg()); return 1; } } while (0)

static int read_file(const char *path, void *host, size_t size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return -1;
    size_t n = fread(host, 1, size, f);
    fclose(f);
    return n == size ? 0 : -1;
}

static int write_file(const char *path, const void *host, size_t size) {
    FILE *f = fopen(path, "wb");
    if (f == NULL) return -1;
    size_t n = fwrite(host, 1, size, f);
    fclose(f);
    return n == size ? 0 : -1;
}

/* argv: model.om input.bin output.bin (sync) output_async.bin */
int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: %s model.om input.bin output.bin output_async.bin\n", argv[0]); return 2; }
    int32_t deviceId = 0;
    aclrtContext context = NULL;
    aclrtStream stream = NULL;
    uint32_t modelId = 0;

    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(deviceId));
    CHECK(aclrtCreateContext(&context, deviceId));
    CHECK(aclrtCreateStream(&stream));
    aclrtRunMode runMode;
    CHECK(aclrtGetRunMode(&runMode));

    CHECK(aclmdlLoadFromFile(argv[1], &modelId));
    aclmdlDesc *desc = aclmdlCreateDesc();
    CHECK_PTR(desc);
    CHECK(aclmdlGetDesc(desc, modelId));
    size_t numInputs = aclmdlGetNumInputs(desc), numOutputs = aclmdlGetNumOutputs(desc);
    if (numInputs != 1 || numOutputs != 1) { fprintf(stderr, "inputs %zu outputs %zu\n", numInputs, numOutputs); return 1; }

    /* input: host buffer read from the file, copied to device memory */
    size_t inSize = aclmdlGetInputSizeByIndex(desc, 0);
    void *inHost = NULL, *inDev = NULL;
    CHECK(aclrtMallocHost(&inHost, inSize));
    if (read_file(argv[2], inHost, inSize) != 0) { fprintf(stderr, "input file is not %zu bytes\n", inSize); return 1; }
    CHECK(aclrtMalloc(&inDev, inSize, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(inDev, inSize, inHost, inSize, ACL_MEMCPY_HOST_TO_DEVICE));
    aclmdlDataset *input = aclmdlCreateDataset();
    CHECK_PTR(input);
    aclDataBuffer *inBuf = aclCreateDataBuffer(inDev, inSize);
    CHECK_PTR(inBuf);
    CHECK(aclmdlAddDatasetBuffer(input, inBuf));

    /* output: device memory sized from the description */
    size_t outSize = aclmdlGetOutputSizeByIndex(desc, 0);
    void *outDev = NULL, *outHost = NULL;
    CHECK(aclrtMalloc(&outDev, outSize, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemset(outDev, outSize, 0, outSize));
    aclmdlDataset *output = aclmdlCreateDataset();
    CHECK_PTR(output);
    aclDataBuffer *outBuf = aclCreateDataBuffer(outDev, outSize);
    CHECK_PTR(outBuf);
    CHECK(aclmdlAddDatasetBuffer(output, outBuf));
    if (aclmdlGetDatasetNumBuffers(output) != 1) { fprintf(stderr, "dataset buffers\n"); return 1; }

    aclmdlIODims dims;
    CHECK(aclmdlGetOutputDims(desc, 0, &dims));
    aclDataType dtype = aclmdlGetOutputDataType(desc, 0);

    /* synchronous execution, output copied back */
    CHECK(aclmdlExecute(modelId, input, output));
    CHECK(aclrtMallocHost(&outHost, outSize));
    void *outAddr = aclGetDataBufferAddr(aclmdlGetDatasetBuffer(output, 0));
    size_t outBufSize = aclGetDataBufferSizeV2(aclmdlGetDatasetBuffer(output, 0));
    CHECK(aclrtMemcpy(outHost, outSize, outAddr, outBufSize, ACL_MEMCPY_DEVICE_TO_HOST));
    if (write_file(argv[3], outHost, outSize) != 0) return 1;

    /* asynchronous execution on the stream, then synchronize */
    CHECK(aclrtMemset(outDev, outSize, 0, outSize));
    CHECK(aclmdlExecuteAsync(modelId, input, output, stream));
    CHECK(aclrtSynchronizeStream(stream));
    CHECK(aclrtMemcpy(outHost, outSize, outDev, outSize, ACL_MEMCPY_DEVICE_TO_HOST));
    if (write_file(argv[4], outHost, outSize) != 0) return 1;

    /* teardown, in the sample's order */
    CHECK(aclDestroyDataBuffer(inBuf));
    CHECK(aclmdlDestroyDataset(input));
    CHECK(aclDestroyDataBuffer(outBuf));
    CHECK(aclmdlDestroyDataset(output));
    CHECK(aclrtFree(inDev));
    CHECK(aclrtFree(outDev));
    CHECK(aclrtFreeHost(inHost));
    CHECK(aclrtFreeHost(outHost));
    CHECK(aclmdlUnload(modelId));
    CHECK(aclmdlDestroyDesc(desc));
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtDestroyContext(context));
    CHECK(aclrtResetDevice(deviceId));
    CHECK(aclFinalize());

    printf("ok in=%zu out=%zu dtype=%d dims=", inSize, outSize, (int)dtype);
    for (size_t i = 0; i < dims.dimCount; ++i) printf("%s%ld", i ? "," : "", (long)dims.dims[i]);
    printf("\n");
    return 0;
}
"""


def run_sample(tmp_path: Path, model: onnx.ModelProto, name: str, x: np.ndarray,
               precision: str = "force_fp32") -> tuple[str, list[np.ndarray]]:
    compiler = Compiler(tmp_path)
    program = compiler.build(SAMPLE, name="model_sample")
    om = compile_model(model, tmp_path, name, precision_mode=precision)
    (tmp_path / "input.bin").write_bytes(np.ascontiguousarray(x, np.float32).tobytes())
    result = compiler.run(program, str(om), str(tmp_path / "input.bin"), str(tmp_path / "out.bin"),
                          str(tmp_path / "out_async.bin"))
    assert result.returncode == 0, result.stdout + result.stderr
    outs = [np.frombuffer((tmp_path / f).read_bytes(), np.float32) for f in ("out.bin", "out_async.bin")]
    return result.stdout, outs


def test_c_sample_flow_default_model(tmp_path: Path) -> None:
    model = default_model(image=64, num_classes=10)
    x = np.random.default_rng(0).standard_normal((1, 3, 64, 64)).astype(np.float32)
    want = reference(model, {"input": x})[0]
    stdout, (sync, async_) = run_sample(tmp_path, model, "default", x)
    assert stdout.startswith(f"ok in={x.nbytes} out={want.nbytes} dtype=0 dims=1,10"), stdout
    np.testing.assert_allclose(sync.reshape(want.shape), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(async_, sync)
    assert abs(float(sync.sum()) - 1.0) < 1e-5  # the default model ends in Softmax


def test_c_sample_flow_resnet(tmp_path: Path) -> None:
    model = resnet50(batch=2, image=32, layers=(1, 1, 1, 1), width=8, num_classes=10)
    x = np.random.default_rng(1).standard_normal((2, 3, 32, 32)).astype(np.float32)
    want = reference(model, {"input": x})[0]
    stdout, (sync, async_) = run_sample(tmp_path, model, "resnet", x)
    assert stdout.startswith(f"ok in={x.nbytes} out={want.nbytes} dtype=0 dims=2,10"), stdout
    np.testing.assert_allclose(sync.reshape(want.shape), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(async_, sync)
