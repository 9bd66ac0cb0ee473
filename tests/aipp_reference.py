"""Static AIPP in numpy, written from CANN's documentation only (ATC guide, "AIPP": configuration
template, CSC configuration, crop/padding, normalisation; aclmdlGetInputDimsV2's layout table), not from
ascendsim's implementation: decode the raw memory per pixel, swap channels, crop, CSC, normalise, pad.

- memory: RGB888 R,G,B; XRGB/ARGB X|A,R,G,B; AYUV444 A,Y,U,V; YUV400 Y; YUV420SP (NV12) a Y plane of H rows
  then H/2 rows of U,V pairs, one pair per 2x2 pixels; YUV422SP the same with H rows of pairs (one per 1x2);
  YUYV Y0,U,Y1,V per two pixels;
- ax_swap_switch: the X/A channel moves from first to last ("XRGB package: ax_swap true", "RGBX package:
  ax_swap false"); rbuv_swap_switch: R<->B, or U<->V for YUV images (NV21 -> NV12);
- CSC with the documented 3x3 int matrix and `>> 8`: YUV->RGB subtracts input_bias first, RGB->YUV adds
  output_bias after; the result is an 8-bit pixel (clipped to [0, 255]); defaults: the template's matrix
  (298, 516, 0 / 298, -100, -208 / 298, 0, 409) for YUV420SP, GE's RGB->YUV BT.601 one (66, 129, 25 / -38,
  -74, 112 / 112, -94, -18) otherwise, biases 16, 128, 128;
- pixel_out = (pixel_in - mean_chn_i - min_chn_i) * var_reci_chn_i, min and var_reci being float16;
- padding with padding_value around the crop.
"""

from __future__ import annotations

import numpy as np

YUV_FORMATS = ("YUV420SP_U8", "YUV422SP_U8", "YUYV_U8", "AYUV444_U8", "YUV400_U8")
TEMPLATE_MATRIX = (298, 516, 0, 298, -100, -208, 298, 0, 409)
RGB2YUV_601 = (66, 129, 25, -38, -74, 112, 112, -94, -18)


def raw_shape(fmt: str, n: int, h: int, w: int) -> tuple[int, int, int, int]:
    """aclmdlGetInputDimsV2 of an AIPP input: n, h*1.5, w, 1 for YUV420SP etc."""
    rows = {"YUV420SP_U8": h * 3 // 2, "YUV422SP_U8": 2 * h}.get(fmt, h)
    channels = {"RGB888_U8": 3, "YUV400_U8": 1, "YUYV_U8": 2, "YUV420SP_U8": 1, "YUV422SP_U8": 1}.get(fmt, 4)
    return n, rows, w, channels


def pixels(raw: np.ndarray, fmt: str, h: int, w: int) -> np.ndarray:
    """[N, h, w, C] int64 per-pixel channels in memory order (YUV for the YUV formats)."""
    raw = raw.astype(np.int64)
    if fmt in ("YUV420SP_U8", "YUV422SP_U8"):
        sub = 2 if fmt == "YUV420SP_U8" else 1
        luma = raw[:, :h, :, 0]
        uv = raw[:, h:, :, 0].reshape(raw.shape[0], h // sub, w // 2, 2)
        uv = np.repeat(np.repeat(uv, sub, axis=1), 2, axis=2)
        return np.concatenate([luma[..., None], uv], axis=3)
    if fmt == "YUYV_U8":
        luma = raw[..., 0]
        col = np.arange(w) // 2 * 2
        return np.stack([luma, raw[:, :, col, 1], raw[:, :, col + 1, 1]], axis=3)
    return raw


def reference_aipp(
    raw: np.ndarray, cfg: dict[str, object], model_c: int, model_hw: tuple[int, int], nchw: bool = True
) -> np.ndarray:
    """The model's input tensor the AIPP of `cfg` (field -> value) makes from the raw uint8 image."""
    fmt = str(cfg["input_format"])
    yuv = fmt in YUV_FORMATS

    def num(name: str, default: float = 0) -> float:
        return float(cfg.get(name, default))  # type: ignore[arg-type]

    h = int(num("src_image_size_h")) or model_hw[0]
    w = int(num("src_image_size_w")) or model_hw[1]
    x = pixels(raw, fmt, h, w)
    if cfg.get("ax_swap_switch") and x.shape[3] == 4:
        x = x[..., [1, 2, 3, 0]]
    if cfg.get("rbuv_swap_switch") and fmt != "YUV400_U8":
        x = x[..., [0, 2, 1, 3][: x.shape[3]] if yuv else [2, 1, 0, 3][: x.shape[3]]]
    if cfg.get("crop"):
        top, left = int(num("load_start_pos_h")), int(num("load_start_pos_w"))
        x = x[:, top : top + int(num("crop_size_h", model_hw[0])), left : left + int(num("crop_size_w", model_hw[1]))]
    if cfg.get("csc_switch"):
        default = TEMPLATE_MATRIX if fmt == "YUV420SP_U8" else RGB2YUV_601
        m = np.array([int(num(f"matrix_r{r}c{c}", default[3 * r + c])) for r in range(3) for c in range(3)])
        m = m.reshape(3, 3)
        colour = x[..., :3]
        if yuv:
            bias = np.array([int(num(f"input_bias_{i}", (16, 128, 128)[i])) for i in range(3)])
            x = np.einsum("rc,nhwc->nhwr", m, colour - bias) >> 8
        else:
            bias = np.array([int(num(f"output_bias_{i}", (16, 128, 128)[i])) for i in range(3)])
            x = (np.einsum("rc,nhwc->nhwr", m, colour) >> 8) + bias
        x = np.clip(x, 0, 255)
    x = x[..., :model_c].astype(np.float32)
    mean = np.array([num(f"mean_chn_{i}") for i in range(model_c)], np.float32)
    low = np.array([np.float16(num(f"min_chn_{i}")) for i in range(model_c)], np.float32)
    var = np.array([np.float16(num(f"var_reci_chn_{i}", 1.0)) for i in range(model_c)], np.float32)
    x = (x - mean - low) * var
    if cfg.get("padding"):
        sizes = [int(num(f"{side}_padding_size")) for side in ("top", "bottom", "left", "right")]
        x = np.pad(x, [(0, 0), sizes[:2], sizes[2:], (0, 0)], constant_values=num("padding_value"))
    assert x.shape[1:3] == model_hw, (x.shape, model_hw)
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2) if nchw else x)
