"""One `aipp_op` against its model input: the defaults filled in (GE's AippOp::SetDefaultParams and
SetCscDefaultValue) and the checks that need the model input's shape (the Aipp operator's compiler, E81012,
as ATC runs it), giving the AippInfo record that aipp.py builds the ops from and the OM stores.

Rules (CANN's AIPP configuration template and crop/padding guide, the Aipp operator's checks):
- src_image_size_w/h 0 means the model's W/H, allowed only when neither crop nor padding is on; the model's
  W must then be in [2, 4096] and H in [1, 4096];
- YUV420SP_U8 needs even source sizes and, with crop, even load_start_pos_w/h and crop_size_w/h;
  YUV422SP_U8 and YUYV_U8 need an even width, start and crop width (chroma pairs stay whole);
- crop: crop_size 0 means the model's H/W (not with padding); the window must lie inside the source;
- the output (crop or source size plus padding) must be the model's H x W; with padding W <= 1080 on
  Atlas inference/training products (Ascend310P, Ascend910), <= 4096 on the others;
- CSC defaults when csc_switch is on and a value is not given: for YUV420SP_U8 GE's YUV->BGR BT.601
  narrow matrix, for every other format GE's RGB->YUV one; input and output bias 16, 128, 128;
- min_chn and var_reci_chn are float16 registers: the values the hardware uses are rounded to fp16;
- as the Aipp operator does, ax_swap_switch is ignored on 3- and 1-channel formats and rbuv_swap_switch on
  YUV400_U8 (the record keeps the configured switches, as GE's aclAippInfo does).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .aipp_config import INPUT_FORMATS, AippConfig
from .aipp_formats import FORMATS, ImageFormat
from .ir import DType

YUV2BGR = ((298, 516, 0), (298, -100, -208), (298, 0, 409))  # GE's YUV420SP_U8 default (rows B, G, R)
RGB2YUV = ((66, 129, 25), (-38, -74, 112), (112, -94, -18))  # GE's default for the other formats
DEFAULT_BIAS = (16, 128, 128)  # GE's default input and output bias
_EXACT = 1 << 24  # float32 holds every integer below this: the CSC sums stay exact
_NARROW_PADDING_SOCS = ("Ascend310P", "Ascend910A", "Ascend910ProA", "Ascend910ProB", "Ascend910PremiumA")


@dataclass
class AippInfo:
    """The resolved static AIPP parameters of one model input (what aclAippInfo reports)."""

    input_index: int
    input_format: str
    src_w: int
    src_h: int
    crop: bool
    load_start_w: int
    load_start_h: int
    crop_w: int
    crop_h: int
    padding: bool
    pads: tuple[int, int, int, int]  # left, right, top, bottom
    padding_value: float
    csc: bool
    rbuv_swap: bool
    ax_swap: bool
    matrix: tuple[int, ...]
    output_bias: tuple[int, int, int]
    input_bias: tuple[int, int, int]
    mean: tuple[int, int, int, int]
    min: tuple[float, float, float, float]
    var_reci: tuple[float, float, float, float]
    out_dtype: DType
    out_format: str  # layout of the tensor fed to the model: NCHW or NHWC
    out_dims: list[tuple[int, ...]] = field(default_factory=list)  # per plan (gear), set by the build
    src_dims: list[tuple[int, ...]] = field(default_factory=list)  # per plan: aclmdlGetInputDims' image dims

    @property
    def format_id(self) -> int:
        return INPUT_FORMATS[self.input_format]

    @property
    def image(self) -> ImageFormat:
        return FORMATS[self.input_format]

    def add_plan(self, other: AippInfo) -> None:
        """Takes another gear's record: its shapes are appended; sizes that differ between gears (the
        config left them 0 and each gear resolved its own) are reported as 0, the config's value."""
        self.out_dims += other.out_dims
        self.src_dims += other.src_dims
        for name in ("src_w", "src_h", "crop_w", "crop_h"):
            if getattr(self, name) != getattr(other, name):
                setattr(self, name, 0)


def fp16(value: float) -> float:
    return float(np.float16(value))


