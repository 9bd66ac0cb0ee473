"""The image formats static AIPP reads (`input_format` of `--insert_op_conf`) and how each is decoded into
one value per pixel and channel, as graph ops on the raw uint8 model input.

Memory layouts (one image; a batch is N of them back to back), from CANN's AIPP guide and the Aipp
operator's shape rules (GE's aclmdlGetInputDimsV2 table):
- RGB888_U8 [H, W, 3] R,G,B; XRGB8888_U8 / ARGB8888_U8 [H, W, 4] X|A,R,G,B; AYUV444_U8 [H, W, 4] A,Y,U,V;
  YUV400_U8 [H, W, 1] Y;
- YUV420SP_U8 (NV12; NV21 with rbuv_swap_switch) [H*3/2, W, 1]: the Y plane (H rows), then H/2 rows of
  interleaved U,V pairs, one pair per 2x2 block of pixels;
- YUV422SP_U8 [H*2, W, 1]: the Y plane, then H rows of U,V pairs, one pair per 1x2 block;
- YUYV_U8 [H, W, 2]: per pixel pair Y0,U,Y1,V.
Decoding (`decode`) crops first (on the planes, so only the crop window is converted; ATC requires even
crop offsets and sizes where chroma is subsampled, which keeps the blocks whole) and gives [N, h, w, C] in
the memory order above, with each chroma pair repeated over its block (Expand). aclmdlGetInputDims
reports [N, H, W, desc_channels] (GE's Aipp shape function: 3 for the YUV formats but YUV400, 4 for the
four-channel ones, 1 for YUV400); the graph tensor, aclmdlGetInputDimsV2 and the byte size use `raw`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

from .ir import Value


@dataclass(frozen=True)
class ImageFormat:
    name: str
    channels: int  # per-pixel channels after decoding
    yuv: bool  # YUV family: the CSC subtracts input_bias, rbuv_swap_switch exchanges U and V
    desc_channels: int  # C of aclmdlGetInputDims
    raw_rows: Fraction  # the raw tensor is [N, H * raw_rows, W, raw_channels]
    raw_channels: int
    chroma_block: tuple[int, int] = (1, 1)  # pixels (h, w) sharing one U,V pair
    semi_planar: bool = False  # a Y plane followed by a U,V plane

    def raw_shape(self, n: int, h: int, w: int) -> tuple[int, int, int, int]:
        return n, int(h * self.raw_rows), w, self.raw_channels

    def desc_shape(self, n: int, h: int, w: int) -> tuple[int, int, int, int]:
        return n, h, w, self.desc_channels


FORMATS = {
    f.name: f
    for f in (
        ImageFormat("RGB888_U8", 3, False, 3, Fraction(1), 3),
        ImageFormat("XRGB8888_U8", 4, False, 4, Fraction(1), 4),
        ImageFormat("ARGB8888_U8", 4, False, 4, Fraction(1), 4),
        ImageFormat("YUV400_U8", 1, True, 1, Fraction(1), 1),
        ImageFormat("AYUV444_U8", 4, True, 4, Fraction(1), 4),
        ImageFormat("YUV420SP_U8", 3, True, 3, Fraction(3, 2), 1, (2, 2), semi_planar=True),
        ImageFormat("YUV422SP_U8", 3, True, 3, Fraction(2), 1, (1, 2), semi_planar=True),
        ImageFormat("YUYV_U8", 3, True, 3, Fraction(1), 2, (1, 2)),
    )
}


class Emitter(Protocol):  # aipp._Emitter
    def __call__(self, op: str, inputs: list[Value], **attrs: object) -> Value: ...

    def const(self, data: object) -> Value: ...


def decode(
    emit: Emitter, fmt: ImageFormat, raw: Value, *, src_h: int, start: tuple[int, int], size: tuple[int, int]
) -> Value:
    """The crop window (start and size as (h, w)) of the raw uint8 input as [N, h, w, fmt.channels]."""
    (h0, w0), (ch, cw) = start, size
    const = emit.const

    def crop(x: Value, row0: int, rows: int, col0: int, cols: int) -> Value:
        if x.shape is not None and (row0, col0, rows, cols) == (0, 0, x.shape[1], x.shape[2]):
            return x
        return emit("Slice", [x, const([row0, col0]), const([row0 + rows, col0 + cols]), const([1, 2])])

    if fmt.semi_planar:  # Y rows, then the U,V rows
        bh, bw = fmt.chroma_block
        luma = crop(raw, h0, ch, w0, cw)
        pairs = crop(raw, src_h + h0 // bh, ch // bh, w0, cw)
        return emit("Concat", [luma, _spread(emit, pairs, ch // bh, cw // bw, fmt.chroma_block)], axis=3)
    if fmt.name == "YUYV_U8":  # channel 0 is Y of every pixel, channel 1 alternates U and V
        x = crop(raw, h0, ch, w0, cw)
        luma = emit("Slice", [x, const([0]), const([1]), const([3])])
        pairs = emit("Slice", [x, const([1]), const([2]), const([3])])
        return emit("Concat", [luma, _spread(emit, pairs, ch, cw // 2, fmt.chroma_block)], axis=3)
    return crop(raw, h0, ch, w0, cw)


def _spread(emit: Emitter, pairs: Value, rows: int, cols: int, block: tuple[int, int]) -> Value:
    """[N, rows, 2*cols, 1] interleaved U,V -> [N, rows*bh, cols*bw, 2], each pair repeated over its block."""
    n = int(pairs.shape[0])  # type: ignore[index]
    bh, bw = block
    x = emit("Reshape", [pairs, emit.const([n, rows, 1, cols, 1, 2])])
    x = emit("Expand", [x, emit.const([n, rows, bh, cols, bw, 2])])
    return emit("Reshape", [x, emit.const([n, rows * bh, cols * bw, 2])])
