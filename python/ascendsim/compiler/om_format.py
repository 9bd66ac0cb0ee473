"""The `.om` file layout: constants, enums and fixed-size record formats shared by om_writer and om_reader.

docs/om-format.md is the contract with the C++ loader; every struct format string below is documented there
field by field. All integers are little-endian; records are fixed size so the loader can read them with plain
`memcpy` into packed structs (no parsing library). Layout of a file:

    ModelFileHeader (256 B, GE)                     HEADER
    partition table (8 + 24*n B, GE 64-bit form)    TABLE
    MODEL_DEF        "ASMD": plans, tensors, nodes, attributes, strings (zero-padded so that the next
                     partition starts at a file offset that is a multiple of 512)
    WEIGHTS_DATA     raw constants, each at a 512-aligned offset
    TASK_INFO        "ASTK": per plan, the ordered task list (kernels, event records and waits)
    MODEL_INOUT_INFO GE's TLV blocks (input/output descriptions, dynamic gears)
"""

from __future__ import annotations

import enum
import struct

# ---- GE ModelFileHeader (ascendcl-c-api.md §9) --------------------------------------------------------------
MODEL_FILE_MAGIC = 0x444F4D49
MODEL_FILE_HEAD_LEN = 256
MODEL_VERSION = 0x20000000
HEADER = struct.Struct("<III64sIBBBB32sI32sII20sB3sQBB62s")
assert HEADER.size == MODEL_FILE_HEAD_LEN
CHECKSUM_UNCHECK = 1  # is_checksum: 0 = CHECK (checksum[0:32] holds SHA-256 of the payload), 1 = UNCHECK
MODEL_TYPE_STANDARD = 1

# ---- partition table (64-bit form, selected by model_length != 0) -------------------------------------------
TABLE_HEAD = struct.Struct("<I4x")
TABLE_ENTRY = struct.Struct("<I4xQQ")
PARTITION_ALIGN = 512  # WEIGHTS_DATA starts at a file offset that is a multiple of this


class Partition(enum.IntEnum):
    MODEL_DEF = 0
    WEIGHTS_DATA = 1
    TASK_INFO = 2
    MODEL_INOUT_INFO = 8


PARTITION_ORDER = (Partition.MODEL_DEF, Partition.WEIGHTS_DATA, Partition.TASK_INFO, Partition.MODEL_INOUT_INFO)

# ---- MODEL_DEF ("ASMD") -----------------------------------------------------------------------------------
MODEL_DEF_MAGIC = b"ASMD"
FORMAT_MAJOR = 1
FORMAT_MINOR = 5  # 1.1: MODEL_AIPP_INFO TLV, mbatch data INT32; 1.2: single-operator models; 1.3: the
# MODEL_AIPP_IMAGE_DIMS TLV (docs/om-format.md §8); 1.4: dynamic-shape models (FLAG_DYNAMIC_SHAPE); 1.5: control
# flow (FLAG_CONTROL_FLOW, the subgraph table)
DYNAMIC_FORMAT_MINOR = 4  # a dynamic-shape model without control flow
STATIC_FORMAT_MINOR = 3  # what every other file records: the writer writes the lowest minor a file needs
# (the last two u32 before the reserved bytes: subgraph_count, subgraph_table_offset; 0 without control flow)
MODEL_DEF_HEADER = struct.Struct("<4sHHIIIIIIIIQIIIIIIIIII8x")
PLAN = struct.Struct("<QIIIIIIIII20x")
SUBGRAPH = struct.Struct("<QIIIIIIIIIII12x")  # a PLAN record with its own input_count, output_count at 44, 48
TENSOR = struct.Struct("<IIIIIIQQ8q")
NODE = struct.Struct("<IIIIIIIIIIII")
ATTR = struct.Struct("<IIIIQ")
NO_TENSOR = 0xFFFFFFFF  # an absent optional input, or a model input without a tensor
MAX_RANK = 8
MAX_BYTES = (1 << 63) - 1  # of a tensor, a region or an offset: the runtime reads sizes as signed 64-bit
FLAG_DYNAMIC_GEARS = 1
FLAG_SINGLE_OP = 2  # a single-operator model (atc --singleop, docs/om-format.md §10)
FLAG_DYNAMIC_SHAPE = 4  # (1.4) a dynamic-shape model: run by the v2 runtime, shapes inferred per execution
FLAG_CONTROL_FLOW = 8  # (1.5) a dynamic-shape model with If/Loop subgraphs (the subgraph table, §12)
MAX_SUBGRAPHS = 1024
CANN_DOMAIN = "cann"  # the node domain of a single-operator model: a CANN operator with CANN attributes
MAX_PLANS = 100  # ATC allows at most 100 gears


class TensorKind(enum.IntEnum):
    FEATURE_MAP = 0  # offset into the plan's feature-map arena
    WEIGHT = 1  # offset into WEIGHTS_DATA
    INPUT = 2  # the user's input buffer number io_index (bound at execute time)
    OUTPUT = 3  # the user's output buffer number io_index


