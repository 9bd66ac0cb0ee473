"""Whole models through the real path (ascendsim.compile -> aclmdlLoadFromFile -> aclmdlExecute) with every
node on the registry's kernels, against onnxruntime on the same ONNX model: small ResNet-, MobileNet-,
ViT- and BERT-style models and the default model, in force_fp32 and force_fp16.

Tolerances: fp32 rtol 1e-3 / atol 1e-3 (deep stacks of reductions summed in another order than
onnxruntime); fp16 modes: every node rounds its outputs to float16, so the error is relative to the output
scale: max |got - want| <= 3e-2 * max |want|."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from exec_helpers import compile_model, execute_once, random_inputs, reference

from ascendcl import ACL_SUCCESS, aclGetRecentErrMsg, aclmdlLoadFromFile, aclmdlUnload
from ascendsim.models import bert_base_encoder, default_model, mobilenet_v2, resnet50, vit_b16

MODELS = {
    "resnet": lambda: resnet50(batch=2, image=64, layers=(1, 1, 2, 1), width=16, num_classes=10),
    "mobilenet": lambda: mobilenet_v2(batch=1, image=64, width=0.5, num_classes=10),
    "vit": lambda: vit_b16(batch=2, image=32, layers=2, hidden=64, heads=4, mlp=128, patch=8, num_classes=10),
    "bert": lambda: bert_base_encoder(batch=2, seq=16, layers=2, hidden=64, heads=4, intermediate=128, vocab=100),
    "default": lambda: default_model(image=64, num_classes=10),
}



@pytest.mark.parametrize("precision", ["force_fp32", "force_fp16"])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_matches_onnxruntime(tmp_path: Path, device: int, name: str, precision: str) -> None:
    model = MODELS[name]()
    inputs = random_inputs(model, np.random.default_rng(0))
    want = reference(model, inputs)
    model_id, ret = aclmdlLoadFromFile(str(compile_model(model, tmp_path, name, precision_mode=precision)))
    assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
    try:
        got = execute_once(model_id, list(inputs.values()), want)
    finally:
        assert aclmdlUnload(model_id) == ACL_SUCCESS
    for g, w in zip(got, want):
        if precision == "force_fp32":
            np.testing.assert_allclose(g, w, rtol=1e-3, atol=1e-3)
        else:
            assert np.abs(g.astype(np.float64) - w).max() <= 3e-2 * np.abs(w).max(), name
