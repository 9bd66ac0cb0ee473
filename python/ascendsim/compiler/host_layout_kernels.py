"""Host kernels of the NC1HWC0 ops (ops/layout.py), so that the reference interpreter `run_graph` runs a graph
after the layout pass: TransData moves between the 4-D and the 5-D form, BlockedConv is the host Conv between
two TransData."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .host_kernels import HOST_KERNELS, HostKernelError, kernel
from .ops.layout import C0, NC1HWC0, NCHW, blocks

Array = np.ndarray


def to_blocked(x: Array) -> Array:
    """NCHW -> NC1HWC0 (the lanes past C zero)."""
    n, c, h, w = x.shape
    padded = np.zeros((n, blocks(c) * C0, h, w), x.dtype)
    padded[:, :c] = x
    return np.ascontiguousarray(padded.reshape(n, -1, C0, h, w).transpose(0, 1, 3, 4, 2))


def from_blocked(x: Array, channels: int) -> Array:
    """NC1HWC0 -> NCHW of `channels` channels."""
    n, c1, h, w, c0 = x.shape
    return np.ascontiguousarray(x.transpose(0, 1, 4, 2, 3).reshape(n, c1 * c0, h, w)[:, :channels])


@kernel("TransData")
def _transdata(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    x = np.asarray(inputs[0])
    if attrs.get("dst_format") == NC1HWC0 and attrs.get("src_format") == NCHW:
        return [to_blocked(x)]
    if attrs.get("src_format") == NC1HWC0 and attrs.get("dst_format") == NCHW:
        return [from_blocked(x, int(attrs["channels"]))]
    raise HostKernelError("TransData: only NCHW <-> NC1HWC0")


@kernel("BlockedConv")
def _blocked_conv(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    x, w = np.asarray(inputs[0]), np.asarray(inputs[1])
    channels = w.shape[1] * int(attrs.get("group", 1))
    operands: list[Array | None] = [x if x.ndim == 4 else from_blocked(x, channels), w, *inputs[2:]]
    if attrs.get("fused_sum"):
        operands[3] = from_blocked(np.asarray(inputs[3]), w.shape[0])
    return [to_blocked(HOST_KERNELS["Conv"](operands, attrs)[0])]
