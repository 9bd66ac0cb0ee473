"""Every bad-input path of single-operator execution and compilation: the AscendCL error code GE returns and
a message naming the call, never a crash or an out-of-bounds access."""

from __future__ import annotations

import numpy as np
import pytest
from op_helpers import Const, Host, OpTensors, Out, check, compile_op, execute, make_attr

import acl
import ascendcl as c
from acl_helpers import run_python

F = np.arange(6, dtype=np.float32).reshape(2, 3)


def err() -> str:
    return c.aclGetRecentErrMsg()


def compiled_add(stream: int, shape: tuple[int, ...] = (2, 3)) -> OpTensors:
    t = OpTensors([np.ones(shape, np.float32), np.ones(shape, np.float32)], [Out(np.float32, list(shape))])
    check(compile_op("Add", t.ins, t.outs, 0))
    return t


def test_unknown_op_is_not_found(stream: int) -> None:
    with OpTensors([F], [Out(np.float32, [2, 3])]) as t:
        assert execute("NoSuchOp", t.ins, t.outs, 0, stream) == c.ACL_ERROR_OP_NOT_FOUND
        message = err()
        assert "MatchOpModel" in message and "NoSuchOp" in message
        assert compile_op("NoSuchOp", t.ins, t.outs, 0) == c.ACL_ERROR_OP_NOT_FOUND
        assert "not supported by ascendsim" in err()


def test_an_uncompiled_signature_does_not_run(stream: int) -> None:
    # GE's executor never compiles: a signature no model and no aclopCompile registered is not found.
    with OpTensors([np.ones((7, 5), np.float32), np.ones((7, 5), np.float32)], [Out(np.float32, [7, 5])]) as t:
        for face in ("c", "acl"):
            assert execute("Sub", t.ins, t.outs, 0, stream, face=face) == c.ACL_ERROR_OP_NOT_FOUND
        check(compile_op("Sub", t.ins, t.outs, 0))
        check(execute("Sub", t.ins, t.outs, 0, stream))
        attr = make_attr({"unused": 1})  # other attributes: another signature
        assert execute("Sub", t.ins, t.outs, attr, stream) == c.ACL_ERROR_OP_NOT_FOUND
        c.aclopDestroyAttr(attr)
        check(c.aclrtSynchronizeStream(stream))