def resolve(
    cfg: AippConfig, index: int, nchw: tuple[int, int, int, int], *, dtype: DType, layout: str, soc_version: str
) -> AippInfo:
    """Defaults and checks of the config against the model input (N, C, H, W)."""
    n, c, h, w = nchw
    fmt = FORMATS[str(cfg.get("input_format"))]
    crop, padding = cfg.flag("crop"), cfg.flag("padding")
    src_w, src_h = cfg.as_int("src_image_size_w"), cfg.as_int("src_image_size_h")
    if (crop or padding) and (src_w <= 0 or src_h <= 0):
        raise cfg.op_error(
            "src_image_size_w" if src_w <= 0 else "src_image_size_h",
            f"with crop[{int(crop)}] or padding[{int(padding)}] on, src_image_size_w[{src_w}] and "
            f"src_image_size_h[{src_h}] must be greater than 0",
        )
    if (src_w == 0 and not 2 <= w <= 4096) or (src_h == 0 and not 1 <= h <= 4096):
        raise cfg.op_error(
            "src_image_size_w" if src_w == 0 else "src_image_size_h",
            f"src_image_size 0 takes the model's {h}x{w} (h x w), which must be within [1, 4096] x [2, 4096]",
        )
    src_w, src_h = src_w or w, src_h or h
    _check_parity(cfg, fmt, "src_image_size", src_h, src_w)
    start_w, start_h = (cfg.as_int("load_start_pos_w"), cfg.as_int("load_start_pos_h")) if crop else (0, 0)
    crop_w, crop_h = (cfg.as_int("crop_size_w"), cfg.as_int("crop_size_h")) if crop else (src_w, src_h)
    if crop and (crop_w == 0 or crop_h == 0):
        if padding:
            raise cfg.op_error(
                "crop_size_w" if crop_w == 0 else "crop_size_h",
                f"crop_size_w[{crop_w}] or crop_size_h[{crop_h}] is 0 (the model's size), which "
                "padding[1] does not allow",
            )
        crop_w, crop_h = crop_w or w, crop_h or h
    for axis, start, size, src in (("h", start_h, crop_h, src_h), ("w", start_w, crop_w, src_w)):
        if start + size > src:
            raise cfg.op_error(
                f"crop_size_{axis}",
                f"load_start_pos_{axis}[{start}] + crop_size_{axis}[{size}] exceeds src_image_size_{axis}[{src}]",
            )
    if crop:
        _check_parity(cfg, fmt, "load_start_pos", start_h, start_w)
        _check_parity(cfg, fmt, "crop_size", crop_h, crop_w)
    pads = tuple(cfg.as_int(f"{side}_padding_size") if padding else 0 for side in ("left", "right", "top", "bottom"))
    _check_output(cfg, (crop_h, crop_w), pads, (h, w), crop=crop, soc_version=soc_version)
    csc = cfg.flag("csc_switch")
    available = 3 if csc else fmt.channels
    if c > available:
        raise cfg.error(
            "input_format",
            f"the model input has {c} channels but {fmt.name}{' after CSC' if csc else ''} gives {available}",
        )
    default = YUV2BGR if fmt.name == "YUV420SP_U8" else RGB2YUV
    matrix = tuple(cfg.as_int(f"matrix_r{r}c{k}", default[r][k] if csc else 0) for r in range(3) for k in range(3))
    if csc and max(sum(abs(v) for v in matrix[r * 3 : r * 3 + 3]) for r in range(3)) * 255 >= _EXACT:
        raise cfg.error("matrix_r0c0", "CSC matrix rows with |sum| x 255 >= 2^24 are not supported by ascendsim")
    bias = tuple(cfg.as_int(f"output_bias_{i}", DEFAULT_BIAS[i] if csc else 0) for i in range(3))
    in_bias = tuple(cfg.as_int(f"input_bias_{i}", DEFAULT_BIAS[i] if csc else 0) for i in range(3))
    four = range(4)
    info = AippInfo(
        index, fmt.name, src_w, src_h, crop, start_w, start_h, crop_w, crop_h, padding, pads,  # type: ignore[arg-type]
        padding_value=cfg.as_float("padding_value"), csc=csc, rbuv_swap=cfg.flag("rbuv_swap_switch"),
        ax_swap=cfg.flag("ax_swap_switch"), matrix=matrix, output_bias=bias, input_bias=in_bias,  # type: ignore[arg-type]
        mean=tuple(cfg.as_int(f"mean_chn_{i}") for i in four),  # type: ignore[arg-type]
        min=tuple(cfg.as_float(f"min_chn_{i}") for i in four),  # type: ignore[arg-type]
        var_reci=tuple(cfg.as_float(f"var_reci_chn_{i}", 1.0) for i in four),  # type: ignore[arg-type]
        out_dtype=dtype, out_format=layout,
    )  # fmt: skip
    info.src_dims.append(fmt.desc_shape(n, src_h, src_w))
    return info


def _check_parity(cfg: AippConfig, fmt: ImageFormat, prefix: str, h: int, w: int) -> None:
    """Chroma blocks stay whole: even h where rows share chroma, even w where columns do."""
    bh, bw = fmt.chroma_block
    if h % bh or w % bw:
        which = "h" if h % bh else "w"
        raise cfg.op_error(
            f"{prefix}_{which}",
            f"{prefix}_h[{h}] and {prefix}_w[{w}] must be even for {fmt.name}"
            if bh == 2
            else f"{prefix}_w[{w}] must be even for {fmt.name}",
        )


def _check_output(
    cfg: AippConfig,
    size: tuple[int, int],
    pads: tuple[int, ...],
    model_hw: tuple[int, int],
    *,
    crop: bool,
    soc_version: str,
) -> None:
    """The AIPP output (crop or source size plus padding) is the model input's H x W."""
    left, right, top, bottom = pads
    out_h, out_w = size[0] + top + bottom, size[1] + left + right
    if (out_h, out_w) != model_hw:
        what = "crop_size" if crop else "src_image_size"
        axis = "h" if out_h != model_hw[0] else "w"
        padded = (
            f" + {'top' if axis == 'h' else 'left'}/{'bottom' if axis == 'h' else 'right'} padding"
            if cfg.flag("padding")
            else ""
        )
        raise cfg.op_error(
            f"{what}_{axis}",
            f"{what}_{axis}[{size[0] if axis == 'h' else size[1]}]{padded} is "
            f"{out_h if axis == 'h' else out_w}, but the model input's {axis.upper()} is "
            f"{model_hw[0] if axis == 'h' else model_hw[1]} (the AIPP output is {out_h}x{out_w})",
        )
    limit = 1080 if soc_version.startswith(_NARROW_PADDING_SOCS) else 4096
    if cfg.flag("padding") and out_w > limit:
        raise cfg.op_error(
            "right_padding_size", f"after padding the AIPP output W[{out_w}] must be <= {limit} on {soc_version}"
        )
