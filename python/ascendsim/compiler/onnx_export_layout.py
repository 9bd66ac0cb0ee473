"""The NC1HWC0 ops of the layout pass (ops/layout.py) in standard ONNX, so that an exported graph of any stage
still runs in onnxruntime: TransData becomes Pad + Reshape + Transpose (to NC1HWC0) or Transpose + Reshape +
Slice (back), and BlockedConv the Conv between them (its input, unless NCHW already, and its fused sum taken back
to NCHW, its output to NC1HWC0). The shapes are static (the pass runs on static graphs only)."""

from __future__ import annotations

from typing import Protocol

import numpy as np

from .ir import Node, Value
from .ops.layout import C0, NC1HWC0, blocks


class _Emitter(Protocol):
    """What these functions use of onnx_export's emitter (named here: onnx_export imports this module)."""

    def fresh(self, base: str) -> str: ...

    def const(self, base: str, array: np.ndarray) -> str: ...

    def add(self, op: str, inputs: list[str], outputs: list[str], name: str, domain: str = "",
            **attrs: object) -> None: ...


_TO_NC1HWC0 = [0, 1, 3, 4, 2]
_TO_NCHW = [0, 1, 4, 2, 3]


def emit_transdata(em: _Emitter, node: Node) -> None:
    x, y = node.inputs[0], node.outputs[0]
    assert x is not None and x.shape is not None
    channels = int(node.attrs["channels"])
    if node.attrs["dst_format"] == NC1HWC0:
        _to_blocked(em, x.name, x.shape, channels, y=y.name, name=node.name)
    else:
        _to_planar(em, x.name, x.shape, channels, y=y.name, name=node.name)


def emit_blocked_conv(em: _Emitter, node: Node, emit_node: object) -> None:
    """The Conv on NCHW operands, written by the exporter's own `emit_node` (its fused epilogue included)."""
    x, w, out = node.inputs[0], node.inputs[1], node.outputs[0]
    assert x is not None and w is not None and x.shape is not None and w.shape is not None and out.shape is not None
    channels, m = int(w.shape[1]) * int(node.attrs.get("group", 1)), int(w.shape[0])
    planar = [x if len(x.shape) == 4 else _planar_value(em, x, channels, f"{node.name}/x")]  # (a stem's x: NCHW)
    planar += node.inputs[1:3]
    if len(node.inputs) > 3 and node.inputs[3] is not None:
        planar.append(_planar_value(em, node.inputs[3], m, f"{node.name}/sum"))
    result = Value(em.fresh(f"{out.name}_nchw"), out.dtype)
    emit_node(em, Node(node.name, "Conv", planar, [result], dict(node.attrs)), {})  # type: ignore[operator]
    _to_blocked(em, result.name, (out.shape[0], m, out.shape[2], out.shape[3]), m, y=out.name, name=f"{node.name}/to_nc1hwc0")


def _planar_value(em: _Emitter, value: Value, channels: int, name: str) -> Value:
    planar = Value(em.fresh(f"{value.name}_nchw"), value.dtype)
    _to_planar(em, value.name, value.shape, channels, y=planar.name, name=name)  # type: ignore[arg-type]
    return planar


def _to_blocked(em: _Emitter, x: str, shape: tuple, channels: int, *, y: str, name: str) -> None:
    n, _, h, w = (int(d) for d in shape)
    c1 = int(blocks(channels))
    if c1 * C0 > channels:
        padded = em.fresh(f"{y}_padded")
        pads = em.const(f"{name}_pads", np.array([0, 0, 0, 0, 0, c1 * C0 - channels, 0, 0], np.int64))
        em.add("Pad", [x, pads], [padded], f"{name}/pad")
        x = padded
    split = em.fresh(f"{y}_split")
    em.add("Reshape", [x, em.const(f"{name}_shape", np.array([n, c1, C0, h, w], np.int64))], [split], f"{name}/split")
    em.add("Transpose", [split], [y], f"{name}/transpose", perm=_TO_NC1HWC0)


def _to_planar(em: _Emitter, x: str, shape: tuple, channels: int, *, y: str, name: str) -> None:
    n, c1, h, w, _ = (int(d) for d in shape)
    moved, merged = em.fresh(f"{y}_moved"), em.fresh(f"{y}_merged") if c1 * C0 > channels else y
    em.add("Transpose", [x], [moved], f"{name}/transpose", perm=_TO_NCHW)
    em.add("Reshape", [moved, em.const(f"{name}_shape", np.array([n, c1 * C0, h, w], np.int64))], [merged],
           f"{name}/merge")
    if merged != y:
        ends = em.const(f"{name}_ends", np.array([channels], np.int64))
        em.add("Slice", [merged, em.const(f"{name}_starts", np.array([0], np.int64)), ends,
                         em.const(f"{name}_axes", np.array([1], np.int64))], [y], f"{name}/slice")