CHECKS = [
    ("Add", [F], [Out(np.float32, [2, 3])], {}, c.ACL_ERROR_OP_INPUT_NOT_MATCH, "takes 2 inputs, 1 given"),
    ("Add", [F, F], [Out(np.float32, [2, 3])] * 2, {}, c.ACL_ERROR_OP_OUTPUT_NOT_MATCH, "has 1 output, 2 given"),
    ("Add", [F, F.astype(np.int32)], [Out(np.float32, [2, 3])], {}, c.ACL_ERROR_OP_INPUT_NOT_MATCH, "same dtype"),
    ("Add", [F, np.ones(4, np.float32)], [Out(np.float32, [2, 3])], {}, c.ACL_ERROR_OP_INPUT_NOT_MATCH, "broadcast"),
    ("MatMul", [F, F], [Out(np.float32, [2, 3])], {}, c.ACL_ERROR_OP_INPUT_NOT_MATCH, "reduction dim"),
    ("Conv2D", [np.ones((1, 3, 4, 4), np.float32), np.ones((2, 3, 1, 1), np.float32)], [Out(np.float32, [1, 2, 4, 4])],
     {"pads": [0, 0, 0, 0]}, c.ACL_ERROR_OP_ATTR_NOT_MATCH, "strides"),
    ("TransposeD", [F], [Out(np.float32, [3, 2])], {"perm": [0, 0]}, c.ACL_ERROR_OP_ATTR_NOT_MATCH, "permutation"),
    ("Transpose", [F, np.array([1, 0], np.int64)], [Out(np.float32, [3, 2])], {}, c.ACL_ERROR_OP_INPUT_NOT_MATCH,
     "aclSetTensorConst"),
    ("Cast", [F], [Out(np.int32, [2, 3])], {}, c.ACL_ERROR_OP_ATTR_NOT_MATCH, "dst_type"),
    # ints an aclDataType cannot hold are refused, never cast to the enum (2^32 + 1 truncated was FLOAT16)
    ("Cast", [F], [Out(np.float16, [2, 3])], {"dst_type": (1 << 32) + 1}, c.ACL_ERROR_OP_ATTR_NOT_MATCH,
     "dst_type 4294967297"),
    ("Cast", [F], [Out(np.float16, [2, 3])], {"dst_type": ("dtype", 3072)}, c.ACL_ERROR_OP_ATTR_NOT_MATCH,
     "dst_type 3072"),
    ("ArgMaxD", [F], [Out(np.int64, [2])], {"dimension": 1, "dtype": ("dtype", (1 << 31) - 1)},
     c.ACL_ERROR_OP_ATTR_NOT_MATCH, "dtype 2147483647"),
    ("SoftmaxV2", [F], [Out(np.float32, [2, 3])], {"axes": [5]}, c.ACL_ERROR_OP_ATTR_NOT_MATCH, "out of range"),
    ("MaxPool", [np.ones((1, 1, 4, 4), np.float32)], [Out(np.float32, [1, 1, 2, 2])],
     {"ksize": [1, 1, 2, 2], "strides": [1, 1, 2, 2], "padding": "VALID", "data_format": "NHWC"},
     c.ACL_ERROR_FORMAT_NOT_MATCH, "NCHW"),
    ("TransData", [F], [Out(np.float32, [2, 3])], {"src_format": "ND", "dst_format": "FRACTAL_NZ"},
     c.ACL_ERROR_FORMAT_NOT_MATCH, "no transfer"),
    ("Conv2D", [np.ones((1, 3, 4, 4), np.int32), np.ones((2, 3, 1, 1), np.int32)], [Out(np.int32, [1, 2, 4, 4])],
     {"strides": [1, 1, 1, 1], "pads": [0, 0, 0, 0]}, c.ACL_ERROR_UNSUPPORTED_DATA_TYPE, "dtype"),
]


@pytest.mark.parametrize("check_case", CHECKS, ids=[f"{x[0]}-{x[5][:20]}" for x in CHECKS])
def test_operator_checks(check_case: tuple, device: int) -> None:
    op, inputs, outputs, attrs, code, words = check_case
    with OpTensors(inputs, outputs, fmt=c.ACL_FORMAT_NCHW if op in ("Conv2D", "MaxPool") else c.ACL_FORMAT_ND) as t:
        attr = make_attr(attrs)
        assert compile_op(op, t.ins, t.outs, attr) == code
        message = err()
        assert words in message and op in message
        c.aclopDestroyAttr(attr)


def test_output_descriptions_must_match(stream: int) -> None:
    with compiled_add(stream) as t, OpTensors([], [Out(np.float32, [3, 2]), Out(np.int32, [2, 3])]) as o:
        check(compile_op("Add", t.ins, o.outs[:1], 0))  # registered, but the operator makes [2, 3]
        assert execute("Add", t.ins, o.outs[:1], 0, stream, v2=False) == c.ACL_ERROR_OP_OUTPUT_NOT_MATCH
        assert "produces [2, 3]" in err()
        assert compile_op("Add", t.ins, o.outs[1:], 0) == c.ACL_SUCCESS
        assert execute("Add", t.ins, o.outs[1:], 0, stream) == c.ACL_ERROR_OP_OUTPUT_NOT_MATCH
        assert "INT32" in err().upper()


