"""The C++ .om loader (csrc/model/om_parser.cpp) through aclmdlQuerySizeFromMem / aclmdlGetDescFromMem: it
accepts every file the compiler writes (single-operator models of `atc --singleop` too), and rejects
truncated, corrupted, lying, foreign (Huawei ATC) files with the real error codes and a message, never
crashing; on single-word corruptions it agrees with the Python reference reader (om_reader.py) file for file."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
from model_helpers import address, compile_models

import ascendcl as C
from acl_helpers import ROOT, run_unit_check
from ascendsim.compiler import om_format as F
from ascendsim.compiler.om_reader import OmFormatError, parse_om
from ascendsim.compiler.singleop import compile_single_ops

DATA_SIZE_INVALID = 145006  # ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID
PARSE_MODEL = 100013  # ACL_ERROR_PARSE_MODEL


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return compile_models(tmp_path_factory.mktemp("om"))


# A single-operator model (docs/om-format.md §10) with everything §10 adds: dynamic dims with ranges, the
# unknown-rank shape, a constant input, and attributes of every ATC type (bool, data type, list of int lists).
SINGLE_OP = {"op": "Add", "name": "checked",
             "input_desc": [{"format": "ND", "type": "float32", "shape": [-1, 4], "shape_range": [[1, 16]]},
                            {"format": "ND", "type": "float32", "shape": [4], "is_const": True,
                             "const_value": [1, 2, 3, 4]}],
             "output_desc": [{"format": "ND", "type": "float32", "shape": [-2]}],
             "attr": [{"name": "b", "type": "bool", "value": True}, {"name": "i", "type": "int", "value": -7},
                      {"name": "dt", "type": "data_type", "value": 1},
                      {"name": "lb", "type": "list_bool", "value": [False, True]},
                      {"name": "f", "type": "float", "value": 0.1}, {"name": "lf", "type": "list_float", "value": []},
                      {"name": "ls", "type": "list_string", "value": ["a", ""]},
                      {"name": "lli", "type": "list_list_int", "value": [[1, 2], [], [3]]}]}


@pytest.fixture(scope="module")
def single_op(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    directory = tmp_path_factory.mktemp("single_op")
    (directory / "ops.json").write_text(json.dumps([SINGLE_OP]))
    (path,) = compile_single_ops(str(directory / "ops.json"), str(directory), "Ascend910B1")
    return path.read_bytes()


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


def test_corrupted_words_agree_with_reference_reader(models: dict[str, Path], single_op: bytes) -> None:
    """Every word outside the weights (a deterministic sample for the suite's time) set to a hostile or
    random value: the C++ loader accepts exactly the files the Python reader accepts, and never crashes."""
    hostile = [0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFF, 0x100, 13, 7, 2, 1, 0]
    rng = np.random.default_rng(1)
    for kind, image in [*((k, models[k].read_bytes()) for k in ("batch", "aipp", "dims")), ("single_op", single_op)]:
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
    assert "Ascend310P3" in message and C.aclrtGetSocName() in message
    assert f"--soc_version={C.aclrtGetSocName()}" in message and "ASCENDSIM_SOC_NAME=Ascend310P3" in message
    model_id, ret = C.aclmdlLoadFromFile(str(models["static"]))
    assert ret == 0, C.aclGetRecentErrMsg()
    assert C.aclmdlUnload(model_id) == 0


def test_single_operator_model_decoded(single_op: bytes, tmp_path: Path) -> None:
    """tests/c/om_parser_check.cpp: what parse_om hands the runtime (NodeDef, TensorDef, IoDesc) for SINGLE_OP."""
    (tmp_path / "checked.om").write_bytes(single_op)
    sources = [ROOT / "csrc" / "model" / "om_parser.cpp", ROOT / "csrc" / "model" / "plan_overlap.cpp",
               ROOT / "csrc" / "core" / "error.cpp", ROOT / "csrc" / "core" / "log.cpp",
               ROOT / "csrc" / "core" / "log_file.cpp"]
    result = run_unit_check(tmp_path, "om_parser_check", sources,
                            env={"OM_PARSER_CHECK_FILE": str(tmp_path / "checked.om")})
    assert result.returncode == 0 and result.stdout.strip() == "OK", result.stdout + result.stderr


def _patched(image: bytes, offset: int, fmt: str, value: int) -> bytes:
    raw = bytearray(image)
    struct.pack_into(fmt, raw, offset, value)
    return bytes(raw)


def _attr_record(image: bytes, name: str) -> int:
    """File offset of the ATTR record named `name` (the first node's attributes of plan 0)."""
    start = 256 + 8 + 24 * 4
    head = F.MODEL_DEF_HEADER.unpack_from(image, start)
    str_offset, str_size, attr_offset, attr_size = head[7:11]
    strings = image[start + str_offset:start + str_offset + str_size]
    for r in range(start + attr_offset, start + attr_offset + attr_size - F.ATTR.size + 1, 8):
        name_id = struct.unpack_from("<I", image, r)[0]
        if name_id < len(strings) and strings[name_id:].split(b"\0", 1)[0] == name.encode():
            return r
    raise KeyError(name)


def test_single_operator_model_accepted(single_op: bytes) -> None:
    om = parse_om(single_op)
    assert om.model["single_op"] and om.model["format_version"] == f"1.{F.STATIC_FORMAT_MINOR}"
    assert om.plans[0]["nodes"][0]["attrs"] == {"b": True, "i": -7, "dt": 1, "lb": [False, True],
                                                "f": float(np.float32(0.1)), "lf": [], "ls": ["a", ""],
                                                "lli": [[1, 2], [], [3]]}
    assert C.aclmdlQuerySizeFromMem(address(single_op), len(single_op)) == (0, 512, 0)
    desc = C.aclmdlCreateDesc()
    assert C.aclmdlGetDescFromMem(desc, address(single_op), len(single_op)) == 0
    assert C.aclmdlGetNumInputs(desc) == 1  # the constant input is a weight, not a model input
    assert C.aclmdlGetInputDims(desc, 0) == ({"name": "__input0", "dimCount": 2, "dims": [-1, 4]}, 0)
    assert C.aclmdlGetOutputDims(desc, 0) == ({"name": "__output0", "dimCount": 1, "dims": [-2]}, 0)
    assert C.aclmdlDestroyDesc(desc) == 0


def _payload(image: bytes, record: int) -> int:
    """File offset of what an ATTR record's value points to in the attribute blob."""
    def_start = 256 + 8 + 24 * 4
    return def_start + F.MODEL_DEF_HEADER.unpack_from(image, def_start)[9] + struct.unpack_from("<Q", image,
                                                                                                record + 16)[0]


def test_single_operator_rules(models: dict[str, Path], single_op: bytes) -> None:
    """§10.6 and the attribute rules of §9, each broken once: both loaders refuse, with ACL_ERROR_PARSE_MODEL."""
    def_start = 256 + 8 + 24 * 4
    plan = def_start + F.MODEL_DEF_HEADER.unpack_from(single_op, def_start)[6]
    node = def_start + F.PLAN.unpack_from(single_op, plan)[4]
    static = models["static"].read_bytes()
    lb, dt, lli, b = (_attr_record(single_op, n) for n in ("lb", "dt", "lli", "b"))
    broken = {
        "flag in a 1.1 file": _patched(single_op, def_start + 6, "<H", 1),
        "flag cleared: dynamic dims, INT_LISTS and aux are errors": _patched(single_op, def_start + 12, "<I", 0),
        "flag on a network": _patched(static, def_start + 12, "<I", F.FLAG_SINGLE_OP),
        "node domain not cann": _patched(single_op, node + 8, "<I", 0),
        "bool 2": _patched(single_op, b + 16, "<Q", 2),
        "list of bools with a 5": _patched(single_op, _payload(single_op, lb), "<q", 5),
        "data type 27": _patched(single_op, dt + 16, "<Q", 27),
        "INTS aux 2": _patched(single_op, lb + 12, "<I", 2),
        "FLOATS aux 1": _patched(single_op, lb + 4, "<I", int(F.AttrType.FLOATS)),
        "INT_LISTS negative length": _patched(single_op, _payload(single_op, lli), "<q", -1),
        "INT_LISTS length past the blob": _patched(single_op, _payload(single_op, lli), "<q", 1 << 40),
        "attribute type 9": _patched(single_op, lli + 4, "<I", 9),
    }
    for what, image in broken.items():
        assert c_parse(image) == PARSE_MODEL, what
        assert not py_accepts(image), what


def _concat_model(tmp_path: Path) -> bytes:
    """x -> Relu -> a, x -> Sigmoid -> b, Concat(a, b) -> c -> Tanh -> y: a, b and c are live together at the Concat."""
    from onnx import TensorProto, helper

    import ascendsim

    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Sigmoid", ["x"], ["b"]),
             helper.make_node("Concat", ["a", "b"], ["c"], axis=1), helper.make_node("Tanh", ["c"], ["y"])]
    graph = helper.make_graph(nodes, "cat", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 8, 8])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    ascendsim.compile(model, tmp_path / "cat", soc_version="Ascend910B1", disabled_passes=("elementwise_fusion",))
    return (tmp_path / "cat.om").read_bytes()


def test_overlapping_live_tensors_refused(tmp_path: Path) -> None:
    """A Concat input moved into its output's bytes (aligned and in bounds, so the per-tensor checks pass) reached
    memcpy with overlapping arguments (issue 13, item 4); the loader now proves that tensors live at once do not
    share bytes unless one is a view or an in-place result of the other."""
    image = _concat_model(tmp_path)
    tensors = {t["name"]: t for t in parse_om(image).plans[0]["tensors"]}
    assert c_parse(image) == 0
    b, c = tensors["b"], tensors["c"]
    record = struct.pack("<QQ4q", b["offset"], b["size"], *b["dims"])
    at = image.index(record)
    assert image.count(record) == 1
    moved = _patched(image, at, "<Q", c["offset"] + 512)
    _work, _weight, ret = C.aclmdlQuerySizeFromMem(address(moved), len(moved))
    message = C.aclGetRecentErrMsg()
    assert ret == PARSE_MODEL, (ret, message)
    assert "'b'" in message and "'c'" in message and "overlap while both are live" in message, message
