"""Whole models (python/ascendsim/models, small sizes, random weights) compiled by ascendsim.compile and run
through aclmdlExecute, against onnxruntime on the same ONNX model: the precision modes, dynamic batch and
dynamic HW gears, asynchronous execution with a callback, and two threads executing one loaded model.

Tolerances (stated here, used by close()):
- force_fp32: rtol 1e-4, atol 1e-5 * max(1, max |want|): the same float32 operations as onnxruntime, but the
  reductions (Conv, MatMul, Gemm, pools, norms) sum in another order. Measured at these sizes: max abs error
  <= 1.2e-6 for every model (convnext_tiny; the others <= 7.2e-7; outputs up to 3.6).
- force_fp16: every node rounds its outputs to float16 (11-bit mantissa, relative step 2**-11 ~ 4.9e-4), so
  errors accumulate through the layers: max |got - want| <= 1e-2 * max |want|. Measured: <= 1.1e-3 * max |want|
  (convnext_tiny; resnet50 9.4e-4, densenet121 6.4e-4, bert 6e-4, vit and mobilenet 4.5e-4, efficientnet_b0
  4.2e-4, shufflenet_v1 3.4e-4, default 2.5e-4). Elementwise relative errors near zero outputs reach 0.26
  (bert), so fp16 is judged against the output scale only.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import pytest
from exec_helpers import DeviceBuffers, compile_model, execute_from_two_threads, execute_once, random_inputs, reference

import acl
from ascendcl import (
    ACL_SUCCESS,
    aclGetRecentErrMsg,
    aclmdlExecute,
    aclmdlExecuteAsync,
    aclmdlLoadFromFile,
    aclmdlSetDynamicBatchSize,
    aclmdlSetDynamicHWSize,
    aclmdlUnload,
    aclrtSynchronizeStream,
)
from ascendsim.models import (
    bert_base_encoder,
    convnext_tiny,
    default_model,
    densenet121,
    efficientnet_b0,
    mobilenet_v2,
    resnet50,
    shufflenet_v1,
    vit_b16,
)

FP32_RTOL, FP32_ATOL = 1e-4, 1e-5
FP16_SCALE = 1e-2

MODELS: dict[str, Callable[..., onnx.ModelProto]] = {
    "resnet50": lambda batch=1, image=32: resnet50(batch=batch, image=image, layers=(1, 1, 1, 1), width=8,
                                                   num_classes=10),
    "mobilenet_v2": lambda batch=1, image=32: mobilenet_v2(batch=batch, image=image, width=0.25, num_classes=10),
    "bert_base_encoder": lambda batch=1, image=None: bert_base_encoder(batch=batch, seq=16, layers=1, hidden=32,
                                                                       heads=4, intermediate=64, vocab=50),
    "vit_b16": lambda batch=1, image=32: vit_b16(batch=batch, image=image, layers=1, hidden=32, heads=4, mlp=64,
                                                 patch=8, num_classes=10),
    "default_model": lambda batch=1, image=64: default_model(image=image, num_classes=10),
    "efficientnet_b0": lambda batch=1, image=32: efficientnet_b0(batch=batch, image=image, width=0.25, depth=0.25,
                                                                 num_classes=10),
    "shufflenet_v1": lambda batch=1, image=32: shufflenet_v1(batch=batch, image=image, stages=(1, 2, 1),
                                                             channels=(12, 60, 120, 240), num_classes=10),
    "densenet121": lambda batch=1, image=32: densenet121(batch=batch, image=image, blocks=(2, 3, 2, 1), growth=8,
                                                         init_features=16, bn_size=2, num_classes=10),
    "convnext_tiny": lambda batch=1, image=32: convnext_tiny(batch=batch, image=image, depths=(1, 1, 2, 1),
                                                             dims=(8, 16, 24, 32), num_classes=10),
}



def close(got: np.ndarray, want: np.ndarray, precision: str, what: str) -> None:
    got = got.reshape(want.shape).astype(np.float64)
    scale = max(1.0, float(np.abs(want).max()))
    if precision == "force_fp32":
        np.testing.assert_allclose(got, want, rtol=FP32_RTOL, atol=FP32_ATOL * scale, err_msg=what)
    else:
        error = float(np.abs(got - want).max())
        assert error <= FP16_SCALE * float(np.abs(want).max()), f"{what}: max error {error}, scale {scale}"


def load(path: Path) -> int:
    model_id, ret = aclmdlLoadFromFile(str(path))
    assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
    return model_id



def with_dims(model: onnx.ModelProto, dims: dict[int, str]) -> onnx.ModelProto:
    """A copy whose image input (the first) has the symbolic dims `dims` (axis -> name) and whose output's
    batch dim follows axis 0's name (the models write static shapes; pooling makes them HW-agnostic)."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for axis, name in dims.items():
        copy.graph.input[0].type.tensor_type.shape.dim[axis].dim_param = name
    if 0 in dims:
        for out in copy.graph.output:
            out.type.tensor_type.shape.dim[0].dim_param = dims[0]
    return copy


@pytest.mark.parametrize("precision", ["force_fp32", "force_fp16"])
@pytest.mark.parametrize("name", list(MODELS))
def test_model_matches_onnxruntime(tmp_path: Path, device: int, name: str, precision: str) -> None:
    model = MODELS[name]()
    inputs = random_inputs(model, np.random.default_rng(0))
    want = reference(model, inputs)
    model_id = load(compile_model(model, tmp_path, name, precision_mode=precision))
    try:
        got = execute_once(model_id, list(inputs.values()), want)
    finally:
        assert aclmdlUnload(model_id) == ACL_SUCCESS
    for i, (g, w) in enumerate(zip(got, want)):
        close(g, w, precision, f"{name} {precision} output {i}")