def test_buffers_are_checked_never_overrun(stream: int) -> None:
    with compiled_add(stream) as t:
        small = c.aclCreateDataBuffer(t.ins[0].ptr, 8)
        d_in, b_in = [x.desc for x in t.ins], [small, t.ins[1].buffer]
        d_out, b_out = [t.outs[0].desc], [t.outs[0].buffer]
        assert c.aclopExecuteV2("Add", 2, d_in, b_in, 1, d_out, b_out, 0, stream) == c.ACL_ERROR_INVALID_PARAM
        assert "holds 8 bytes, the tensor needs 24" in err()
        assert c.aclopExecuteV2("Add", 2, d_in, [t.ins[0].buffer] * 2, 1, d_out, [small], 0, stream) == \
            c.ACL_ERROR_INVALID_PARAM
        host = np.zeros(6, np.float32)
        host_buffer = c.aclCreateDataBuffer(host.ctypes.data, host.nbytes)
        assert c.aclopExecuteV2("Add", 2, d_in, [host_buffer, t.ins[1].buffer], 1, d_out, b_out, 0, stream) == \
            c.ACL_ERROR_INVALID_PARAM
        assert "not device memory" in err()
        freed, _ = c.aclrtMalloc(24, 0)
        check(c.aclrtFree(freed))
        freed_buffer = c.aclCreateDataBuffer(freed, 24)
        assert c.aclopExecuteV2("Add", 2, d_in, [freed_buffer, t.ins[1].buffer], 1, d_out, b_out, 0, stream) != 0
        for b in (small, host_buffer, freed_buffer):
            check(c.aclDestroyDataBuffer(b))


def test_null_arrays_and_counts(stream: int) -> None:
    with compiled_add(stream) as t:
        (d_in, d_out), (b_in, b_out) = t.descs(), t.buffers()
        for args in ([2, None, b_in, 1, d_out, b_out], [2, d_in, None, 1, d_out, b_out],
                     [2, d_in, b_in, 1, None, b_out], [2, d_in, b_in, 1, d_out, None],
                     [-1, d_in, b_in, 1, d_out, b_out], [2, d_in, b_in, -1, d_out, b_out],
                     [2, [d_in[0], 0], b_in, 1, d_out, b_out], [2, d_in, [b_in[0], 0], 1, d_out, b_out]):
            assert c.aclopExecuteV2("Add", *args, 0, stream) == c.ACL_ERROR_INVALID_PARAM
            assert c.aclopExecute("Add", *args, 0, stream) == c.ACL_ERROR_INVALID_PARAM
        assert c.aclopCompile("Add", 2, None, 1, d_out, 0, 0, 0, None) == c.ACL_ERROR_INVALID_PARAM
        assert c.aclopCompile("Add", -1, d_in, 1, d_out, 0, 0, 0, None) == c.ACL_ERROR_INVALID_PARAM


HUGE_COUNTS = """
import acl
import ascendcl as c

assert c.aclInit("") == 0 and c.aclrtSetDevice(0) == 0
d = acl.create_tensor_desc(c.ACL_FLOAT, [2, 3], c.ACL_FORMAT_ND)
b = c.aclCreateDataBuffer(0, 0)
INT_MAX = 2**31 - 1
for n_in, n_out, named in ((INT_MAX, 1, "numInputs"), (1, INT_MAX, "numOutputs"), (65537, 1, "numInputs")):
    count = n_in if named == "numInputs" else n_out
    calls = {
        "aclopExecute": lambda: c.aclopExecute("Add", n_in, [d], [b], n_out, [d], [b], 0, 0),
        "aclopExecuteV2": lambda: c.aclopExecuteV2("Add", n_in, [d], [b], n_out, [d], [b], 0, 0),
        "aclopUpdateParams": lambda: c.aclopUpdateParams("Add", n_in, [d], n_out, [d], 0),
        "aclopInferShape": lambda: c.aclopInferShape("Add", n_in, [d], [b], n_out, [d], 0),
        "aclopCompile": lambda: c.aclopCompile("Add", n_in, [d], n_out, [d], 0, 0, 0, None),
        "aclopCompileAndExecuteV2": lambda: c.aclopCompileAndExecuteV2("Add", n_in, [d], [b], n_out, [d], [b], 0, 0,
                                                                       0, None, 0),
        "aclopCreateHandle": lambda: c.aclopCreateHandle("Add", n_in, [d], n_out, [d], 0)[1],
    }
    for name, call in calls.items():
        assert call() == c.ACL_ERROR_INVALID_PARAM, name
        message = c.aclGetRecentErrMsg()
        assert f"{named} {count} is larger than 65536" in message, (name, message)
print("ok")
"""