class AttrType(enum.IntEnum):
    INT = 0  # value: int64
    FLOAT = 1  # value: float64 (bit pattern in the u64)
    STRING = 2  # value: string id
    INTS = 3  # value: blob offset of int64[count]
    FLOATS = 4  # value: blob offset of float64[count]
    STRINGS = 5  # value: blob offset of uint32 string ids[count]
    TENSOR = 6  # value: blob offset of {u32 dtype, u32 rank, i64 dims[rank], raw data}; count = elements
    DICTS = 7  # value: offset of count x {u32 n, u32 pad, u64 offset of ATTR[n]}; aux 1 = one dict, not a list
    INT_LISTS = 8  # single-op models: offset of i64 len[count] then the i64 values of every list, in order


class AttrAux(enum.IntEnum):
    """The ATC attribute type an INT / INTS record holds in a single-operator model (docs/om-format.md §10.4)."""

    INT = 0
    BOOL = 1
    DATA_TYPE = 2  # INT only


class NodeFlag(enum.IntFlag):
    ROUND_OUTPUTS_FP16 = 1  # round every float32 output to float16 precision (RNE) after computing
    ROUND_INPUTS_FP16 = 2  # round every float32 input to float16 precision before computing (cube ops)
    VIEW = 4  # output aliases input 0 (same offset): no data movement needed
    SHAPE_DEPENDENT = 8  # (1.4, dynamic-shape models) an output's shape depends on the input shapes


class DynamicType(enum.IntEnum):  # GE's DynamicInputType
    FIXED = 0
    DYNAMIC_BATCH = 1
    DYNAMIC_IMAGE = 2
    DYNAMIC_DIMS = 3


class Precision(enum.IntEnum):
    FORCE_FP32 = 0
    MUST_KEEP_ORIGIN_DTYPE = 1
    FORCE_FP16 = 2
    ALLOW_FP32_TO_FP16 = 3


# ---- TASK_INFO ("ASTK") -----------------------------------------------------------------------------------
TASK_INFO_MAGIC = b"ASTK"
TASK_HEADER = struct.Struct("<4sHHII")
TASK_DIR = struct.Struct("<II")
TASK = struct.Struct("<IIII")


class TaskType(enum.IntEnum):
    KERNEL = 0  # run node `arg` on `stream`
    EVENT_RECORD = 1  # record event `arg` on `stream` (after node `node`)
    EVENT_WAIT = 2  # make `stream` wait for event `arg` (before node `node`)


# ---- MODEL_INOUT_INFO (GE's TLV layout) -------------------------------------------------------------------
TLV = struct.Struct("<II")
TENSOR_DESC_BASE = struct.Struct("<QiiIIII")  # ModelTensorDescBaseInfo: size, format, dt, 4 lengths


class ModelDescType(enum.IntEnum):
    MODEL_INPUT_DESC = 0
    MODEL_OUTPUT_DESC = 1
    MODEL_DYNAMIC_BATCH = 2
    MODEL_DYNAMIC_HW = 3
    MODEL_DYNAMIC_DIMS = 4
    MODEL_DYNAMIC_OUTPUT_SHAPE = 5
    MODEL_DESIGNATE_SHAPE_ORDER = 6
    MODEL_AIPP_INFO = 100  # ascendsim (format 1.1): static AIPP parameters per input; GE keeps them in op attrs
    MODEL_AIPP_IMAGE_DIMS = 101  # ascendsim (format 1.3): per AIPP record and plan the image's [N, H, W, C]


DYNAMIC_INPUT_NAME = "ascend_mbatch_shape_data"  # ACL_DYNAMIC_TENSOR_NAME
# GE's MultiBatchClonePass (the default since MULTI_BATCH_WITH_SWITCHN became opt-in): Data of DT_INT32 [n]
DYNAMIC_INPUT_DTYPE = 3  # aclDataType INT32

# MODEL_AIPP_INFO record: input_index, aipp_type, input_format, src_w, src_h; 8 u8 switches (crop, resize,
# padding, csc, rbuv_swap, ax_swap, single_line, reserved); load_start_w/h, crop_w/h; resize_w/h; padding
# left/right/top/bottom; matrix r0c0..r2c2; output_bias 0..2; input_bias 0..2; mean_chn 0..3; min_chn 0..3
# (f32); var_reci_chn 0..3 (f32); padding_value (f32); src_format, src_dtype, out_format, out_dtype, out_rank;
# then per plan i64 out_dims[out_rank].
AIPP_INFO = struct.Struct("<IIIii8B4i2i4i9i3i3i4i4f4ffIIIII")
assert AIPP_INFO.size == 200
AIPP_STATIC = 1  # aclmdlInputAippType ACL_DATA_WITH_STATIC_AIPP

# aclFormat numbering (ACL_FORMAT_*), used for tensors and io descriptions.
FORMATS = {"NCHW": 0, "NHWC": 1, "ND": 2, "NC1HWC0": 3, "FRACTAL_Z": 4, "NC1HWC0_C04": 12, "HWCN": 16,
           "NDHWC": 27, "FRACTAL_NZ": 29, "NCDHW": 30, "NDC1HWC0": 32, "FRACTAL_Z_3D": 33}
FORMAT_NAMES = {v: k for k, v in FORMATS.items()}


def format_id(name: str) -> int:
    if name not in FORMATS:
        raise ValueError(f"unknown tensor format {name!r}; known: {', '.join(FORMATS)}")
    return FORMATS[name]


def pad_to(size: int, alignment: int) -> int:
    return (alignment - size % alignment) % alignment
