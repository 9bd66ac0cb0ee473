"""The C++ .om loader (csrc/model/om_parser.cpp) through aclmdlQuerySizeFromMem / aclmdlGetDescFromMem: it
accepts every file the compiler writes, and rejects truncated, corrupted, lying, foreign (Huawei ATC) files
with the real error codes and a message, never crashing; on single-word corruptions it agrees with the
Python reference reader (om_reader.py) file for file."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from model_helpers import address, compile_models

import ascendcl as C
from ascendsim.compiler import om_format as F
from ascendsim.compiler.om_reader import OmFormatError, parse_om

DATA_SIZE_INVALID = 145006  # ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID
PARSE_MODEL = 100013  # ACL_ERROR_PARSE_MODEL


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return compile_models(tmp_path_factory.mktemp("om"))


def c_parse(image: bytes) -> int:
    """parse_om via aclmdlQuerySizeFromMem (it validates the whole file); the error code."""
    if not image:
        image = b"\0"  # a zero size is refused before parsing; one byte reaches the parser
    _work, _weight, ret = C.aclmdlQuerySizeFromMem(address(image), len(image))
    message = C.aclGetRecentErrMsg()
    assert (ret == 0) == (message == ""), (ret, message)
    return ret


def py_accepts(image: bytes) -> bool:
    try:
        parse_om(image, verify_checksum=False)
    except OmFormatError:
        return False
    return True


@pytest.mark.parametrize("kind", ["static", "batch", "hw", "dims", "aipp", "other_soc"])
def test_compiled_files_accepted_with_sizes(models: dict[str, Path], kind: str) -> None:
    image = models[kind].read_bytes()
    om = parse_om(image)
    work, weight, ret = C.aclmdlQuerySize(str(models[kind]))
    assert ret == 0, C.aclGetRecentErrMsg()
    assert work == max(p["feature_map_size"] for p in om.plans)
    assert weight == om.model["weight_size"] == om.partitions["WEIGHTS_DATA"][1]
    assert C.aclmdlQuerySizeFromMem(address(image), len(image)) == (work, weight, 0)


def test_every_truncation_rejected(models: dict[str, Path]) -> None:
    image = models["aipp"].read_bytes()
    step = max(1, len(image) // 500)
    for cut in [*range(0, len(image), step), len(image) - 1]:
        assert c_parse(image[:cut]) == DATA_SIZE_INVALID, cut  # the payload length no longer matches
    # truncated with the header "repaired" to the new length: the table / section checks must catch it
    for cut in range(256, len(image), step):
        raw = bytearray(image[:cut])
        struct.pack_into("<I", raw, 76, cut - 256)
        struct.pack_into("<Q", raw, 184, cut - 256)
        assert c_parse(bytes(raw)) in (DATA_SIZE_INVALID, PARSE_MODEL), cut


def test_corrupted_words_agree_with_reference_reader(models: dict[str, Path]) -> None:
    """Every word outside the weights (a deterministic sample for the suite's time) set to a hostile or
    random value: the C++ loader accepts exactly the files the Python reader accepts, and never crashes."""
    hostile = [0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFF, 0x100, 13, 7, 1, 0]
    rng = np.random.default_rng(1)
    for kind in ("batch", "aipp", "dims"):
        image = models[kind].read_bytes()
        weights_start, weights_size = parse_om(image).partitions["WEIGHTS_DATA"]
        offsets = [o for o in range(256, len(image) - 4, 4) if not weights_start <= o < weights_start + weights_size]
        for i, offset in enumerate(offsets[::2] if len(offsets) > 3000 else offsets):
            raw = bytearray(image)
            value = hostile[i % len(hostile)] if i % 3 else int(rng.integers(0, 1 << 32))
            struct.pack_into("<I", raw, offset, value)
            corrupted = bytes(raw)
            ret = c_parse(corrupted)
            assert ret in (0, DATA_SIZE_INVALID, PARSE_MODEL)
            assert (ret == 0) == py_accepts(corrupted), (kind, offset, value, ret)


def test_flipped_bytes_never_crash(models: dict[str, Path]) -> None:
    image = models["dims"].read_bytes()
    rng = np.random.default_rng(2)
    for _ in range(1500):
        raw = bytearray(image)
        for offset in rng.integers(256, len(image), size=int(rng.integers(1, 4))):
            raw[int(offset)] ^= 1 << int(rng.integers(0, 8))
        corrupted = bytes(raw)
        assert (c_parse(corrupted) == 0) == py_accepts(corrupted)


def test_wrong_magic_and_lying_sizes(models: dict[str, Path]) -> None:
    image = models["static"].read_bytes()
    raw = bytearray(image)
    raw[0:4] = b"XMOD"
    bad = bytes(raw)
    assert C.aclmdlQuerySizeFromMem(address(bad), len(bad))[2] == DATA_SIZE_INVALID
    assert "bad magic" in C.aclGetRecentErrMsg()
    for offset, fmt, value in [(4, "<I", 255),  # headsize
                               (184, "<Q", len(image) - 255), (184, "<Q", 1 << 63),  # model_length
                               (256, "<I", 5), (256, "<I", 0xFFFFFFFF),  # partition count
                               (264 + 16, "<Q", 1 << 62), (264 + 24 + 8, "<Q", 8)]:  # partition size / offset
        raw = bytearray(image)
        struct.pack_into(fmt, raw, offset, value)
        assert c_parse(bytes(raw)) == DATA_SIZE_INVALID, (offset, value)
    raw = bytearray(image)
    struct.pack_into("<Q", raw, 184, 0)  # falls back to `length`, which matches, but the 32-bit table is refused
    assert c_parse(bytes(raw)) == DATA_SIZE_INVALID
    raw = bytearray(image)
    raw[80] = 1  # encrypted
    assert c_parse(bytes(raw)) == DATA_SIZE_INVALID
    assert c_parse(image + b"\0") == DATA_SIZE_INVALID  # a trailing byte: the payload length lies
    # MODEL_DEF content lies: a tensor count far beyond the partition
    start = 256 + 8 + 24 * 4
    plan_offset = struct.unpack_from("<I", image, start + 20)[0]
    raw = bytearray(image)
    struct.pack_into("<I", raw, start + plan_offset + 8, 0x7FFFFFFF)
    bad = bytes(raw)
    assert C.aclmdlQuerySizeFromMem(address(bad), len(bad))[2] == PARSE_MODEL
    assert "tensor_count 2147483647" in C.aclGetRecentErrMsg()


def _huawei_like_om() -> bytes:
    """GE's header and 64-bit table with Huawei's partitions (protobuf MODEL_DEF, TBE kernels, ...)."""
    partitions = [(0, b"\x0a\x05model\x12\x03abc" * 10), (1, b"\0" * 64), (2, b"\x0a\x02\x08\x01" * 8),
                  (3, b"\x7fELF" + b"\0" * 60), (8, struct.pack("<II", 0, 4) + struct.pack("<I", 0))]
    table = struct.pack("<I4x", len(partitions))
    cursor = 0
    for kind, data in partitions:
        table += struct.pack("<I4xQQ", kind, cursor, len(data))
        cursor += len(data)
    payload = table + b"".join(data for _, data in partitions)
    header = bytearray(256)
    struct.pack_into("<III", header, 0, F.MODEL_FILE_MAGIC, 256, 0x20000000)
    struct.pack_into("<I", header, 76, len(payload))
    header[82] = 1
    header[84:84 + 6] = b"resnet"
    struct.pack_into("<I", header, 156, 1)
    header[160:160 + 10] = b"Ascend310P"
    struct.pack_into("<Q", header, 184, len(payload))
    return bytes(header) + payload


def test_huawei_om_refused_with_a_rebuild_hint(tmp_path: Path) -> None:
    image = _huawei_like_om()
    _, _, ret = C.aclmdlQuerySizeFromMem(address(image), len(image))
    assert ret == PARSE_MODEL
    message = C.aclGetRecentErrMsg()
    assert "not written by ascendsim" in message and "atc" in message
    path = tmp_path / "huawei.om"
    path.write_bytes(image)
    desc = C.aclmdlCreateDesc()
    assert C.aclmdlGetDescFromFile(desc, str(path)) == PARSE_MODEL
    assert "rebuild" in C.aclGetRecentErrMsg()
    assert C.aclmdlGetNumInputs(desc) == 0
    assert C.aclmdlDestroyDesc(desc) == 0


def test_other_soc_can_be_described(models: dict[str, Path]) -> None:
    """Describing and sizing need no SoC match (loading does: the executor passes the device's SoC)."""
    desc = C.aclmdlCreateDesc()
    assert C.aclmdlGetDescFromFile(desc, str(models["other_soc"])) == 0
    assert C.aclmdlGetNumInputs(desc) == 1
    assert C.aclmdlDestroyDesc(desc) == 0


def test_query_size_errors(tmp_path: Path) -> None:
    assert C.aclmdlQuerySize(str(tmp_path / "missing.om"))[2] == 145002  # ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID
    assert "missing.om" in C.aclGetRecentErrMsg()
    assert C.aclmdlQuerySize(str(tmp_path))[2] == 145002  # a directory
    C.aclGetRecentErrMsg()
    (tmp_path / "empty.om").write_bytes(b"")
    assert C.aclmdlQuerySize(str(tmp_path / "empty.om"))[2] == DATA_SIZE_INVALID
    assert "shorter than the 256-byte" in C.aclGetRecentErrMsg()
    assert C.aclmdlQuerySizeFromMem(0, 100)[2] == C.ACL_ERROR_INVALID_PARAM
    image = b"\0" * 300
    assert C.aclmdlQuerySizeFromMem(address(image), 0)[2] == C.ACL_ERROR_INVALID_PARAM
    assert "modelSize is 0" in C.aclGetRecentErrMsg()


def _append_tlv(image: bytes, tlv: bytes) -> bytes:
    """The file with bytes appended to MODEL_INOUT_INFO (the last partition) and the sizes updated."""
    raw = bytearray(image + tlv)
    payload = len(raw) - 256
    struct.pack_into("<I", raw, 76, payload)
    struct.pack_into("<Q", raw, 184, payload)
    entry = 256 + 8 + 24 * 3
    struct.pack_into("<Q", raw, entry + 16, struct.unpack_from("<Q", raw, entry + 16)[0] + len(tlv))
    return bytes(raw)


def test_tlv_blocks(models: dict[str, Path]) -> None:
    image = models["static"].read_bytes()
    cases = [
        (struct.pack("<II", 77, 5) + b"abcde", 0),  # unknown types are skipped
        (struct.pack("<II", 5, 0), 0),  # an empty MODEL_DYNAMIC_OUTPUT_SHAPE
        (struct.pack("<II", 5, 2) + b"\1\0", PARSE_MODEL),  # too short for its count
        (struct.pack("<II", 2, 3) + b"\1\0\0", PARSE_MODEL),
        (struct.pack("<II", 6, 8) + struct.pack("<II", 1, 99), PARSE_MODEL),  # a name past the value
        (struct.pack("<II", 6, 9) + struct.pack("<II", 1, 1) + b"\xff", PARSE_MODEL),  # not UTF-8
        (struct.pack("<II", 77, 100), PARSE_MODEL),  # a value past the partition
        (struct.pack("<I", 77), PARSE_MODEL),  # a truncated TLV header
        (struct.pack("<II", 0, 4) + struct.pack("<I", 0), PARSE_MODEL),  # a second INPUT_DESC with 0 inputs
    ]
    for tlv, expected in cases:
        grown = _append_tlv(image, tlv)
        assert c_parse(grown) == expected, tlv
        assert py_accepts(grown) == (expected == 0), tlv


def test_other_soc_refused_at_load(models: dict[str, Path], device: int) -> None:
    """parse_om compares the model's SoC family with the device's (Ascend910B1 runs Ascend910B models)."""
    model_id, ret = C.aclmdlLoadFromFile(str(models["other_soc"]))
    assert ret == 545001  # ACL_ERROR_GE_LOAD_MODEL (inferred; see om_parser.cpp)
    message = C.aclGetRecentErrMsg()
    assert "Ascend310P3" in message and C.aclrtGetSocName() in message and "--soc_version" in message
    model_id, ret = C.aclmdlLoadFromFile(str(models["static"]))
    assert ret == 0, C.aclGetRecentErrMsg()
    assert C.aclmdlUnload(model_id) == 0
