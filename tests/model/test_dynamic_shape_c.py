"""A dynamic-shape model from C (tests/c/dynamic_shape_flow.c): the description's -1 dims, ranges and output
size 0, aclmdlSetDatasetTensorDesc / aclmdlExecute / aclmdlGetDatasetTensorDesc for two shapes against
onnxruntime, and a dim outside its range refused with ACL_ERROR_GE_PARAM_INVALID naming the input and dim."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from dynamic_models import tiny_convnet
from exec_helpers import compile_model, reference

from acl_helpers import TESTS, Compiler


def test_dynamic_shape_flow_in_c(compiler: Compiler, tmp_path: Path) -> None:
    model = tiny_convnet()
    om = compile_model(model, tmp_path, "conv", input_shape="image:1~4,3,8~32,8~32")
    program = compiler.build(TESTS / "c" / "dynamic_shape_flow.c")
    rng = np.random.default_rng(5)
    for n, h, w in [(1, 16, 16), (4, 24, 10)]:
        x = rng.standard_normal((n, 3, h, w)).astype(np.float32)
        x.tofile(tmp_path / "x.bin")
        done = compiler.run(program, str(om), str(tmp_path / "x.bin"), str(n), str(h), str(w), str(tmp_path / "y.bin"))
        assert done.returncode == 0 and done.stdout.rstrip().endswith("ok"), done.stdout + done.stderr
        assert "input dims -1,3,-1,-1 range 8~32 output size 0" in done.stdout
        assert f"output dims 2: {n},5" in done.stdout
        assert "input 0 ('image'): dim 3 is 40, outside the model's range [8, 32]" in done.stdout
        got = np.fromfile(tmp_path / "y.bin", np.float32).reshape(n, 5)
        np.testing.assert_allclose(got, reference(model, {"image": x})[0], rtol=1e-4, atol=1e-4)
