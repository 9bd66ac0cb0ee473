"""Host (numpy) kernels of the index and quantization ops, registered into host_kernels.HOST_KERNELS (same
contract: `kernel(inputs, attrs) -> outputs`, HostKernelError for what they do not handle): GatherND, ScatterND,
ScatterElements (reductions none/add/mul/max/min via numpy's unbuffered ufunc.at, so repeated indices
accumulate), OneHot, Trilu, CumSum, ReverseSequence, Unique (sorted or in order of first occurrence),
Quantize/DequantizeLinear (per tensor, per axis or per block) and MelWeightMatrix (ONNX's triangular mel filters).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .host_kernels import HostKernelError, kernel
from .onnx_types import dtype_from_onnx

Array = np.ndarray
_AT = {"add": np.add.at, "mul": np.multiply.at, "max": np.maximum.at, "min": np.minimum.at}


def _in_range(indices: Array, sizes: Array | int, op: str) -> Array:
    """`indices` with negative values counted from the end; out of range is refused."""
    indices = indices.astype(np.int64)
    if np.any((indices < -sizes) | (indices >= sizes)):
        raise HostKernelError(f"{op} index out of range")
    return np.where(indices < 0, indices + sizes, indices)


def _scatter(out: Array, key: tuple[Array, ...], updates: Array, reduction: str) -> Array:
    if reduction == "none":
        out[key] = updates
    else:
        _AT[reduction](out, key, updates)
    return out


@kernel("GatherND")
def _gather_nd(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    data, indices = np.asarray(inputs[0]), np.asarray(inputs[1])
    batch, depth = int(attrs.get("batch_dims", 0)), indices.shape[-1]
    groups = int(np.prod(data.shape[:batch], dtype=np.int64))
    d = data.reshape((groups, *data.shape[batch:]))
    i = _in_range(indices.reshape((groups, -1, depth)), np.asarray(data.shape[batch : batch + depth]), "GatherND")
    picked = np.stack([d[g][tuple(i[g].T)] for g in range(groups)]) if groups else np.empty((0,), data.dtype)
    return [picked.reshape((*indices.shape[:-1], *data.shape[batch + depth :]))]


@kernel("ScatterND")
def _scatter_nd(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    data, indices, updates = (np.asarray(a) for a in inputs[:3])
    depth = indices.shape[-1]
    flat = _in_range(indices.reshape(-1, depth), np.asarray(data.shape[:depth]), "ScatterND")
    rows = updates.reshape((flat.shape[0], *data.shape[depth:]))
    return [_scatter(data.copy(), tuple(flat.T), rows, attrs.get("reduction", "none"))]


@kernel("ScatterElements")
def _scatter_elements(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    data, indices, updates = (np.asarray(a) for a in inputs[:3])
    axis = int(attrs.get("axis", 0)) % data.ndim
    key = list(np.indices(indices.shape, sparse=True))
    key[axis] = _in_range(indices, data.shape[axis], "ScatterElements")
    return [_scatter(data.copy(), tuple(np.broadcast_arrays(*key)), updates, attrs.get("reduction", "none"))]


@kernel("OneHot")
def _one_hot(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    indices, depth_in, values = (np.asarray(a) for a in inputs[:3])
    depth = int(depth_in.reshape(-1)[0])
    picks = indices.astype(np.int64)
    picks = np.where(picks < 0, picks + depth, picks)  # still out of range: a row of `off` values (onnxruntime)
    hot = np.arange(depth) == picks[..., None]
    out = np.where(hot, values.reshape(-1)[1], values.reshape(-1)[0]).astype(values.dtype)
    return [np.moveaxis(out, -1, int(attrs.get("axis", -1)) % out.ndim)]


@kernel("Trilu")
def _trilu(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    x = np.asarray(inputs[0])
    k = int(np.asarray(inputs[1]).reshape(-1)[0]) if len(inputs) > 1 and inputs[1] is not None else 0
    return [np.triu(x, k) if attrs.get("upper", 1) else np.tril(x, k)]


@kernel("CumSum")
def _cumsum(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    x = np.asarray(inputs[0])
    axis = int(np.asarray(inputs[1]).reshape(-1)[0]) % max(x.ndim, 1)
    y = np.flip(x, axis) if attrs.get("reverse", 0) else x
    total = np.cumsum(y, axis=axis, dtype=x.dtype)
    if attrs.get("exclusive", 0):  # shifted by one: element i sums the elements before it
        total = np.concatenate([np.zeros_like(np.take(total, [0], axis)), np.delete(total, -1, axis)], axis)
    return [np.flip(total, axis) if attrs.get("reverse", 0) else total]


@kernel("ReverseSequence")
def _reverse_sequence(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    x, lens = np.asarray(inputs[0]), np.asarray(inputs[1]).astype(np.int64)
    batch_axis, time_axis = int(attrs.get("batch_axis", 1)), int(attrs.get("time_axis", 0))
    out = np.moveaxis(x.copy(), (batch_axis, time_axis), (0, 1))
    if np.any((lens < 0) | (lens > out.shape[1])):
        raise HostKernelError("ReverseSequence: a sequence length is out of range")
    for b, length in enumerate(lens):
        out[b, :length] = out[b, :length][::-1].copy()
    return [np.ascontiguousarray(np.moveaxis(out, (0, 1), (batch_axis, time_axis)))]


@kernel("Unique")
def _unique(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    x, axis = np.asarray(inputs[0]), attrs.get("axis")
    values, first, inverse, counts = np.unique(
        x, return_index=True, return_inverse=True, return_counts=True, axis=None if axis is None else int(axis)
    )
    inverse = inverse.reshape(-1)
    if not attrs.get("sorted", 1):  # in order of first occurrence
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        values = np.take(values, order, axis=0 if axis is None else int(axis))
        first, counts, inverse = first[order], counts[order], rank[inverse]
    return [values, first.astype(np.int64), inverse.astype(np.int64), counts.astype(np.int64)]


def _per_axis(param: Array, x: Array, attrs: dict[str, Any]) -> Array:
    """A scale or zero point broadcast against x: scalar, per axis (1-D) or per block (opset 21)."""
    if param.size == 1 and not attrs.get("block_size", 0):
        return param.reshape(())
    axis = int(attrs.get("axis", 1)) % x.ndim
    block = int(attrs.get("block_size", 0))
    if block:
        return np.repeat(param, block, axis=axis).take(np.arange(x.shape[axis]), axis=axis)
    return param.reshape([-1 if i == axis else 1 for i in range(x.ndim)])


@kernel("QuantizeLinear")
def _quantize(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    x, scale, zero = np.asarray(inputs[0]), np.asarray(inputs[1]), np.asarray(inputs[2])
    info = np.iinfo(zero.dtype)
    scaled = np.rint(x.astype(np.float32) / _per_axis(scale, x, attrs).astype(np.float32))  # half to even
    shifted = scaled + _per_axis(zero, x, attrs).astype(np.float32)
    return [np.clip(shifted, info.min, info.max).astype(zero.dtype)]


@kernel("DequantizeLinear")
def _dequantize(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    x, scale = np.asarray(inputs[0]), np.asarray(inputs[1])
    zero = np.asarray(inputs[2]) if len(inputs) > 2 and inputs[2] is not None else np.zeros((), x.dtype)
    centred = x.astype(np.int64) - _per_axis(zero, x, attrs).astype(np.int64)
    return [(centred.astype(np.float32) * _per_axis(scale, x, attrs).astype(np.float32)).astype(scale.dtype)]


@kernel("MelWeightMatrix")
def _mel_weight_matrix(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    bins, length, rate = (int(np.asarray(a).reshape(-1)[0]) for a in inputs[:3])
    low, high = (float(np.asarray(a).reshape(-1)[0]) for a in inputs[3:5])
    if rate <= 0:
        raise HostKernelError("MelWeightMatrix with a sample rate <= 0")

    def mel(hertz: float) -> float:
        return 2595 * np.log1p(hertz / 700) / np.log(10)

    # bins + 2 edges evenly spaced in mel (the step divides by bins + 2, as ONNX's reference does), as DFT bins
    edges = np.arange(bins + 2) * ((mel(high) - mel(low)) / (bins + 2)) + mel(low)
    points = (((length + 1) * (700 * np.expm1(edges / 2595 * np.log(10)))) // rate).astype(int)
    out = np.zeros((length // 2 + 1, bins))
    for i in range(bins):
        left, centre, right = points[i], points[i + 1], points[i + 2]
        if centre == left:
            out[centre, i] = 1
        else:
            out[left : centre + 1, i] = (np.arange(left, centre + 1) - left) / (centre - left)
        if right > centre:
            out[centre:right, i] = (right - np.arange(centre, right)) / (right - centre)
    given = attrs.get("output_datatype")
    dtype = np.float32 if given is None else dtype_from_onnx(int(given), "MelWeightMatrix output_datatype").numpy
    return [out.astype(dtype)]
