"""Audit of issue 3 point 10 (the .om file): GE's 256-byte header checked field by field at the offsets of
ascendcl-c-api.md §9 with struct.unpack_from; the reader (the reference for the C++ loader's rules) rejects
every truncated or corrupted file with OmFormatError and nothing else; docs/om-format.md lists the rules a
loader needs; 100 MB of weights written without a second copy in memory."""

from __future__ import annotations

import hashlib
import re
import struct
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from backend_models import MODELS

from ascendsim.compiler import om_format as F
from ascendsim.compiler.build import compile
from ascendsim.compiler.ir import DType, Graph
from ascendsim.compiler.memory import plan_memory, plan_weights
from ascendsim.compiler.om_reader import OmFormatError, parse_om
from ascendsim.compiler.om_writer import OmModel, OmPlan, write_om
from ascendsim.compiler.streams import assign_streams

DOCS = Path(__file__).resolve().parents[2] / "docs" / "om-format.md"
AIPP_CFG = """aipp_op {
  aipp_mode: static
  input_format: RGB888_U8
  src_image_size_w: 32
  src_image_size_h: 32
  mean_chn_0: 10
  var_reci_chn_0: 0.5
}
"""


@pytest.fixture(scope="module")
def gear_om(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A file with every partition and TLV type in use: two gears, AIPP, several streams and events."""
    tmp = tmp_path_factory.mktemp("om")
    (tmp / "aipp.cfg").write_text(AIPP_CFG)
    result = compile(MODELS["resnet"](blocks=2, channels=4, batch="N").SerializeToString(), tmp / "gears", soc_version="Ascend310P3",
                     input_shape="input:-1,3,32,32", dynamic_batch_size="1,2", insert_op_conf=str(tmp / "aipp.cfg"))
    assert result.plans[0].streams.stream_count > 1 and result.plans[0].streams.events
    return result.output.read_bytes()  # type: ignore[union-attr]


def test_ge_header_field_offsets(tmp_path: Path) -> None:
    """Every field of ModelFileHeader at its §9 offset, read independently of om_format.HEADER."""
    model = tmp_path / "a_model_name_longer_than_31_bytes_x.onnx"
    model.write_bytes(MODELS["mobilenet"]().SerializeToString())
    result = compile(str(model), tmp_path / "out", soc_version="Ascend910B")
    raw = result.output.read_bytes()  # type: ignore[union-attr]
    payload = len(raw) - 256

    def u32(off: int) -> int:
        return struct.unpack_from("<I", raw, off)[0]

    def u8(off: int) -> int:
        return struct.unpack_from("<B", raw, off)[0]

    assert u32(0) == 0x444F4D49 and raw[0:4] == b"IMOD"
    assert u32(4) == 256
    assert u32(8) == 0x20000000
    assert raw[12:44] == hashlib.sha256(raw[256:]).digest() and raw[44:76] == b"\0" * 32
    assert u32(76) == payload  # < 2^32
    assert u8(80) == 0  # is_encrypt
    assert u8(81) == 0  # is_checksum: 0 = CHECK, the checksum is valid
    assert u8(82) == 1  # modeltype standard
    assert u8(83) == 0  # genmode offline
    name = struct.unpack_from("32s", raw, 84)[0]
    assert name == b"a_model_name_longer_than_31_byt\0"  # truncated, NUL kept
    assert u32(116) == 0
    assert struct.unpack_from("32s", raw, 120)[0].rstrip(b"\0") == b"ascendsim"
    assert u32(152) == 0
    assert u32(156) == 1  # model_num
    assert struct.unpack_from("20s", raw, 160)[0] == b"Ascend910B".ljust(20, b"\0")
    assert u8(180) == 0 and raw[181:184] == b"\0\0\0"
    assert struct.unpack_from("<Q", raw, 184)[0] == payload
    assert u8(192) == 0 and u8(193) == 0
    assert raw[194:256] == b"\0" * 62
    # the 64-bit partition table right after the header, as §9 describes it
    (num,) = struct.unpack_from("<I", raw, 256)
    assert num == 4 and raw[260:264] == b"\0" * 4
    end_of_table = 256 + 8 + 24 * num
    cursor = 0
    for i, kind in enumerate((0, 1, 2, 8)):
        t, pad, off, size = struct.unpack_from("<IIQQ", raw, 264 + 24 * i)
        assert (t, pad, off) == (kind, 0, cursor)
        cursor += size
    assert end_of_table + cursor == len(raw)


def _rechecksum(raw: bytearray) -> bytes:
    raw[12:44] = hashlib.sha256(bytes(raw[256:])).digest()
    return bytes(raw)


def _parse_strict(raw: bytes) -> None:
    """parse_om either accepts the file or raises OmFormatError; anything else is a reader bug."""
    try:
        parse_om(raw)
    except OmFormatError as error:
        assert not str(error).startswith("malformed file"), f"no explicit check caught it: {error}"


def test_every_truncation_is_rejected_cleanly(gear_om: bytes) -> None:
    step = max(1, len(gear_om) // 400)
    for cut in range(0, len(gear_om), step):
        with pytest.raises(OmFormatError):
            parse_om(gear_om[:cut])
    # truncated and the header "repaired" to the new length: the deeper checks must catch it
    for cut in range(256, len(gear_om), step):
        raw = bytearray(gear_om[:cut])
        struct.pack_into("<I", raw, 76, cut - 256)
        struct.pack_into("<Q", raw, 184, cut - 256)
        with pytest.raises(OmFormatError):
            parse_om(_rechecksum(raw))


def test_corrupted_words_never_crash_the_reader(gear_om: bytes) -> None:
    """Every 4-byte word of the file after the header (weights aside) set to a hostile or random value, with
    a valid checksum: the
    reader either accepts the file or says which check failed; never another exception."""
    hostile = [0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFF, 0x100, 13, 7, 1]
    rng = np.random.default_rng(0)
    weights_start, weights_size = parse_om(gear_om).partitions["WEIGHTS_DATA"]  # raw bytes: nothing to check
    for offset in range(256, len(gear_om) - 4, 4):
        if weights_start <= offset < weights_start + weights_size:
            continue
        word = offset // 4
        value = hostile[word // 2 % len(hostile)] if word % 2 else int(rng.integers(0, 1 << 32))
        raw = bytearray(gear_om)
        struct.pack_into("<I", raw, offset, value)
        _parse_strict(_rechecksum(raw))


def test_reader_checks_cross_references(gear_om: bytes) -> None:
    """Semantic corruptions a bounds check alone does not catch."""
    om = parse_om(gear_om)
    start, _ = om.partitions["MODEL_DEF"]
    head = F.MODEL_DEF_HEADER.unpack_from(gear_om, start)
    plan_offset = head[6]
    tensor_count, tensor_offset = F.PLAN.unpack_from(gear_om, start + plan_offset)[1:3]
    node_count, node_offset = F.PLAN.unpack_from(gear_om, start + plan_offset)[3:5]
    first_node = start + node_offset
    io_offset = F.NODE.unpack_from(gear_om, first_node)[6]
    n_in = F.NODE.unpack_from(gear_om, first_node)[4]
    tensors = om.plans[0]["tensors"]
    weight_id = next(i for i, t in enumerate(tensors) if t["kind"] == "WEIGHT")
    input_id = next(i for i, t in enumerate(tensors) if t["kind"] == "INPUT")
    cases = {
        # a node writing into a weight or a user input
        "written": (start + io_offset + 4 * n_in, struct.pack("<I", weight_id)),
        # an INPUT tensor with an io_index beyond the model inputs
        "io_index": (start + tensor_offset + input_id * F.TENSOR.size + 20, struct.pack("<I", 99)),
        # a negative dim
        "dim": (start + tensor_offset + input_id * F.TENSOR.size + 40, struct.pack("<q", -1)),
        # the dynamic input index beyond the inputs
        "dynamic_input_index": (start + 76, struct.pack("<I", 50)),
    }
    assert node_count > 0 and tensor_count > 0
    for what, (offset, value) in cases.items():
        raw = bytearray(gear_om)
        raw[offset:offset + len(value)] = value
        with pytest.raises(OmFormatError, match=what):
            parse_om(_rechecksum(raw))


def test_docs_list_every_enum_and_loader_rule() -> None:
    text = DOCS.read_text()
    rules = text[text.index("## 9. Loader checklist"):]
    for needed in ("64-bit", "tensor_count", "node_count", "event_count", "stream_count", "plan_count",
                   "task_count", "dims", "io_index", "kind", "dtype", "format", "attr", "DICTS", "depth",
                   "TLV", "name_len", "UTF-8", "NONE", "dynamic_input_index", "flags"):
        assert re.search(re.escape(needed), rules), f"loader checklist does not mention {needed}"
    # TASK_INFO's version is the format version (1.1), as written
    assert "u16 version_minor (1)" in text


def test_100mb_of_weights_written_without_a_second_copy(tmp_path: Path) -> None:
    g = Graph("big")
    x = g.value("x", DType.FLOAT, (1, 1024))
    g.inputs.append(x)
    w = g.constant("w", np.ones((1024, 25600), np.float32))  # 100 MiB
    y = g.add_node("MatMul", [x, w]).outputs[0]
    y.dtype, y.shape = DType.FLOAT, (1, 25600)
    g.outputs.append(y)
    streams = assign_streams(g)
    model = OmModel("big", "Ascend910B", [OmPlan(g, streams, plan_memory(g, streams))], plan_weights(g))
    tracemalloc.start()
    try:
        write_om(tmp_path / "big.om", model)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20, f"writing 100 MiB of weights allocated {peak >> 20} MiB"
    assert (tmp_path / "big.om").stat().st_size > 100 << 20
