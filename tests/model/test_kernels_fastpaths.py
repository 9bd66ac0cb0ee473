"""The kernels' fast paths at sizes that reach them, with 1 and 2 pool threads (ASCENDSIM_NUM_THREADS), against
numpy and onnxruntime:
- elementwise direct slots (float32/int64 inputs read in place, the last step writing into the output) and
  their fallbacks (broadcast, float16, other integer widths), tiny (inline) to multi-block (pooled), in place;
- sgemm cut into column or row blocks over the pool (gemm.cpp), odd sizes, transposes, beta;
- the depthwise paths (stride-1 row blocks of 3x3, 5x5 and 7x7 kernels from 20 columns on, AVX2/AVX-512; small "same" planes with masked taps; stride-2
  windows; polyphase planes for the rest; kernel widths 1 to 9, strides, dilations, asymmetric pads) with bias
  and fused or separate activations;
- the general conv path's column blocks, on OpenBLAS (weights as an input) and on weights packed at build
  (PackedMatrix: partial row panels, column tiles and 16-column vectors with tails, groups, batches, no bias,
  deep K, the 10x10 limit, the epilogue fused or not); Winograd F(2x2, 3x3) for 3x3 stride-1 convs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort
import pytest
from kernel_harness import Driver, Refused, run_kernel
from onnx import TensorProto, helper
from test_kernels_cube import ort_conv

RNG = np.random.default_rng(23)


def normal(shape: tuple[int, ...], dtype: type = np.float32) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("shape", [(1, 16), (1,), (17,), (3, 511), (2, 513), (64, 1031)])
@pytest.mark.parametrize("inplace", [False, True])
def test_add_direct(driver: Driver, tmp_path: Path, threads: str, shape: tuple[int, ...], inplace: bool) -> None:
    a, b = normal(shape), normal(shape)
    got = run_kernel(driver, tmp_path, "Add", [a, b], [(np.float32, shape)], inplace=(0, 0) if inplace else None)[0]
    np.testing.assert_array_equal(got, a + b)


BINARY = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide}


@pytest.mark.parametrize("op", sorted(BINARY))
@pytest.mark.parametrize("shapes", [((1, 4), (1, 4)), ((33,), (33,)), ((), (2, 9)), ((1, 40), (1, 1))])
def test_binary_direct(driver: Driver, tmp_path: Path, threads: str, op: str, shapes: tuple) -> None:
    """The small one-op path (binary_direct) on equal shapes, and beside it a broadcast scalar on either side
    (the block loop); a zero divisor."""
    a, b = normal(shapes[0]), normal(shapes[1])
    b.flat[0] = 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        want = BINARY[op](a, b).astype(np.float32)
    got = run_kernel(driver, tmp_path, op, [a, b], [(np.float32, want.shape)])[0]
    np.testing.assert_array_equal(got, want)


def test_binary_direct_same_input(driver: Driver, tmp_path: Path, threads: str) -> None:
    """Both operands the same slot (x * x), written in place."""
    x = normal((3, 5))
    program = [{"op": "Mul", "inputs": [0, 0], "attrs": {}}]
    got = run_kernel(driver, tmp_path, "FusedElementwise", [x], [(np.float32, x.shape)], domain="ascendsim",
                     attrs={"program": program}, inplace=(0, 0))[0]
    np.testing.assert_array_equal(got, x * x)


@pytest.mark.parametrize(("a_shape", "b_shape"), [((1, 16), ()), ((5, 1), (1, 700)), ((3, 600), (600,))])
def test_broadcast_mixed(driver: Driver, tmp_path: Path, threads: str, a_shape: tuple, b_shape: tuple) -> None:
    """A broadcast (stride 0) operand goes through scratch while the other is read in place."""
    a, b = normal(a_shape), normal(b_shape)
    want = a * b
    got = run_kernel(driver, tmp_path, "Mul", [a, b], [(np.float32, want.shape)])[0]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float16, np.int32, np.int64])
def test_sub_storage_kinds(driver: Driver, tmp_path: Path, threads: str, dtype: type) -> None:
    """float16 (converted slots and store), int32 (converted), int64 (direct)."""
    a = (RNG.standard_normal((7, 300)) * 100).astype(dtype)
    b = (RNG.standard_normal((7, 300)) * 100).astype(dtype)
    got = run_kernel(driver, tmp_path, "Sub", [a, b], [(dtype, a.shape)])[0]
    np.testing.assert_array_equal(got, a - b)


@pytest.mark.parametrize("n", [5, 1500])
def test_fused_inplace_multistep(driver: Driver, tmp_path: Path, threads: str, n: int) -> None:
    """Intermediate steps in scratch, the last one straight into the output, which aliases input 0."""
    x, y = normal((2, n)), normal((n,))
    program = [{"op": "Mul", "inputs": [0, 1], "attrs": {}}, {"op": "Relu", "inputs": [2], "attrs": {}},
               {"op": "Sub", "inputs": [3, 0], "attrs": {}}]
    got = run_kernel(driver, tmp_path, "FusedElementwise", [x, y], [(np.float32, x.shape)], domain="ascendsim",
                     attrs={"program": program}, inplace=(0, 0))[0]
    np.testing.assert_allclose(got, np.maximum(x * y, 0) - x, rtol=1e-6, atol=1e-7)


def test_cast_to_int64_direct(driver: Driver, tmp_path: Path, threads: str) -> None:
    x = (RNG.standard_normal((3, 700)) * 50).astype(np.float32)
    got = run_kernel(driver, tmp_path, "Cast", [x], [(np.int64, x.shape)], attrs={"to": 9})[0]  # aclDataType INT64
    np.testing.assert_array_equal(got, x.astype(np.int64))


def test_inplace_over_wider_broadcast_input(driver: Driver, tmp_path: Path, threads: str) -> None:
    """A float32 [2] output over an int64 [1] exponent of the same byte size: the exponent is loaded first."""
    base = np.array([3.0, -2.0], np.float32)
    exponent = np.array([3], np.int64)
    got = run_kernel(driver, tmp_path, "Pow", [base, exponent], [(np.float32, (2,))], inplace=(0, 1))[0]
    np.testing.assert_array_equal(got, base ** 3)


@pytest.mark.parametrize(("a", "b"), [((333, 64), (64, 17)), ((5, 300), (300, 1001)), ((2, 37, 129), (129, 250)),
                                      ((3, 65, 40), (3, 40, 33)), ((1, 300), (300, 1001)), ((999, 65), (65, 1)),
                                      ((1001, 200), (200, 1)), ((33, 16384), (16384, 1))])
def test_matmul_split(driver: Driver, tmp_path: Path, threads: str, a: tuple, b: tuple) -> None:
    """Row blocks (M > N), column blocks (N >= M), a folded batch, per-batch GEMMs, a row and columns: sgemv, and
    the streamed rows of a matrix of 128 Ki floats or more (gemm.cpp, simd/matrix_vector.cpp); 33 rows split over
    2 threads end in a block of one row (a row of C by B's column: it had written 16383 values past C)."""
    x, y = normal(a), normal(b)
    want = x @ y
    got = run_kernel(driver, tmp_path, "MatMul", [x, y], [(np.float32, want.shape)])[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("case", [(1, 0, 301, 45, 70), (0, 1, 41, 513, 90), (1, 1, 200, 201, 33),
                                  *[(ta, tb, 1, 1003, 517) for ta in (0, 1) for tb in (0, 1)],
                                  *[(ta, tb, 999, 1, 65) for ta in (0, 1) for tb in (0, 1)], (0, 1, 1, 1, 7),
                                  (1, 1, 1, 258, 2049), (0, 0, 1027, 1, 131)])
def test_gemm_split_transposed(driver: Driver, tmp_path: Path, threads: str, case: tuple[int, ...]) -> None:
    """case: transA, transB, M, N, K; M or N of 1: the matrix-vector products, split over the pool. Over a matrix
    of 128 Ki floats or more multiplied by its rows (1 x 1003 x 517 with B transposed, 1 x 258 x 2049 and 1027 x 1 x
    131), our streamed rows (simd/matrix_vector.cpp): row counts not a multiple of 4, depths ending in a partial
    vector, a column of C."""
    ta, tb, m, n, k = case
    a = normal((k, m) if ta else (m, k))
    b = normal((n, k) if tb else (k, n))
    c = normal((1, n))
    want = 0.5 * (a.T if ta else a) @ (b.T if tb else b) + 1.5 * c
    got = run_kernel(driver, tmp_path, "Gemm", [a, b, c], [(np.float32, (m, n))],
                     attrs={"transA": ta, "transB": tb, "alpha": 0.5, "beta": 1.5})[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(("alpha", "beta"), [(1.5, -0.5), (0.0, 0.5), (2.0, 0.0)])
def test_cann_gemm_streamed_row(driver: Driver, tmp_path: Path, threads: str, alpha: float, beta: float) -> None:
    """CANN's GEMM (aclblasGemmEx) of one row of A by a 600 x 512 B stored transposed runs on the streamed rows,
    which take alpha and beta as sgemv does: alpha 0 reads neither operand (an infinite weight stays out), beta 0
    reads no C (a NaN there stays out)."""
    a, b, c = normal((1, 512)), normal((600, 512)), normal((1, 600))
    if alpha == 0:
        b[3, 7] = np.inf
    if beta == 0:
        c[0, 5] = np.nan
    want = (alpha * (a @ b.T) if alpha else np.zeros((1, 600))) + (beta * c if beta else 0)
    got = run_kernel(driver, tmp_path, "GEMM", [a, b, c, np.array(alpha, np.float32), np.array(beta, np.float32)],
                     [(np.float32, (1, 600))], attrs={"transpose_b": 1}, domain="ascendsim")[0]
    np.testing.assert_allclose(got, want.astype(np.float32), rtol=1e-4, atol=1e-4)


DEPTHWISE = [
    {"x": (1, 6, 40, 40), "k": (3, 3), "pads": [1, 1, 1, 1]},                         # flat range > one block
    {"x": (2, 3, 37, 45), "k": (3, 3), "pads": [0, 1, 2, 1]},                          # ranges not whole steps
    {"x": (2, 5, 23, 19), "k": (3, 3), "pads": [1, 1, 1, 1], "strides": [2, 2]},       # odd sizes, stride 2
    {"x": (1, 4, 17, 17), "k": (5, 5), "pads": [2, 1, 2, 3], "strides": [3, 3]},       # stride 3, 5 taps
    {"x": (1, 3, 21, 20), "k": (3, 3), "pads": [2, 2, 2, 2], "strides": [2, 1], "dilations": [2, 2]},
    {"x": (1, 4, 9, 11), "k": (1, 1), "strides": [2, 2]},                              # one tap
    {"x": (1, 4, 12, 10), "k": (2, 4), "pads": [0, 1, 1, 2], "dilations": [1, 3]},     # 2 and 4 taps per row
    {"x": (1, 3, 7, 7), "k": (7, 7), "pads": [3, 3, 3, 3]},                            # kernel as large as the image
    {"x": (1, 4, 40, 38), "k": (7, 7), "pads": [3, 3, 3, 3]},                          # 49 taps in registers
    {"x": (1, 2, 36, 36), "k": (8, 8), "pads": [3, 4, 4, 3]},                          # 64: the most in registers
    {"x": (1, 2, 35, 33), "k": (9, 9), "pads": [4, 4, 4, 4], "act": "Relu"},           # 81 taps: one pass per tap
    # "same" convs on small planes (masked flat taps; planes not a multiple of 16 positions)
    {"x": (2, 5, 7, 7), "k": (3, 3), "pads": [1, 1, 1, 1]},
    {"x": (1, 3, 14, 13), "k": (5, 5), "pads": [2, 2, 2, 2], "act": "Relu"},
    {"x": (1, 4, 6, 9), "k": (2, 2), "pads": [0, 0, 1, 1], "act": None},                # asymmetric: taps below/right
    {"x": (1, 4, 10, 10), "k": (3, 3), "pads": [1, 1, 1, 1], "act": "HardSwish"},       # epilogue after the planes
    {"x": (1, 3, 12, 75), "k": (3, 3), "pads": [1, 1, 1, 1], "strides": [2, 2]},       # stride-2 rows by shuffles
    # stride-2 planes deinterleaved: even left pad (0, 2), odd (1, 3), row counts not a multiple of 4
    {"x": (1, 6, 45, 34), "k": (5, 5), "pads": [2, 2, 2, 2], "strides": [2, 2]},
    {"x": (1, 2, 34, 66), "k": (3, 3), "pads": [0, 0, 1, 1], "strides": [2, 2], "act": "Relu"},
    {"x": (1, 2, 40, 41), "k": (7, 7), "pads": [3, 3, 3, 3], "strides": [2, 2]},
    # stride 2, 16 channels and more, planes of at most 32x32: blocks of 16 channels (partial blocks, 2 images)
    {"x": (2, 37, 14, 13), "k": (3, 3), "pads": [1, 1, 1, 1], "strides": [2, 2]},
    {"x": (1, 20, 9, 11), "k": (5, 5), "pads": [2, 1, 2, 3], "strides": [2, 2], "act": "Relu"},
    {"x": (1, 32, 28, 28), "k": (3, 3), "pads": [1, 1, 1, 1], "strides": [2, 2], "act": "HardSwish"},
    {"x": (1, 17, 3, 3), "k": (3, 3), "pads": [1, 1, 1, 1], "strides": [2, 2], "act": None},  # 9 pixels
    {"x": (1, 16, 32, 32), "k": (1, 1), "strides": [2, 2]},
    {"x": (1, 16, 7, 7), "k": (3, 3), "pads": [1, 1, 1, 1]},                           # stride 1: same path
    # stride-1 row blocks: rows past the last block of 4, columns past the last step, 2 images x channels
    {"x": (2, 3, 57, 58), "k": (7, 7), "pads": [3, 3, 3, 3], "act": "HardSwish"},
    {"x": (1, 3, 30, 40), "k": (5, 5), "act": "Relu"},                                 # no padding: smaller output
    {"x": (1, 2, 26, 25), "k": (3, 3), "pads": [2, 0, 0, 3]},                          # lopsided pads
    {"x": (1, 4, 112, 112), "k": (3, 3), "pads": [1, 1, 1, 1], "act": "Clip"},         # MobileNet's first
    # wide stride-1 planes of other kernels: the polyphase path
    {"x": (1, 2, 22, 33), "k": (1, 7), "pads": [0, 3, 0, 3]},                          # one kernel row
    {"x": (1, 2, 31, 20), "k": (7, 1), "pads": [3, 0, 3, 0], "act": None},             # one kernel column
    {"x": (1, 2, 24, 70), "k": (11, 11), "pads": [5, 5, 5, 5]},
]


EPILOGUES = {"Clip": lambda v: np.clip(v, 0.0, 6.0), "Relu": lambda v: np.maximum(v, 0.0), None: lambda v: v,
             "HardSwish": lambda v: v * np.clip(v / 6.0 + 0.5, 0.0, 1.0)}


def epilogue_attrs(act: str | None) -> dict[str, Any]:
    """The fused-activation attributes for EPILOGUES[act] (Clip as ReLU6); none for None."""
    if act is None:
        return {}
    return {"activation": act, **({"activation_alpha": 0.0, "activation_beta": 6.0} if act == "Clip" else {})}


@pytest.mark.parametrize("case", range(len(DEPTHWISE)))
def test_depthwise(driver: Driver, tmp_path: Path, threads: str, case: int) -> None:
    spec = dict(DEPTHWISE[case])
    x = normal(spec.pop("x"))
    channels = x.shape[1]
    w = normal((channels, 1, *spec.pop("k")))
    b = normal((channels,))
    act = spec.pop("act", "Clip")
    spec["group"] = channels
    want = EPILOGUES[act](ort_conv(x, w, b, **spec))
    got = run_kernel(driver, tmp_path, "Conv", [x, w, b], [(np.float32, want.shape)],
                     attrs={**spec, **epilogue_attrs(act)}, constant=(1,))[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def erf64(x: np.ndarray) -> np.ndarray:
    import math

    return np.vectorize(math.erf)(x)


VMATH = {  # vmath.h's exp/erf/tanh, alone and inside other ops, against float64
    "Exp": np.exp, "Erf": erf64, "Tanh": np.tanh, "Sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "Gelu": lambda x: 0.5 * x * (1 + erf64(x / np.sqrt(2))), "Elu": lambda x: np.where(x >= 0, x, np.expm1(x)),
}


@pytest.mark.parametrize("op", sorted(VMATH))
def test_vmath_ranges(driver: Driver, tmp_path: Path, op: str) -> None:
    """Every range split (tiny, near the switch points, large), overflow/underflow, +-inf and NaN."""
    special = np.array([0.0, -0.0, 1e-30, -1e-20, 0.4999, 0.5, 0.6249, 0.625, 88.7, 88.8, -86.4, -86.6, -104.0, 200.0,
                        -200.0, np.inf, -np.inf, np.nan], np.float32)
    x = np.concatenate([special, np.linspace(-12, 12, 4001, dtype=np.float32), RNG.standard_normal(999).astype(np.float32)])
    with np.errstate(over="ignore", invalid="ignore"):
        want = VMATH[op](x.astype(np.float64))
    got = run_kernel(driver, tmp_path, op, [x], [(np.float32, x.shape)], attrs={"alpha": 1.0} if op == "Elu" else None)[0]
    # atol: float32 Gelu/Elu lose everything below 1e-7 absolute to 1 + erf / exp - 1 (as glibc's and ORT's do).
    with np.errstate(over="ignore"):
        np.testing.assert_allclose(got, want.astype(np.float32), rtol=2e-6, atol=1e-6, equal_nan=True)
    tiny = np.abs(x) < 1e-6  # relative accuracy kept near 0 where the op is ~linear
    if op in ("Erf", "Tanh"):
        np.testing.assert_allclose(got[tiny], want[tiny], rtol=1e-6, atol=0)


BLOCKED_CONVS = [  # the general path's column blocks (block = 131072 / (C/g * kh * kw) columns, multiple of 16), with
    # constant weights (packed at build: PackedMatrix) and with weights fed as an input (OpenBLAS)
    {"x": (1, 64, 40, 40), "w": (32, 64, 3, 3), "pads": [1, 1, 1, 1]},                       # 8 blocks of 224
    {"x": (1, 64, 15, 20), "w": (29, 64, 3, 3), "pads": [1, 1, 1, 1]},                       # 2 blocks: split GEMMs
    {"x": (2, 32, 33, 31), "w": (60, 32, 3, 3), "pads": [0, 1, 2, 1], "strides": [2, 2], "dilations": [2, 1]},  # 1 block
    {"x": (1, 64, 50, 50), "w": (260, 64, 1, 1)},                                            # 1x1 in place, 2 blocks
    {"x": (1, 2048, 14, 14), "w": (9, 2048, 1, 1)},                                          # 1x1, 4 blocks of 64
    {"x": (1, 128, 29, 29), "w": (130, 128, 1, 1), "strides": [2, 2]},                        # strided 1x1 (im2col)
    {"x": (1, 64, 30, 31), "w": (120, 32, 3, 3), "group": 2, "pads": [1, 1, 1, 1]},           # groups, 3 blocks each
]


@pytest.mark.parametrize("case", range(len(BLOCKED_CONVS)))
@pytest.mark.parametrize("constant", [True, False])
def test_conv_blocks(driver: Driver, tmp_path: Path, threads: str, case: int, constant: bool) -> None:
    spec = dict(BLOCKED_CONVS[case])
    x = normal(spec.pop("x"))
    w = normal(spec.pop("w")) * 0.1
    b = normal((w.shape[0],))
    want = np.maximum(ort_conv(x, w, b, **spec), 0.0)
    got = run_kernel(driver, tmp_path, "Conv", [x, w, b], [(np.float32, want.shape)],
                     attrs={**spec, "activation": "Relu"}, constant=(1,) if constant else ())[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


PACKED_CONVS = [  # constant weights, packed at build (16-row panels; 7-column tiles below 64 columns, 16-column vectors
    # from 64); planes of at most 100 positions split the product by panels
    # (dilated 3x3 convs here: a 3x3 stride-1 one with 16 channels would run as Winograd)
    {"x": (1, 37, 7, 7), "w": (21, 37, 3, 3), "pads": [2, 2, 2, 2], "dilations": [2, 2]},      # a full and a partial panel
    {"x": (2, 70, 10, 10), "w": (35, 70, 1, 1)},                                               # 1x1 in place, 100 columns
    {"x": (1, 24, 9, 13), "w": (40, 12, 3, 3), "group": 2, "pads": [1, 0, 1, 2], "strides": [2, 2]},  # groups, 5x7: five full tiles
    {"x": (1, 300, 5, 3), "w": (130, 300, 1, 1), "bias": False},                               # panels split over threads; 15 columns: a 1-column tile
    # depth >= 256 and >= 2x the rows, on a small plane: split by depth over 2 threads (tiles; vectors and a tail)
    {"x": (1, 600, 7, 7), "w": (150, 600, 1, 1), "act": "Clip"},
    {"x": (1, 520, 9, 10), "w": (40, 520, 1, 1)},
    # wide products deeper than 384 in depth slices of 256 (the last partial; a partial column block; bias, Relu)
    {"x": (1, 700, 9, 9), "w": (70, 700, 1, 1), "act": "Relu"},
    {"x": (1, 500, 12, 12), "w": (80, 500, 1, 1), "act": "Clip"},                              # by slices on 2 threads
    # deep and tall on a whole plane of 64-255 columns: B packed into 7-column tiles (groups of 48 rows, a partial one)
    {"x": (1, 512, 14, 14), "w": (130, 512, 1, 1), "act": "Clip"},
    {"x": (1, 300, 10, 11), "w": (96, 300, 1, 1)},                                             # 110 columns: a partial tile
    {"x": (1, 512, 7, 7), "w": (33, 512, 3, 3), "pads": [2, 2, 2, 2], "dilations": [2, 2]},    # K = 4608
    {"x": (1, 16, 11, 10), "w": (1030, 16, 1, 1)},                                             # 110 columns, large: OpenBLAS
    {"x": (1, 64, 7, 9), "w": (24, 64, 1, 1)},                                                 # 63 columns: tiles
    {"x": (1, 64, 8, 8), "w": (24, 64, 1, 1)},                                                 # 64 columns: vectors
    {"x": (1, 3, 45, 47), "w": (21, 3, 3, 3), "pads": [1, 1, 1, 1], "strides": [2, 2]},       # a stem: 552 columns
    {"x": (1, 3, 70, 66), "w": (24, 3, 3, 3), "pads": [1, 1, 1, 1], "strides": [2, 2]},       # 1155 columns: 2 blocks
    {"x": (1, 32, 30, 30), "w": (16, 32, 1, 1)},                                               # 1x1 in place, 900 columns
    {"x": (2, 16, 40, 40), "w": (96, 16, 1, 1), "bias": False},                                # two images, 6 panels
    {"x": (1, 24, 20, 21), "w": (40, 12, 3, 3), "group": 2, "pads": [1, 1, 1, 1]},            # groups
    {"x": (1, 8, 12, 12), "w": (9, 8, 3, 3), "pads": [1, 1, 1, 1], "act": "HardSwish"},       # epilogue after the product
    {"x": (1, 16, 24, 24), "w": (20, 16, 1, 1), "act": "Clip"},                                # Clip in the epilogue
    # shallow wide products take runs of adjacent 16-column blocks (depth 40: 6 blocks; 41 blocks and an 11-column tail)
    {"x": (1, 40, 23, 29), "w": (20, 40, 1, 1), "act": "Relu"},
]


PACKED_MATMULS = [  # B a float32 constant without batch dims: packed at build into 16-column panels (PackedColumns)
    {"a": (128, 96), "b": (96, 64), "bias": (64,), "act": "Relu"},             # bias and clamp as C is written
    {"a": (2, 13, 40), "b": (40, 37), "bias": (37,), "act": "Clip"},           # folded batch, 8-row and panel tails
    {"a": (5, 24), "b": (24, 16), "bias": (5, 1), "act": None},                # a column bias: added after
    {"a": (7, 300), "b": (300, 129), "act": "HardSwish"},                      # no bias, epilogue after
    {"a": (3, 4, 9, 20), "b": (20, 33)},                                       # two batch dims
    # deep products run in depth slices (the bias first, the clamp last): AVX-512 2 slices of 4 panels (tails of 2
    # columns), AVX2 and NEON one slice, 9000-deep 2 (1 panel) or 3 (2 panels) slices
    {"a": (13, 3000), "b": (3000, 50), "bias": (50,), "act": "Relu"},
    {"a": (3, 9000), "b": (9000, 20), "bias": (20,), "act": "Clip"},
]


@pytest.mark.parametrize("case", range(len(PACKED_MATMULS)))
def test_matmul_packed_weights(driver: Driver, tmp_path: Path, threads: str, case: int) -> None:
    spec = PACKED_MATMULS[case]
    a, b = normal(spec["a"]), normal(spec["b"])
    want = (a.astype(np.float64) @ b).astype(np.float32)
    inputs, attrs = [a, b], {}
    if "bias" in spec:
        bias = normal(spec["bias"])
        want = want + bias
        inputs.append(bias)
        attrs["fused_bias"] = 1
    act = spec.get("act")
    want = EPILOGUES[act](want)
    got = run_kernel(driver, tmp_path, "MatMul", inputs, [(np.float32, want.shape)],
                     attrs={**attrs, **epilogue_attrs(act)}, constant=(1,))[0]
    tolerance = 1e-4 * max(1.0, np.sqrt(spec["b"][0] / 300))  # float32 sums of thousands of products drift
    np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance)


PACKED_GEMMS = [  # Gemm with B a float32 constant and A not transposed: alpha * op(B) packed at build
    {"a": (33, 40), "b": (40, 37), "c": (37,), "act": "Relu"},                          # bias and clamp as C is written
    {"a": (7, 300), "b": (129, 300), "tb": 1, "c": (1, 129), "beta": 0.5, "act": "Clip"},  # op(B) = B^T, C scaled
    {"a": (4, 9), "b": (6, 9), "tb": 1, "alpha": 0.5, "beta": 2.0, "c": (6,), "act": "HardSwish"},  # epilogue after
    {"a": (9, 20), "b": (20, 6), "c": (9, 6), "beta": 0.0, "act": None},                 # beta 0: C is not read
    {"a": (5, 24), "b": (24, 16), "c": (5, 1), "act": None},                             # a column C: OpenBLAS
    {"a": (24, 5), "b": (24, 16), "ta": 1, "c": (16,), "act": "Relu"},                   # A transposed: OpenBLAS
    {"a": (1, 64), "b": (10, 64), "tb": 1, "c": (10,), "act": "Relu"},                   # one row: sgemv
]


@pytest.mark.parametrize("case", range(len(PACKED_GEMMS)))
def test_gemm_packed_weights(driver: Driver, tmp_path: Path, threads: str, case: int) -> None:
    spec = PACKED_GEMMS[case]
    a, b, c = normal(spec["a"]), normal(spec["b"]), normal(spec["c"])
    ta, tb, alpha, beta = spec.get("ta", 0), spec.get("tb", 0), spec.get("alpha", 1.0), spec.get("beta", 1.0)
    if beta == 0.0:
        c[0] = np.nan  # C is then not an input of the product: a NaN in it is ignored
    want = alpha * ((a.T if ta else a) @ (b.T if tb else b)) + (0.0 if beta == 0.0 else beta * c)
    act = spec["act"]
    want = EPILOGUES[act](want)
    got = run_kernel(driver, tmp_path, "Gemm", [a, b, c], [(np.float32, want.shape)],
                     attrs={"alpha": alpha, "beta": beta, "transA": ta, "transB": tb, **epilogue_attrs(act)},
                     constant=(1,))[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


WINOGRAD_CONVS = [  # 3x3, stride 1, at least 16 channels in and out, constant float32 weights: F(2x2, 3x3)
    {"x": (1, 16, 8, 8), "w": (16, 16, 3, 3), "pads": [1, 1, 1, 1]},                         # one tile row block
    {"x": (2, 19, 7, 9), "w": (21, 19, 3, 3), "pads": [1, 1, 1, 1], "bias": False},          # odd sizes, 2 images
    {"x": (1, 32, 40, 41), "w": (24, 32, 3, 3), "pads": [1, 1, 1, 1]},                       # 21 tiles a row
    {"x": (1, 64, 70, 66), "w": (64, 64, 3, 3), "pads": [1, 1, 1, 1]},                       # several row blocks
    {"x": (1, 16, 9, 12), "w": (18, 16, 3, 3)},                                               # no pads: 7x10
    {"x": (1, 256, 6, 6), "w": (32, 256, 3, 3), "pads": [1, 1, 1, 1]},                       # products split by depth
    {"x": (1, 17, 6, 5), "w": (16, 17, 3, 3), "pads": [2, 0, 1, 2]},                         # asymmetric pads
    {"x": (1, 16, 10, 10), "w": (16, 16, 3, 3), "pads": [1, 1, 1, 1], "act": "HardSwish"},   # epilogue after
    {"x": (1, 16, 12, 11), "w": (20, 16, 3, 3), "pads": [1, 1, 1, 1], "act": "Clip"},
    {"x": (1, 16, 36, 3), "w": (16, 16, 3, 3), "pads": [1, 1, 1, 1], "act": None},           # 2-tile rows
    # with 2 threads, whole blocks per thread (resized: 5 blocks of 7 tile rows as 6 of 6 above; here 6 tile rows as
    # 2 blocks of 3) unless they would split unevenly (the 256-channel case: each block's steps split)
    {"x": (3, 16, 12, 12), "w": (24, 16, 3, 3), "pads": [1, 1, 1, 1]},                       # three images
]


@pytest.mark.parametrize("spec", [*PACKED_CONVS, *WINOGRAD_CONVS])
def test_conv_constant_weights(driver: Driver, tmp_path: Path, threads: str, spec: dict[str, Any]) -> None:
    """Packed weights and Winograd, against onnxruntime's direct conv (from which F(2x2, 3x3), summing in another
    order, is a few float32 ulps of the inputs' scale apart)."""
    spec = dict(spec)
    x = normal(spec.pop("x"))
    w = normal(spec.pop("w")) * 0.1
    b = normal((w.shape[0],)) if spec.pop("bias", True) else None
    act = spec.pop("act", "Relu")
    want = EPILOGUES[act](ort_conv(x, w, b, **spec))
    inputs = [x, w] if b is None else [x, w, b]
    got = run_kernel(driver, tmp_path, "Conv", inputs, [(np.float32, want.shape)],
                     attrs={**spec, **epilogue_attrs(act)}, constant=(1,))[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


STEMS = [  # at most 4 input channels (stem_conv.h): bands of output rows over the pool, images in one run
    ({"x": (2, 3, 57, 61), "w": (13, 3, 7, 7), "pads": [3, 3, 3, 3], "strides": [2, 2]}, "Relu"),
    ({"x": (1, 4, 40, 33), "w": (16, 4, 3, 3), "pads": [1, 0, 1, 2], "strides": [1, 2]}, "HardSwish"),  # after the bands
    ({"x": (3, 1, 30, 30), "w": (5, 1, 5, 5), "pads": [2, 2, 2, 2]}, "Clip"),
]


@pytest.mark.parametrize("case", range(len(STEMS)))
def test_stem_conv(driver: Driver, tmp_path: Path, threads: str, case: int) -> None:
    spec, act = STEMS[case]
    spec = dict(spec)
    x = normal(spec.pop("x"))
    w = normal(spec.pop("w")) * 0.3
    b = normal((w.shape[0],))
    want = EPILOGUES[act](ort_conv(x, w, b, **spec))
    got = run_kernel(driver, tmp_path, "Conv", [x, w, b], [(np.float32, want.shape)],
                     attrs={**spec, **epilogue_attrs(act)}, constant=(1,))[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


FUSED_SUMS = [  # Conv with fused_sum=1: a residual added before the activation, on every conv path
    {"x": (1, 64, 7, 7), "w": (48, 64, 1, 1)},                                   # packed, 7-column tiles
    {"x": (1, 32, 20, 20), "w": (24, 32, 1, 1), "act": "HardSwish"},             # packed, vectors; activation after
    {"x": (1, 600, 7, 7), "w": (150, 600, 1, 1), "act": "Clip"},                 # split by depth (2 threads), tiles
    {"x": (1, 520, 9, 10), "w": (40, 520, 1, 1), "bias": False},                 # split by depth, vectors and a tail
    {"x": (1, 500, 12, 12), "w": (300, 500, 1, 1), "act": "Relu"},               # depth slices: the sum in the last
    {"x": (1, 3, 21, 19), "w": (8, 3, 3, 3), "pads": [1, 1, 1, 1], "strides": [2, 2]},  # stem (direct): sum after
    {"x": (1, 3, 21, 19), "w": (8, 3, 3, 3), "pads": [1, 1, 1, 1], "strides": [2, 2], "constant": False},  # im2col
    {"x": (1, 16, 10, 9), "w": (16, 16, 3, 3), "pads": [1, 1, 1, 1]},            # Winograd: sum after
    {"x": (1, 8, 12, 12), "w": (8, 1, 3, 3), "pads": [1, 1, 1, 1], "group": 8},  # depthwise: sum after
    {"x": (1, 24, 6, 6), "w": (16, 24, 1, 1), "constant": False},                # weights as an input: OpenBLAS
]


@pytest.mark.parametrize("spec", FUSED_SUMS)
def test_conv_fused_sum(driver: Driver, tmp_path: Path, threads: str, spec: dict[str, Any]) -> None:
    """act(conv(x, W) + B + Z), the compiler's Conv + Add (+ activation) fusion, against onnxruntime's conv."""
    spec = dict(spec)
    x = normal(spec.pop("x"))
    w = normal(spec.pop("w")) * 0.1
    b = normal((w.shape[0],)) if spec.pop("bias", True) else None
    act = spec.pop("act", "Relu")
    constant = (1,) if spec.pop("constant", True) else ()
    conv = ort_conv(x, w, b, **spec)
    z = normal(conv.shape)
    got = run_kernel(driver, tmp_path, "Conv", [x, w, b, z], [(np.float32, conv.shape)],
                     attrs={**spec, **epilogue_attrs(act), "fused_sum": 1}, constant=constant)[0]
    np.testing.assert_allclose(got, EPILOGUES[act](conv + z), rtol=1e-4, atol=1e-4)


# A plane of fewer than 64 positions takes the narrow product, B packed in tiles of 2, 6 or 7 columns (by variant),
# and its last tile, of the remaining columns, runs a register tile of that many: every remainder of each
# variant's tile, rows ending inside a panel (40 = 2.5 x 16), with and without a fused sum.
@pytest.mark.parametrize("hw", [(1, 1), (1, 2), (1, 3), (2, 2), (1, 5), (2, 3), (1, 11), (1, 13), (7, 7)])
@pytest.mark.parametrize("fused_sum", [False, True])
def test_pointwise_narrow_tail_columns(driver: Driver, tmp_path: Path, hw: tuple[int, int], fused_sum: bool) -> None:
    x, w, b = normal((1, 24, *hw)), normal((40, 24, 1, 1)) * 0.1, normal((40,))
    conv = ort_conv(x, w, b)
    z = normal(conv.shape) if fused_sum else np.zeros_like(conv)
    attrs = {**epilogue_attrs("Relu"), **({"fused_sum": 1} if fused_sum else {})}
    got = run_kernel(driver, tmp_path, "Conv", [x, w, b] + ([z] if fused_sum else []), [(np.float32, conv.shape)],
                     attrs=attrs, constant=(1,))[0]
    np.testing.assert_allclose(got, EPILOGUES["Relu"](conv + z), rtol=1e-4, atol=1e-4)


def test_conv_fused_sum_refusals(driver: Driver, tmp_path: Path) -> None:
    x, w = normal((1, 4, 5, 5)), normal((6, 4, 1, 1))
    with pytest.raises(Refused, match="needs a 4th input"):
        run_kernel(driver, tmp_path, "Conv", [x, w], [(np.float32, (1, 6, 5, 5))], attrs={"fused_sum": 1})
    with pytest.raises(Refused, match="shaped as the output"):
        run_kernel(driver, tmp_path, "Conv", [x, w, None, normal((1, 6, 5, 4))], [(np.float32, (1, 6, 5, 5))],
                   attrs={"fused_sum": 1})
    with pytest.raises(Refused, match="takes 2 or 3 inputs"):
        run_kernel(driver, tmp_path, "Conv", [x, w, None, normal((1, 6, 5, 5))], [(np.float32, (1, 6, 5, 5))])


MAXPOOLS = [
    {"x": (1, 8, 112, 112), "kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]},  # ResNet's stem
    {"x": (2, 3, 17, 19), "kernel_shape": [2, 2], "strides": [2, 2], "ceil_mode": 1},
    {"x": (1, 4, 20, 23), "kernel_shape": [3, 4], "strides": [3, 3], "pads": [1, 2, 0, 1], "dilations": [2, 1]},
    {"x": (1, 2, 9, 9), "kernel_shape": [5, 5], "strides": [1, 1], "pads": [2, 2, 2, 2]},
    # windows of more than 8 rows: combined 8 rows at a time into the row buffer
    {"x": (1, 3, 30, 21), "kernel_shape": [11, 3], "strides": [1, 2], "pads": [5, 1, 5, 1]},
    # rows narrower than a vector: each row's last vector is stored whole into the rows after it, never past the
    # planes of the call (the output ends at a guard page; with threads, another thread's planes follow)
    {"x": (1, 7, 11, 3), "kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]},
]


@pytest.mark.parametrize("case", range(len(MAXPOOLS)))
def test_maxpool_rows(driver: Driver, tmp_path: Path, threads: str, case: int) -> None:
    attrs = dict(MAXPOOLS[case])
    x = normal(attrs.pop("x"))
    node = helper.make_node("MaxPool", ["x"], ["y"], **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    got = run_kernel(driver, tmp_path, "MaxPool", [x], [(np.float32, want.shape)], attrs=attrs)[0]
    np.testing.assert_array_equal(got, want)