def test_huge_counts_are_refused_before_allocating() -> None:
    """Issue 13: numInputs = INT_MAX threw std::bad_alloc out of every aclop* call (the process aborted). A call
    takes at most 65536 inputs and 65536 outputs, checked before anything is sized or read. In a fresh process,
    where an abort is an exit code."""
    result = run_python(HUGE_COUNTS)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stdout + result.stderr


def test_destroyed_descriptions_and_attributes(stream: int) -> None:
    with compiled_add(stream) as t:
        (d_in, d_out), (b_in, b_out) = t.descs(), t.buffers()
        dead = acl.create_tensor_desc(c.ACL_FLOAT, [2, 3], c.ACL_FORMAT_ND)
        c.aclDestroyTensorDesc(dead)
        assert c.aclopExecuteV2("Add", 2, [dead, d_in[1]], b_in, 1, d_out, b_out, 0, stream) == \
            c.ACL_ERROR_INVALID_PARAM
        attr = c.aclopCreateAttr()
        c.aclopDestroyAttr(attr)
        assert c.aclopExecuteV2("Add", 2, d_in, b_in, 1, d_out, b_out, attr, stream) == c.ACL_ERROR_INVALID_PARAM
        assert "not live" in err()


def test_compile_flags_and_placement(device: int) -> None:
    with OpTensors([F, F], [Out(np.float32, [2, 3])]) as t, OpTensors([Host(F), F], []) as h:
        d_in, d_out = t.descs()
        assert c.aclopCompile("Add", 2, d_in, 1, d_out, 0, c.ACL_ENGINE_SYS, 7, None) == c.ACL_ERROR_API_NOT_SUPPORT
        assert c.aclopCompile("Add", 2, d_in, 1, d_out, 0, c.ACL_ENGINE_SYS, c.ACL_COMPILE_UNREGISTERED, None) == \
            c.ACL_ERROR_INVALID_PARAM
        assert "opPath" in err()
        check(c.aclopCompile("Add", 2, d_in, 1, d_out, 0, c.ACL_ENGINE_AICORE, c.ACL_COMPILE_UNREGISTERED, "/tmp"))
        assert c.aclopCompile("Add", 2, [h.ins[0].desc, d_in[1]], 1, d_out, 0, 0, 0, None) == \
            c.ACL_ERROR_API_NOT_SUPPORT
        assert "host memory" in err()


def test_empty_outputs_do_nothing(stream: int) -> None:
    # GE's IsAllTensorEmpty: every output has no element -> success, without matching anything.
    with OpTensors([np.ones((0, 3), np.float32)] * 2, [Out(np.float32, [0, 3])]) as t:
        check(execute("NeverCompiled", t.ins, t.outs, 0, stream))


def test_update_params_has_no_selector(device: int) -> None:
    with OpTensors([F, F], [Out(np.float32, [2, 3])]) as t:
        d_in, d_out = t.descs()
        assert c.aclopUpdateParams("Add", 2, d_in, 1, d_out, 0) == c.ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED
        assert acl.op.update_params("Add", d_in, d_out, 0) == c.ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED
        assert "aclopRegisterCompileFunc" in err()


def test_value_inputs_from_host_memory(stream: int) -> None:
    # A host-placed input is a constant of the call (GE's SetHostMemToConst): its values select the kernel.
    with OpTensors([F, Host(np.array([1, 0], np.int64))], [Out(np.float32, [3, 2])]) as t:
        d_in, d_out = t.descs()
        (b_in, b_out) = t.buffers()
        check(c.aclopCompileAndExecuteV2("Transpose", 2, d_in, b_in, 1, d_out, b_out, 0, 0, 0, None, stream))
        check(c.aclrtSynchronizeStream(stream))
        np.testing.assert_array_equal(t.outs[0].read(np.float32, [3, 2]), F.T)


def test_const_inputs_need_int_values(device: int) -> None:
    with OpTensors([F, Const(np.array([1.0, 0.0], np.float32))], [Out(np.float32, [3, 2])]) as t:
        assert compile_op("Transpose", t.ins, t.outs, 0) == c.ACL_ERROR_OP_INPUT_NOT_MATCH
        assert "INT32 or INT64" in err()
