"""The numerical cases every Ascend C launch path runs (tests/ascendc/vector_kernels.asc, io.h holds the same
shapes): inputs written as raw files into a directory, outputs read back and compared with numpy."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import acl
from acl_helpers import TESTS
from ascendcl import ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE

KERNELS = TESTS / "ascendc"
ADD_LENGTH, STAT_ROWS, STAT_COLS, SOFTMAX_ROWS, SOFTMAX_COLS = 4099, 37, 64, 13, 128


def to_device(array: np.ndarray) -> int:
    """A device copy of `array` (aclrtMalloc + aclrtMemcpy); free it with free_all."""
    ptr, ret = acl.rt.malloc(array.nbytes, 0)
    assert ret == 0
    assert acl.rt.memcpy(ptr, array.nbytes, array.ctypes.data, array.nbytes, ACL_MEMCPY_HOST_TO_DEVICE) == 0
    return ptr


def from_device(ptr: int, like: np.ndarray) -> np.ndarray:
    out = np.empty_like(like)
    assert acl.rt.memcpy(out.ctypes.data, out.nbytes, ptr, out.nbytes, ACL_MEMCPY_DEVICE_TO_HOST) == 0
    return out


def free_all(pointers: list[int]) -> None:
    for ptr in pointers:
        assert acl.rt.free(ptr) == 0


def write_inputs(directory: Path) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(16)
    inputs = {
        "add_x": rng.standard_normal(ADD_LENGTH).astype(np.float32),
        "add_y": rng.standard_normal(ADD_LENGTH).astype(np.float32),
        "stats_x": rng.standard_normal((STAT_ROWS, STAT_COLS)).astype(np.float32),
        "softmax_x": (3 * rng.standard_normal((SOFTMAX_ROWS, SOFTMAX_COLS))).astype(np.float16),
    }
    for name, array in inputs.items():
        array.tofile(directory / f"{name}.bin")
    return inputs


def check_outputs(directory: Path, inputs: dict[str, np.ndarray]) -> None:
    """Add is exact; the sums differ from numpy's by rounding order only (rtol 1e-5); max is exact; softmax is
    rounded to half once (atol 1e-3 on values in [0, 1])."""
    z = np.fromfile(directory / "add_z.bin", np.float32)
    np.testing.assert_array_equal(z, inputs["add_x"] + inputs["add_y"])
    x = inputs["stats_x"]
    np.testing.assert_allclose(np.fromfile(directory / "stats_sum.bin", np.float32), x.sum(axis=1), rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_array_equal(np.fromfile(directory / "stats_max.bin", np.float32), x.max(axis=1))
    h = inputs["softmax_x"].astype(np.float32)
    e = np.exp(h - h.max(axis=1, keepdims=True))
    expected = e / e.sum(axis=1, keepdims=True)
    y = np.fromfile(directory / "softmax_y.bin", np.float16).reshape(SOFTMAX_ROWS, SOFTMAX_COLS).astype(np.float32)
    np.testing.assert_allclose(y, expected, atol=1e-3)
    np.testing.assert_allclose(y.sum(axis=1), 1.0, atol=2e-2)
