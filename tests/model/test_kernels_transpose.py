"""Transpose of 4-byte elements, which moves 4 x 4 squares in each kernel variant's row loops (copy_util.cpp,
simd/row_loops.cpp), against numpy: NCHW <-> NHWC, a key's last two axes, axes that collapse, sizes that leave
tails of rows and columns (not multiples of 4, of the 16-column tiles, of the 64-row runs), with 1 and 2 threads."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from kernel_harness import Driver, run_kernel

RNG = np.random.default_rng(11)

CASES = [
    ((1, 96, 9, 7), (0, 2, 3, 1)),      # NCHW -> NHWC, 96 channels by 63 pixels
    ((2, 7, 5, 19), (0, 3, 1, 2)),      # NHWC -> NCHW
    ((1, 3, 70, 33), (0, 1, 3, 2)),     # a key's last two axes (rows past one 64-row run)
    ((5, 130), (1, 0)),                 # a matrix: three runs, the last partial
    ((2, 3, 4, 6), (2, 3, 0, 1)),       # collapsed pairs of axes
    ((4, 1, 17, 1, 3), (4, 2, 1, 0, 3)),  # unit axes dropped
]


@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_transpose_squares(driver: Driver, tmp_path: Path, threads: str, dtype: str) -> None:
    for shape, perm in CASES:
        x = (RNG.standard_normal(shape) * 100).astype(dtype)
        expected = x.transpose(perm)
        got = run_kernel(driver, tmp_path, "Transpose", [x], [(dtype, expected.shape)], attrs={"perm": list(perm)})[0]
        np.testing.assert_array_equal(got, expected, err_msg=f"{shape} perm {perm}")