@pytest.mark.parametrize("name", ["resnet50", "mobilenet_v2", "vit_b16", "shufflenet_v1", "convnext_tiny"])
def test_dynamic_batch(tmp_path: Path, device: int, name: str) -> None:
    """--dynamic_batch_size gears 1,2,4: one .om, the batch chosen per execution with aclmdlSetDynamicBatchSize,
    the input buffer sized for the largest gear (as ATC's models expect)."""
    base = MODELS[name]()
    model = with_dims(base, {0: "N"})
    model_id = load(compile_model(model, tmp_path, name, input_shape="input:-1,3,32,32",
                                  dynamic_batch_size="1,2,4"))
    rng = np.random.default_rng(3)
    ins = DeviceBuffers([np.zeros((4, 3, 32, 32), np.float32), np.zeros(1, np.int32)])
    outs = DeviceBuffers([np.zeros((4, 10), np.float32)])
    try:
        for batch in (2, 4, 1):
            x = rng.standard_normal((batch, 3, 32, 32)).astype(np.float32)
            ins.write(0, x)
            assert aclmdlSetDynamicBatchSize(model_id, ins.dataset, 1, batch) == ACL_SUCCESS, aclGetRecentErrMsg()
            assert aclmdlExecute(model_id, ins.dataset, outs.dataset) == ACL_SUCCESS, aclGetRecentErrMsg()
            got = outs.read()[0].reshape(-1)[:batch * 10].reshape(batch, 10)
            want = reference(MODELS[name](batch=batch), {"input": x})[0]
            close(got, want, "force_fp32", f"{name} batch {batch}")
    finally:
        ins.close()
        outs.close()
        assert aclmdlUnload(model_id) == ACL_SUCCESS


@pytest.mark.parametrize("name", ["resnet50", "mobilenet_v2", "default_model", "efficientnet_b0", "shufflenet_v1",
                                  "densenet121"])
def test_dynamic_hw(tmp_path: Path, device: int, name: str) -> None:
    """--dynamic_image_size gears 32x32 and 48x40 (global pooling makes the classifiers size-agnostic)."""
    model = with_dims(MODELS[name](image=32), {2: "H", 3: "W"})
    model_id = load(compile_model(model, tmp_path, name, input_shape="input:1,3,-1,-1",
                                  dynamic_image_size="32,32;48,40"))
    rng = np.random.default_rng(4)
    ins = DeviceBuffers([np.zeros((1, 3, 48, 40), np.float32), np.zeros(2, np.int32)])
    outs = DeviceBuffers([np.zeros((1, 10), np.float32)])
    try:
        for h, w in ((48, 40), (32, 32)):
            x = rng.standard_normal((1, 3, h, w)).astype(np.float32)
            ins.write(0, x)
            assert aclmdlSetDynamicHWSize(model_id, ins.dataset, 1, h, w) == ACL_SUCCESS, aclGetRecentErrMsg()
            assert aclmdlExecute(model_id, ins.dataset, outs.dataset) == ACL_SUCCESS, aclGetRecentErrMsg()
            want = reference(model, {"input": x})[0]
            close(outs.read()[0], want, "force_fp32", f"{name} {h}x{w}")
    finally:
        ins.close()
        outs.close()
        assert aclmdlUnload(model_id) == ACL_SUCCESS


@pytest.mark.parametrize("name", ["resnet50", "bert_base_encoder"])
def test_async_execute_with_callback(tmp_path: Path, stream: int, name: str) -> None:
    """Three aclmdlExecuteAsync on one stream, each followed by a callback that reads the output: the callback
    sees the finished output of its own execution."""
    from stream_helpers import reporter

    model = MODELS[name]()
    model_id = load(compile_model(model, tmp_path, name))
    rng = np.random.default_rng(5)
    feeds = [random_inputs(model, rng) for _ in range(3)]
    wants = [reference(model, feed) for feed in feeds]
    seen: list[list[np.ndarray]] = []
    buffers = [(DeviceBuffers(list(feed.values())), DeviceBuffers([np.zeros(w.shape, np.float32) for w in want]))
               for feed, want in zip(feeds, wants)]
    try:
        with reporter() as serving:
            serving.subscribe(stream)
            for ins, outs in buffers:
                assert aclmdlExecuteAsync(model_id, ins.dataset, outs.dataset, stream) == ACL_SUCCESS, \
                    aclGetRecentErrMsg()
                assert acl.rt.launch_callback(lambda o: seen.append(o.read()), outs, 1, stream) == ACL_SUCCESS
            assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
        assert len(seen) == 3
        for i, (got, want) in enumerate(zip(seen, wants)):
            close(got[0], want[0], "force_fp32", f"{name} async execution {i}")
    finally:
        for ins, outs in buffers:
            ins.close()
            outs.close()
        assert aclmdlUnload(model_id) == ACL_SUCCESS


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_two_threads_execute_the_same_model(tmp_path: Path, device: int, mode: str) -> None:
    """Two threads, each with its own stream and buffers, execute one loaded ViT at once (the model's
    feature-map memory must not be shared between concurrent executions, or results mix)."""
    model = MODELS["vit_b16"]()
    model_id = load(compile_model(model, tmp_path, "vit"))

    def feeds(rng: np.random.Generator) -> list[dict[str, np.ndarray]]:
        return [random_inputs(model, rng) for _ in range(8)]

    def check(label: str, feed: dict[str, np.ndarray], output: np.ndarray) -> None:
        close(output, reference(model, feed)[0], "force_fp32", label)

    errors = execute_from_two_threads(model_id, mode, feeds, output_shape=(1, 10), check=check, seeds=(20, 21))
    assert aclmdlUnload(model_id) == ACL_SUCCESS
    assert errors == []
