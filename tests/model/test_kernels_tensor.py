"""Data-movement, index and shape kernels through the kernel driver, against onnxruntime one-node models:
Reshape family, Transpose, Expand, Tile, Concat, Split, Slice, Pad, Gather, GatherElements, TopK, Shape,
ConstantOfShape, Range and Resize (nearest, linear, cubic) with negative axes, odd sizes and several dtypes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from kernel_harness import Driver, Refused, run_kernel
from onnx import helper

RNG = np.random.default_rng(3)

KERNEL_VARIANTS = "best"  # no per-variant loops but the 4-byte Transpose's (test_kernels_transpose.py): the best only


def ort_run(op: str, inputs: list[np.ndarray | None], n_out: int = 1, opset: int = 18, **attrs) -> list[np.ndarray]:
    names = ["" if x is None else f"i{k}" for k, x in enumerate(inputs)]
    graph = helper.make_graph(
        [helper.make_node(op, names, [f"o{k}" for k in range(n_out)], **attrs)], "g",
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(x.dtype), x.shape)
         for n, x in zip(names, inputs) if x is not None],
        [onnx.ValueInfoProto(name=f"o{k}") for k in range(n_out)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, {n: x for n, x in zip(names, inputs) if x is not None})


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "uint8", "bool"])
def test_transpose(driver: Driver, tmp_path: Path, dtype: str) -> None:
    x = (RNG.standard_normal((2, 3, 4, 5)) * 10).astype(dtype)
    for perm in ([0, 2, 3, 1], [3, 2, 1, 0], [0, 1, 3, 2], [1, 0, 2, 3]):
        got = run_kernel(driver, tmp_path, "Transpose", [x], [(dtype, x.transpose(perm).shape)], attrs={"perm": perm})[0]
        np.testing.assert_array_equal(got, x.transpose(perm))


def test_reshape_family(driver: Driver, tmp_path: Path) -> None:
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    for op in ("Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"):
        got = run_kernel(driver, tmp_path, op, [x], [(np.float32, (6, 4))] if op != "Identity" else [(np.float32, x.shape)])[0]
        np.testing.assert_array_equal(got.ravel(), x.ravel())
    got = run_kernel(driver, tmp_path, "Reshape", [x], [(np.float32, (24,))], inplace=(0, 0))[0]
    np.testing.assert_array_equal(got, x.ravel())


def test_expand_tile(driver: Driver, tmp_path: Path) -> None:
    x = RNG.standard_normal((3, 1, 2)).astype(np.float32)
    got = run_kernel(driver, tmp_path, "Expand", [x, np.array([2, 3, 4, 2], np.int64)], [(np.float32, (2, 3, 4, 2))])[0]
    np.testing.assert_array_equal(got, np.broadcast_to(x, (2, 3, 4, 2)))
    got = run_kernel(driver, tmp_path, "Tile", [x, np.array([2, 3, 1], np.int64)], [(np.float32, (6, 3, 2))])[0]
    np.testing.assert_array_equal(got, np.tile(x, (2, 3, 1)))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat_split(driver: Driver, tmp_path: Path, axis: int) -> None:
    parts = [RNG.standard_normal(s).astype(np.float32) for s in [(2, 3, 4), (2, 3, 4), (2, 3, 4)]]
    sizes = [1, 3, 2] if axis == -1 else [1, 2, 3] if axis == 1 else [2, 1, 2]
    parts = [np.take(p, range(s), axis=axis) for p, s in zip(parts, sizes)]
    want = np.concatenate(parts, axis=axis)
    got = run_kernel(driver, tmp_path, "Concat", parts, [(np.float32, want.shape)], attrs={"axis": axis})[0]
    np.testing.assert_array_equal(got, want)
    outs = run_kernel(driver, tmp_path, "Split", [want], [(np.float32, p.shape) for p in parts],
                      attrs={"axis": axis, "split": sizes})
    for o, p in zip(outs, parts):
        np.testing.assert_array_equal(o, p)


@pytest.mark.parametrize(("starts", "ends", "axes", "steps"), [
    ([1], [3], [0], [1]), ([0, -3], [2, 100], [1, -1], [1, 2]), ([-1], [-100], [2], [-1]), ([3, 0], [0, 4], [0, 2], [-2, 3]),
])
@pytest.mark.parametrize("constant", [False, True])
def test_slice(driver: Driver, tmp_path: Path, starts: list, ends: list, axes: list, steps: list, constant: bool) -> None:  # noqa: PLR0917
    x = RNG.standard_normal((4, 5, 6)).astype(np.float32)
    args = [np.array(v, np.int64) for v in (starts, ends, axes, steps)]
    want = ort_run("Slice", [x, *args])[0]
    got = run_kernel(driver, tmp_path, "Slice", [x, *args], [(np.float32, want.shape)],
                     constant=(1, 2, 3, 4) if constant else ())[0]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(("mode", "pads"), [
    ("constant", [0, 1, 2, 1, 2, -1]), ("reflect", [0, 1, 2, 1, 2, 3]), ("edge", [0, 1, 2, 1, 2, 3]),
    ("wrap", [0, 1, 2, 1, 2, 3]),
    ("wrap", [1, 4, 9, 0, 5, 10]), ("edge", [0, -1, 6, 0, 2, -2]), ("constant", [0, 0, -3, 0, 0, 7])])
def test_pad(driver: Driver, tmp_path: Path, mode: str, pads: list[int]) -> None:
    """Pads wider than the dim (wrap repeats it), negative pads (crops) and a row entirely cropped then padded."""
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    want = ort_run("Pad", [x, np.array(pads, np.int64), np.array(1.5, np.float32)], mode=mode)[0]
    got = run_kernel(driver, tmp_path, "Pad", [x], [(np.float32, want.shape)], attrs={"mode": mode, "pads": pads, "value": 1.5})[0]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_gather(driver: Driver, tmp_path: Path, axis: int) -> None:
    x = RNG.standard_normal((4, 5, 6)).astype(np.float32)
    idx = np.array([[0, -1], [2, 3]], np.int64)
    want = np.take(x, idx, axis=axis)
    np.testing.assert_array_equal(run_kernel(driver, tmp_path, "Gather", [x, idx], [(np.float32, want.shape)],
                                             attrs={"axis": axis})[0], want)
    scalar = np.array(1, np.int32)
    want = np.take(x, 1, axis=axis)
    np.testing.assert_array_equal(run_kernel(driver, tmp_path, "Gather", [x, scalar], [(np.float32, want.shape)],
                                             attrs={"axis": axis})[0], want)


def test_gather_elements(driver: Driver, tmp_path: Path) -> None:
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    idx = RNG.integers(-3, 3, (2, 4)).astype(np.int64)
    want = ort_run("GatherElements", [x, idx], axis=0)[0]
    np.testing.assert_array_equal(run_kernel(driver, tmp_path, "GatherElements", [x, idx], [(np.float32, want.shape)],
                                             attrs={"axis": 0})[0], want)


@pytest.mark.parametrize(("axis", "largest"), [(-1, 1), (0, 0), (1, 1)])
def test_topk(driver: Driver, tmp_path: Path, axis: int, largest: int) -> None:
    x = RNG.integers(0, 6, (4, 7, 5)).astype(np.float32)  # ties
    k = np.array([3], np.int64)
    want = ort_run("TopK", [x, k], n_out=2, axis=axis, largest=largest)
    got = run_kernel(driver, tmp_path, "TopK", [x, k], [(np.float32, want[0].shape), (np.int64, want[1].shape)],
                     attrs={"axis": axis, "largest": largest})
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def test_shape_constant_range(driver: Driver, tmp_path: Path) -> None:
    x = np.zeros((2, 3, 5), np.float32)
    np.testing.assert_array_equal(run_kernel(driver, tmp_path, "Shape", [x], [(np.int64, (3,))])[0], [2, 3, 5])
    np.testing.assert_array_equal(run_kernel(driver, tmp_path, "Shape", [x], [(np.int64, (2,))], attrs={"start": -2})[0], [3, 5])
    got = run_kernel(driver, tmp_path, "ConstantOfShape", [np.array([2, 3], np.int64)], [(np.int64, (2, 3))],
                     attrs={"value": np.array([7], np.int64)})[0]
    np.testing.assert_array_equal(got, np.full((2, 3), 7))
    got = run_kernel(driver, tmp_path, "Range", [np.array(1.0, np.float32), np.array(2.0, np.float32), np.array(0.1, np.float32)],
                     [(np.float32, (10,))])[0]
    want = ort_run("Range", [np.array(1.0, np.float32), np.array(2.0, np.float32), np.array(0.1, np.float32)])[0]
    np.testing.assert_array_equal(got, want)
    got = run_kernel(driver, tmp_path, "Range", [np.array(5, np.int64), np.array(-1, np.int64), np.array(-2, np.int64)],
                     [(np.int64, (3,))])[0]
    np.testing.assert_array_equal(got, [5, 3, 1])


RESIZES = [
    ({"mode": "nearest"}, [1, 1, 2, 2]),
    ({"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"}, [1, 1, 2, 3]),
    ({"mode": "nearest", "nearest_mode": "round_prefer_ceil"}, [1, 1, 0.6, 1.7]),
    ({"mode": "linear"}, [1, 1, 2, 2]),
    ({"mode": "linear", "coordinate_transformation_mode": "align_corners"}, [1, 1, 1.5, 2.5]),
    ({"mode": "linear", "coordinate_transformation_mode": "pytorch_half_pixel"}, [1, 1, 0.5, 3]),
    ({"mode": "linear", "coordinate_transformation_mode": "asymmetric"}, [1, 1, 2, 0.5]),
    ({"mode": "cubic"}, [1, 1, 1.5, 2]),
    ({"mode": "cubic", "cubic_coeff_a": -0.5, "exclude_outside": 1, "coordinate_transformation_mode": "align_corners"},
     [1, 1, 0.6, 1.5]),
]


@pytest.mark.parametrize("case", range(len(RESIZES)))
def test_resize(driver: Driver, tmp_path: Path, case: int) -> None:
    attrs, scales = RESIZES[case]
    x = RNG.standard_normal((1, 2, 5, 4)).astype(np.float32)
    s = np.array(scales, np.float32)
    want = ort_run("Resize", [x, None, s], **attrs)[0]
    got = run_kernel(driver, tmp_path, "Resize", [x, None, s], [(np.float32, want.shape)], attrs=attrs, constant=(2,))[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_refusals(driver: Driver, tmp_path: Path) -> None:
    x = np.ones((2, 3), np.float32)
    with pytest.raises(Refused, match="not a permutation"):
        run_kernel(driver, tmp_path, "Transpose", [x], [(np.float32, (3, 2))], attrs={"perm": [0, 0]})
    with pytest.raises(Refused, match="mode='area'"):
        run_kernel(driver, tmp_path, "Resize", [x], [(np.float32, (2, 3))], attrs={"mode": "area"})
    with pytest.raises(Refused, match="indices dtype FLOAT"):
        run_kernel(driver, tmp_path, "Gather", [x, np.zeros(1, np.float32)], [(np.float32, (1, 3))])
    with pytest.raises(Refused, match="do not add up"):
        run_kernel(driver, tmp_path, "Concat", [x, x], [(np.float32, (5, 3))], attrs={"axis": 0})
