"""Elementwise kernels (csrc/kernels/elementwise.cpp) through the kernel driver: unary math and
activations, broadcasting binary ops, comparisons/logic/Where, Clip, Cast, FusedElementwise (also in
place), float16 storage and the factories' refusals. ROUND_OUTPUTS_FP16 is the executor's job."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from kernel_harness import Driver, Refused, run_kernel

RNG = np.random.default_rng(7)
ERF = np.vectorize(math.erf)


def run(driver: Driver, tmp_path: Path, op: str, inputs: list, out_dtype, out_shape, **kw) -> np.ndarray:  # noqa: PLR0917
    return run_kernel(driver, tmp_path, op, inputs, [(out_dtype, out_shape)], **kw)[0]


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


UNARY = {
    "Sqrt": (np.sqrt, "pos", {}), "Exp": (np.exp, "any", {}), "Log": (np.log, "pos", {}), "Abs": (np.abs, "any", {}),
    "Neg": (np.negative, "any", {}), "Reciprocal": (np.reciprocal, "pos", {}), "Floor": (np.floor, "any", {}),
    "Ceil": (np.ceil, "any", {}), "Relu": (lambda x: np.maximum(x, 0), "any", {}), "Sigmoid": (sigmoid, "any", {}),
    "Tanh": (np.tanh, "any", {}), "Erf": (ERF, "any", {}), "Sign": (np.sign, "any", {}),
    "Round": (np.round, "any", {}), "Sin": (np.sin, "any", {}), "Cos": (np.cos, "any", {}),
    "Softsign": (lambda x: x / (1 + np.abs(x)), "any", {}), "Softplus": (lambda x: np.log1p(np.exp(x)), "any", {}),
    "HardSigmoid": (lambda x: np.clip(0.3 * x + 0.4, 0, 1), "any", {"alpha": 0.3, "beta": 0.4}),
    "HardSwish": (lambda x: x * np.clip(x / 6 + 0.5, 0, 1), "any", {}),
    "Elu": (lambda x: np.where(x >= 0, x, 0.7 * (np.exp(x) - 1)), "any", {"alpha": 0.7}),
    "Selu": (lambda x: np.where(x > 0, 1.0507009873554805 * x, 1.0507009873554805 * 1.6732632423543772 * (np.exp(x) - 1)),
             "any", {}),
    "LeakyRelu": (lambda x: np.where(x >= 0, x, 0.1 * x), "any", {"alpha": 0.1}),
    "Gelu": (lambda x: 0.5 * x * (1 + ERF(x / np.sqrt(2))), "any", {}),
}


@pytest.mark.parametrize("op", sorted(UNARY))
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_unary(driver: Driver, tmp_path: Path, op: str, dtype: str) -> None:
    fn, domain, attrs = UNARY[op]
    x = RNG.standard_normal((3, 5, 67)).astype(np.float32) * 3
    if domain == "pos":
        x = np.abs(x) + 0.1
    x = x.astype(dtype)
    got = run(driver, tmp_path, op, [x], dtype, x.shape, attrs=attrs)
    want = fn(x.astype(np.float64)).astype(dtype)
    tol = 1e-5 if dtype == "float32" else 2e-3
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol)


# The ends of exp's range and the special values, where its clamp bounds (not selects) give 0 and +inf
# (simd/vmath.h): exp, the ops built on it, and SiLU (a conv's epilogue) against float64 numpy.
SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, 20.0, -20.0, 88.0, 88.7, 88.73, 89.0, 120.0, -86.0,
                    -87.0, -87.5, -88.0, -104.0, -1e4], np.float32)


@pytest.mark.parametrize("op", ["Exp", "Sigmoid", "Tanh", "Erf", "Elu"])
def test_exp_family_special_values(driver: Driver, tmp_path: Path, op: str) -> None:
    fn, _, attrs = UNARY[op]
    with np.errstate(over="ignore", invalid="ignore"):
        want = fn(SPECIAL.astype(np.float64)).astype(np.float32)
    got = run(driver, tmp_path, op, [SPECIAL], np.float32, SPECIAL.shape, attrs=attrs)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-37)


def test_silu_epilogue_special_values(driver: Driver, tmp_path: Path) -> None:
    x = SPECIAL.reshape(1, 1, 1, -1)
    w = np.ones((1, 1, 1, 1), np.float32)
    got = run(driver, tmp_path, "Conv", [x, w], np.float32, x.shape, attrs={"activation": "Silu"}, constant=(1,))
    with np.errstate(over="ignore", invalid="ignore"):
        want = (x.astype(np.float64) / (1 + np.exp(-x.astype(np.float64)))).astype(np.float32)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-37)


def test_gelu_tanh(driver: Driver, tmp_path: Path) -> None:
    x = RNG.standard_normal(1000).astype(np.float32)
    got = run(driver, tmp_path, "Gelu", [x], np.float32, x.shape, attrs={"approximate": "tanh"})
    want = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


BINARY = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide, "Max": np.maximum,
          "Min": np.minimum, "Pow": np.power}


@pytest.mark.parametrize("op", sorted(BINARY))
@pytest.mark.parametrize("shapes", [((2, 3, 4, 5), (2, 3, 4, 5)), ((2, 3, 4, 5), (3, 1, 1)), ((4, 1), (1, 700)),
                                    ((), (3, 2)), ((1, 3, 1), (2, 1, 5)), ((0, 3), (1, 3))])
def test_binary_broadcast(driver: Driver, tmp_path: Path, op: str, shapes: tuple) -> None:
    a = RNG.uniform(0.5, 2, shapes[0]).astype(np.float32)
    b = RNG.uniform(-2, 2, shapes[1]).astype(np.float32)
    want = BINARY[op](a, b)
    got = run(driver, tmp_path, op, [a, b], np.float32, want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_variadic_max_min(driver: Driver, tmp_path: Path) -> None:
    xs = [RNG.standard_normal(s).astype(np.float32) for s in [(2, 3), (3,), (1, 1), (2, 1)]]
    got = run(driver, tmp_path, "Max", xs, np.float32, (2, 3))
    np.testing.assert_array_equal(got, np.maximum.reduce(np.broadcast_arrays(*xs)))
    got = run(driver, tmp_path, "Min", xs[:1], np.float32, (2, 3))
    np.testing.assert_array_equal(got, xs[0])


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_arithmetic(driver: Driver, tmp_path: Path, dtype: str) -> None:
    a = RNG.integers(-50, 50, (4, 6)).astype(dtype)
    b = RNG.integers(1, 9, (6,)).astype(dtype) * np.where(RNG.random(6) < 0.5, -1, 1).astype(dtype)
    for op, want in [("Add", a + b), ("Sub", a - b), ("Mul", a * b), ("Div", np.trunc(a / b).astype(dtype)),
                     ("Mod", np.mod(a, b)), ("Max", np.maximum(a, b)), ("Neg", -a), ("Abs", np.abs(a))]:
        inputs = [a] if op in ("Neg", "Abs") else [a, b]
        got = run(driver, tmp_path / op, op, inputs, dtype, want.shape)
        np.testing.assert_array_equal(got, want, err_msg=op)
    got = run(driver, tmp_path / "fmod", "Mod", [a, b], dtype, (4, 6), attrs={"fmod": 1})
    np.testing.assert_array_equal(got, np.fmod(a, b))
    zero = np.zeros(6, dtype)
    run(driver, tmp_path / "zero", "Div", [a, zero], dtype, (4, 6))  # no crash on division by zero


def test_float_mod_and_prelu(driver: Driver, tmp_path: Path) -> None:
    a = RNG.uniform(-5, 5, (3, 7)).astype(np.float32)
    b = RNG.uniform(0.5, 2, (7,)).astype(np.float32)
    np.testing.assert_allclose(run(driver, tmp_path, "Mod", [a, b], np.float32, a.shape, attrs={"fmod": 1}),
                               np.fmod(a, b), rtol=1e-5, atol=1e-6)
    slope = RNG.uniform(0, 1, (3, 1)).astype(np.float32)
    np.testing.assert_allclose(run(driver, tmp_path, "PRelu", [a, slope], np.float32, a.shape),
                               np.where(a < 0, a * slope, a), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_comparisons_and_where(driver: Driver, tmp_path: Path, dtype: str) -> None:
    a = RNG.integers(-3, 3, (4, 5)).astype(dtype)
    b = RNG.integers(-3, 3, (5,)).astype(dtype)
    for op, fn in [("Equal", np.equal), ("Greater", np.greater), ("Less", np.less),
                   ("GreaterOrEqual", np.greater_equal), ("LessOrEqual", np.less_equal)]:
        got = run(driver, tmp_path / op, op, [a, b], np.bool_, (4, 5))
        np.testing.assert_array_equal(got, fn(a, b), err_msg=op)
    cond = a > 0
    got = run(driver, tmp_path / "w", "Where", [cond, a, b], dtype, (4, 5))
    np.testing.assert_array_equal(got, np.where(cond, a, b))


def test_logic(driver: Driver, tmp_path: Path) -> None:
    a, b = RNG.random((3, 4)) < 0.5, RNG.random((4,)) < 0.5
    for op, fn in [("And", np.logical_and), ("Or", np.logical_or), ("Xor", np.logical_xor)]:
        np.testing.assert_array_equal(run(driver, tmp_path / op, op, [a, b], np.bool_, (3, 4)), fn(a, b))
    np.testing.assert_array_equal(run(driver, tmp_path / "not", "Not", [a], np.bool_, (3, 4)), ~a)


def test_clip(driver: Driver, tmp_path: Path) -> None:
    x = RNG.standard_normal((5, 9)).astype(np.float32) * 4
    lo, hi = np.array(-1, np.float32), np.array([2.5], np.float32)
    np.testing.assert_array_equal(run(driver, tmp_path / "a", "Clip", [x, lo, hi], np.float32, x.shape), np.clip(x, -1, 2.5))
    np.testing.assert_array_equal(run(driver, tmp_path / "b", "Clip", [x, None, hi], np.float32, x.shape), np.minimum(x, 2.5))
    np.testing.assert_array_equal(run(driver, tmp_path / "c", "Clip", [x, lo], np.float32, x.shape), np.maximum(x, -1))
    np.testing.assert_array_equal(run(driver, tmp_path / "d", "Clip", [x], np.float32, x.shape), x)
    xi = RNG.integers(-9, 9, 20).astype(np.int64)
    np.testing.assert_array_equal(run(driver, tmp_path / "e", "Clip", [xi, None, np.array(3, np.int64)], np.int64, (20,)),
                                  np.minimum(xi, 3))


@pytest.mark.parametrize(("src", "dst"), [("float32", "int32"), ("float32", "float16"), ("float16", "float32"),
                                          ("int64", "float32"), ("float32", "bool"), ("int64", "int32"),
                                          ("bool", "float32"), ("int32", "int64"), ("float32", "uint8"),
                                          ("int64", "int8"), ("float32", "int64")])
def test_cast(driver: Driver, tmp_path: Path, src: str, dst: str) -> None:
    x = (RNG.standard_normal(300) * 50).astype(src) if src != "bool" else RNG.random(300) < 0.5
    if dst == "uint8":
        x = np.abs(x)
    from kernel_harness import ACL
    got = run(driver, tmp_path, "Cast", [x], dst, x.shape, attrs={"to": ACL[np.dtype(dst)]})
    np.testing.assert_array_equal(got, x.astype(dst))


def test_float_to_int_beyond_range(driver: Driver, tmp_path: Path) -> None:
    # What an integer cannot hold converts the same on every CPU (dtype_convert.h's to_int64): NaN to 0, beyond
    # int64 saturated (a plain cast gives INT64_MIN on x86-64 but saturates, NaN to 0, on aarch64).
    low, high = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    x = np.array([np.nan, np.inf, -np.inf, 1e30, -1e30, 2.9, -2.9], np.float32)
    got = run(driver, tmp_path / "cast", "Cast", [x], np.int64, x.shape, attrs={"to": 9})
    np.testing.assert_array_equal(got, [0, high, low, high, low, 2, -2])
    base, exponent = np.array([-8, 10, 9, 3], np.int64), np.array([0.5, 30.0, 0.5, 2.0], np.float32)
    got = run(driver, tmp_path / "pow", "Pow", [base, exponent], np.int64, base.shape)
    np.testing.assert_array_equal(got, [0, high, 3, 9])


PROGRAM = [{"op": "Mul", "inputs": [0, 1], "attrs": {}}, {"op": "Add", "inputs": [3, 2], "attrs": {}},
           {"op": "Sigmoid", "inputs": [4], "attrs": {}}, {"op": "Mul", "inputs": [4, 5], "attrs": {}},
           {"op": "LeakyRelu", "inputs": [6], "attrs": {"alpha": 0.2}}]


def fused_reference(x: np.ndarray, s: np.ndarray, b: np.ndarray) -> np.ndarray:
    t = x * s + b
    t = t * sigmoid(t)
    return np.where(t >= 0, t, 0.2 * t)


@pytest.mark.parametrize("inplace", [False, True])
def test_fused_elementwise(driver: Driver, tmp_path: Path, inplace: bool) -> None:
    x = RNG.standard_normal((2, 8, 33, 35)).astype(np.float32)
    s = RNG.standard_normal((8, 1, 1)).astype(np.float32)
    b = RNG.standard_normal((1, 8, 1, 1)).astype(np.float32)
    got = run(driver, tmp_path, "FusedElementwise", [x, s, b], np.float32, x.shape, domain="ascendsim",
              attrs={"program": PROGRAM}, inplace=(0, 0) if inplace else None)
    np.testing.assert_allclose(got, fused_reference(x, s, b), rtol=1e-5, atol=1e-6)


def test_per_channel_operands_of_a_blocked_tensor(driver: Driver, tmp_path: Path) -> None:
    """[N, C1, H, W, 16] with [N, C1, 1, 1, 16] (the NC1HWC0 path's BatchNormalization and squeeze-excitation):
    the per-channel operand is read as its 16-float row repeated (merge_short_inner), in either position, in a
    program, as float16 and as int64."""
    x = RNG.standard_normal((2, 3, 5, 7, 16)).astype(np.float32)
    s = RNG.standard_normal((2, 3, 1, 1, 16)).astype(np.float32)
    b = RNG.standard_normal((1, 3, 1, 1, 16)).astype(np.float32)
    got = run(driver, tmp_path / "fused", "FusedElementwise", [x, s, b], np.float32, x.shape, domain="ascendsim",
              attrs={"program": PROGRAM})
    np.testing.assert_allclose(got, fused_reference(x, s, b), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(run(driver, tmp_path / "first", "Sub", [s, x], np.float32, x.shape), s - x)
    half = run(driver, tmp_path / "half", "Mul", [x.astype(np.float16), s.astype(np.float16)], np.float16, x.shape)
    np.testing.assert_array_equal(half, x.astype(np.float16) * s.astype(np.float16))
    i, j = RNG.integers(-9, 9, (1, 2, 3, 4, 8)), RNG.integers(-9, 9, (1, 2, 3, 1, 8))
    np.testing.assert_array_equal(run(driver, tmp_path / "int", "Add", [i, j], np.int64, i.shape), i + j)


def _step(op: str, *inputs: int) -> dict[str, object]:
    return {"op": op, "inputs": list(inputs), "attrs": {}}


def _relu(v: np.ndarray) -> np.ndarray:
    return np.where(v > 0, v, np.float32(0))  # the Relu step's v > 0 ? v : 0 (NaN -> 0)


# Programs over x, s, b (slots 0-2) where a Mul and an Add, and a Relu after them, run as one multiply-add step
# (elementwise.cpp's fuse_multiply_add) or must not: the steps after a fused one read renumbered slots.
MULTIPLY_ADD_PROGRAMS = {
    "scale_shift_relu": ([_step("Mul", 0, 1), _step("Add", 2, 3), _step("Relu", 4)],
                         lambda x, s, b: _relu(x * s + b)),
    "then_more_steps": ([_step("Mul", 1, 0), _step("Add", 3, 2), _step("Relu", 4), _step("Sub", 5, 0),
                         _step("Mul", 6, 6)], lambda x, s, b: (_relu(x * s + b) - x) ** 2),
    "product_read_twice": ([_step("Mul", 0, 1), _step("Add", 3, 2), _step("Add", 4, 3)],
                           lambda x, s, b: x * s + b + x * s),
    "sum_read_twice": ([_step("Mul", 0, 1), _step("Add", 3, 2), _step("Relu", 4), _step("Add", 5, 4)],
                       lambda x, s, b: _relu(x * s + b) + x * s + b),
    "relu_not_of_the_sum": ([_step("Mul", 0, 1), _step("Add", 3, 2), _step("Relu", 0), _step("Mul", 5, 4)],
                            lambda x, s, b: _relu(x) * (x * s + b)),
}


@pytest.mark.parametrize("name", sorted(MULTIPLY_ADD_PROGRAMS))
def test_multiply_add_steps_of_a_program(driver: Driver, tmp_path: Path, name: str) -> None:
    """On a blocked tensor with per-channel scale and shift (the NC1HWC0 BatchNormalization and its Relu), NaN,
    infinities and zero included."""
    program, reference = MULTIPLY_ADD_PROGRAMS[name]
    x = RNG.standard_normal((1, 3, 9, 11, 16)).astype(np.float32)
    x.flat[:4] = [np.nan, np.inf, -np.inf, 0.0]
    s = RNG.standard_normal((1, 3, 1, 1, 16)).astype(np.float32)
    b = RNG.standard_normal((1, 3, 1, 1, 16)).astype(np.float32)
    got = run(driver, tmp_path, "FusedElementwise", [x, s, b], np.float32, x.shape, domain="ascendsim",
              attrs={"program": program})
    with np.errstate(invalid="ignore"):
        want = reference(x, s, b)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_cast_to_float16_inside_a_program_rounds_as_numpy(driver: Driver, tmp_path: Path) -> None:
    """A float32 -> FLOAT16 Cast read back as float32 (also how ROUND_*_FP16 round): the vectorized rounding
    (row_loops round_fp16) against numpy at the edges: ties to even, subnormals, the overflow bound 65520,
    signed zeros, inf and NaN."""
    special = np.array([0.0, -0.0, 1.0, 1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11, 65504.0, 65519.99, 65520.0, 1e6,
                        -65520.0, 2.0 ** -14, 2.0 ** -24, 2.0 ** -25, 3 * 2.0 ** -25, 2.0 ** -26, 6.1e-5, -3e-6,
                        np.inf, -np.inf, np.nan], np.float32)
    x = np.concatenate([special, RNG.standard_normal(1001).astype(np.float32) * np.float32(10.0) ** RNG.integers(-8, 5, 1001)])
    x = x.astype(np.float32)
    got = run(driver, tmp_path, "FusedElementwise", [x], np.float32, x.shape, domain="ascendsim",
              attrs={"program": [{"op": "Cast", "inputs": [0], "attrs": {"to": 1}},  # ACL_FLOAT16
                                 {"op": "Identity", "inputs": [1], "attrs": {}}]})
    with np.errstate(over="ignore"):  # (numpy warns on the values that round to inf, as they should)
        want = x.astype(np.float16).astype(np.float32)
    np.testing.assert_array_equal(got, want)


def test_fused_mixed_kinds(driver: Driver, tmp_path: Path) -> None:
    """Greater -> Where -> Cast: bool and int64 slots inside one program."""
    x = RNG.standard_normal((4, 50)).astype(np.float32)
    y = RNG.integers(-5, 5, (50,)).astype(np.int64)
    program = [{"op": "Cast", "inputs": [0], "attrs": {"to": 9}}, {"op": "Greater", "inputs": [2, 1], "attrs": {}},
               {"op": "Where", "inputs": [3, 2, 1], "attrs": {}}, {"op": "Cast", "inputs": [4], "attrs": {"to": 0}}]
    got = run(driver, tmp_path, "FusedElementwise", [x, y], np.float32, (4, 50), domain="ascendsim",
              attrs={"program": program})
    xi = x.astype(np.int64)
    np.testing.assert_array_equal(got, np.where(xi > y, xi, y).astype(np.float32))


def test_inplace_binary(driver: Driver, tmp_path: Path) -> None:
    a = RNG.standard_normal((3, 1000)).astype(np.float32)
    b = RNG.standard_normal((1000,)).astype(np.float32)
    got = run(driver, tmp_path, "Add", [a, b], np.float32, a.shape, inplace=(0, 0))
    np.testing.assert_array_equal(got, a + b)


def test_large_parallel(driver: Driver, tmp_path: Path) -> None:
    a = RNG.standard_normal((64, 3, 1031)).astype(np.float32)
    b = RNG.standard_normal((64, 1, 1031)).astype(np.float32)
    np.testing.assert_allclose(run(driver, tmp_path, "Mul", [a, b], np.float32, a.shape), a * b, rtol=1e-6)


@pytest.mark.parametrize(("op", "inputs", "attrs", "out", "message"), [
    ("Sqrt", [np.ones(3, np.int64)], {}, ("int64", (3,)), "integer"),
    ("Add", [np.ones(3, np.float32), np.ones(4, np.float32)], {}, ("float32", (4,)), "do not broadcast"),
    ("Add", [np.ones(3, np.float32), np.ones(3, np.int64)], {}, ("float32", (3,)), "different kinds"),
    ("Gelu", [np.ones(3, np.float32)], {"approximate": "fast"}, ("float32", (3,)), "approximate='fast'"),
    ("Cast", [np.ones(3, np.float32)], {"to": 99}, ("float32", (3,)), "to=99"),
    ("Add", [np.ones(3, np.float32), np.ones(3, np.float32)], {}, ("float32", (2,)), "output shape"),
    ("Clip", [np.ones(3, np.float32), np.ones(2, np.float32)], {}, ("float32", (3,)), "scalars"),
    ("And", [np.ones(3, np.float32), np.ones(3, np.float32)], {}, ("float32", (3,)), "bool"),
])
def test_refusals(driver: Driver, tmp_path: Path, op: str, inputs: list, attrs: dict, out: tuple,  # noqa: PLR0917
                  message: str) -> None:
    with pytest.raises(Refused, match=message) as info:
        run(driver, tmp_path, op, inputs, out[0], out[1], attrs=attrs)
    assert op in str(info.value)


def test_fused_refusals(driver: Driver, tmp_path: Path) -> None:
    x = np.ones(3, np.float32)
    with pytest.raises(Refused, match="program"):
        run(driver, tmp_path, "FusedElementwise", [x], np.float32, (3,), domain="ascendsim")
    with pytest.raises(Refused, match="Conv"):
        run(driver, tmp_path, "FusedElementwise", [x], np.float32, (3,), domain="ascendsim",
            attrs={"program": [{"op": "Conv", "inputs": [0], "attrs": {}}]})
    with pytest.raises(Refused, match="out of range"):
        run(driver, tmp_path, "FusedElementwise", [x], np.float32, (3,), domain="ascendsim",
            attrs={"program": [{"op": "Relu", "inputs": [5], "attrs": {}}]})
