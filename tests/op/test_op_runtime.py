"""Compilation cache, dynamic shapes with ranges, the V2 output update, handles, aclopCast, aclopInferShape
and concurrent executions of one cached operator on two streams."""

from __future__ import annotations

import threading

import numpy as np
from op_helpers import Const, OpTensors, Out, check, compile_op, desc_dims, execute, make_attr

import acl
import ascendcl as c
import ascendsim
from acl_helpers import new_stream


def stats() -> dict[str, int]:
    return ascendsim.op_cache_stats()


def test_second_compilation_hits_the_cache(stream: int) -> None:
    x = np.full((3, 7), 2.0, np.float32)
    with OpTensors([x, x], [Out(np.float32, [3, 7])]) as t:
        before = stats()
        check(compile_op("Maximum", t.ins, t.outs, 0))
        after_first = stats()
        assert after_first["misses"] == before["misses"] + 1
        check(compile_op("Maximum", t.ins, t.outs, 0))
        after_second = stats()
        assert after_second["hits"] == after_first["hits"] + 1
        assert after_second["misses"] == after_first["misses"]
        for face in ("c", "acl"):
            check(execute("Maximum", t.ins, t.outs, 0, stream, face=face))
        assert stats()["misses"] == after_first["misses"]
        assert stats()["hits"] == after_second["hits"] + 2
        check(c.aclrtSynchronizeStream(stream))


def test_compile_and_execute_both_forms(stream: int) -> None:
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    with OpTensors([x], [Out(np.float32, [3, 4]), Out(np.float32, [3, 4]), Out(np.float32, [-1, 4])]) as t:
        (d_in, d_out), (b_in, b_out) = t.descs(), t.buffers()
        attr = make_attr({"axes": [-1]})
        check(c.aclopCompileAndExecute("SoftmaxV2", 1, d_in, b_in, 1, d_out[:1], b_out[:1], attr, c.ACL_ENGINE_SYS,
                                       c.ACL_COMPILE_SYS, None, stream))
        check(c.aclopCompileAndExecuteV2("SoftmaxV2", 1, d_in, b_in, 1, d_out[1:2], b_out[1:2], attr,
                                         c.ACL_ENGINE_VECTOR, c.ACL_COMPILE_SYS, None, stream))
        check(c.aclrtSynchronizeStream(stream))
        e = np.exp(x - x.max(1, keepdims=True))
        for out in t.outs[:2]:
            np.testing.assert_allclose(out.read(np.float32, [3, 4]), e / e.sum(1, keepdims=True), rtol=1e-5)
        # GE's execution step refuses a dynamic description, even right after compiling it.
        assert c.aclopCompileAndExecuteV2("SoftmaxV2", 1, d_in, b_in, 1, d_out[2:], b_out[2:], attr,
                                          c.ACL_ENGINE_SYS, c.ACL_COMPILE_SYS, None, stream) == c.ACL_ERROR_INVALID_PARAM
        assert "must be static when executing" in c.aclGetRecentErrMsg()
        c.aclopDestroyAttr(attr)


def test_dynamic_signature_runs_any_shape_in_its_ranges(stream: int) -> None:
    dyn_in = [acl.create_tensor_desc(c.ACL_FLOAT, [-1, 4], c.ACL_FORMAT_ND) for _ in range(2)]
    dyn_out = acl.create_tensor_desc(c.ACL_FLOAT, [-1, 4], c.ACL_FORMAT_ND)
    for d in [*dyn_in, dyn_out]:
        check(acl.set_tensor_shape_range(d, [[1, 8], [4, 4]]))
    check(c.aclopCompile("Mul", 2, dyn_in, 1, [dyn_out], 0, c.ACL_ENGINE_SYS, c.ACL_COMPILE_SYS, None))
    misses = stats()["misses"]
    for rows in (1, 5, 8, 5):
        x = np.arange(rows * 4, dtype=np.float32).reshape(rows, 4)
        with OpTensors([x, x], [Out(np.float32, [rows, 4])]) as t:
            check(execute("Mul", t.ins, t.outs, 0, stream, face="acl"))
            check(c.aclrtSynchronizeStream(stream))
            assert desc_dims(t.outs[0].desc) == [rows, 4]
            np.testing.assert_array_equal(t.outs[0].read(np.float32, [rows, 4]), x * x)
    assert stats()["misses"] == misses + 3  # one kernel per concrete shape; the second [5, 4] hits
    x = np.ones((9, 4), np.float32)  # outside the range: no model matches
    with OpTensors([x, x], [Out(np.float32, [9, 4])]) as t:
        assert execute("Mul", t.ins, t.outs, 0, stream) == c.ACL_ERROR_OP_NOT_FOUND
        # Executing with the dynamic descriptions themselves: GE's "TensorDesc must be static when executing".
        buffers = [t.ins[0].buffer, t.ins[1].buffer]
        assert c.aclopExecuteV2("Mul", 2, dyn_in, buffers, 1, [dyn_out], [t.outs[0].buffer], 0, stream) == \
            c.ACL_ERROR_INVALID_PARAM
        assert "must be static when executing" in c.aclGetRecentErrMsg()
    for d in [*dyn_in, dyn_out]:
        c.aclDestroyTensorDesc(d)


def test_handles(stream: int) -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    with OpTensors([x, x], [Out(np.float32, [2, 3])]) as t:
        (d_in, d_out), (b_in, b_out) = t.descs(), t.buffers()
        handle, ret = acl.op.create_handle("Sub", d_in, d_out, 0)
        assert ret == c.ACL_ERROR_OP_NOT_FOUND and handle == 0  # not compiled yet
        check(compile_op("Sub", t.ins, t.outs, 0))
        handle, ret = acl.op.create_handle("Sub", d_in, d_out, 0)
        check(ret)
        c_handle, ret = c.aclopCreateHandle("Sub", 2, d_in, 1, d_out, 0)
        check(ret)
        check(acl.op.execute_with_handle(handle, b_in, b_out, stream))
        check(c.aclrtSynchronizeStream(stream))
        np.testing.assert_array_equal(t.outs[0].read(np.float32, [2, 3]), x - x)
        check(c.aclopExecWithHandle(c_handle, 2, b_in, 1, b_out, stream))
        assert acl.op.execute_with_handle(handle, b_in[:1], b_out, stream) == c.ACL_ERROR_OP_INPUT_NOT_MATCH
        assert acl.op.execute_with_handle(handle, b_in, b_out * 2, stream) == c.ACL_ERROR_OP_OUTPUT_NOT_MATCH
        assert c.aclopExecWithHandle(c_handle, 2, None, 1, b_out, stream) == c.ACL_ERROR_INVALID_PARAM
        assert acl.op.destroy_handle(handle) is None
        c.aclopDestroyHandle(c_handle)
        assert acl.op.execute_with_handle(handle, b_in, b_out, stream) == c.ACL_ERROR_INVALID_PARAM
        assert "not live" in c.aclGetRecentErrMsg()
        assert c.aclopExecWithHandle(0, 2, b_in, 1, b_out, stream) == c.ACL_ERROR_INVALID_PARAM
        c.aclopDestroyHandle(0)  # NULL: nothing to do
        check(c.aclrtSynchronizeStream(stream))


def test_cast_and_its_handle(stream: int) -> None:
    x = np.array([1.25, -2.75, 3.5, 100.0], np.float32)
    with OpTensors([x], [Out(np.float16, [4])]) as t:
        (d_in, d_out), (b_in, b_out) = t.descs(), t.buffers()
        assert acl.op.cast(d_in[0], b_in[0], d_out[0], b_out[0], 0, stream) == c.ACL_ERROR_OP_NOT_FOUND
        attr = make_attr({"dst_type": c.ACL_FLOAT16})
        check(compile_op("Cast", t.ins, t.outs, attr))
        check(acl.op.cast(d_in[0], b_in[0], d_out[0], b_out[0], 0, stream))
        check(c.aclrtSynchronizeStream(stream))
        np.testing.assert_array_equal(t.outs[0].read(np.float16, [4]), x.astype(np.float16))
        handle, ret = acl.op.create_handle_for_cast(d_in[0], d_out[0], 0)
        check(ret)
        check(acl.op.execute_with_handle(handle, b_in, b_out, stream))
        check(c.aclrtSynchronizeStream(stream))
        acl.op.destroy_handle(handle)
        c.aclopDestroyAttr(attr)
        assert c.aclopCast(d_in[0], b_in[0], 0, b_out[0], 0, stream) == c.ACL_ERROR_INVALID_PARAM


def test_infer_shape_fills_output_descriptions(device: int) -> None:
    x = np.zeros((2, 5, 7), np.float32)
    with OpTensors([x, Const(np.array([1], np.int64))], [Out(np.float32, [-1, -1])]) as t:
        (d_in, d_out), (b_in, _) = t.descs(), t.buffers()
        attr = make_attr({"keep_dims": True})
        check(acl.op.infer_shape("ReduceSum", d_in, b_in, 1, d_out, attr))
        assert desc_dims(d_out[0]) == [2, 1, 7]
        check(c.aclopInferShape("ReduceMax", 2, d_in, b_in, 1, d_out, 0))
        assert desc_dims(d_out[0]) == [2, 7]
        assert c.aclopInferShape("NoSuchOp", 2, d_in, b_in, 1, d_out, 0) == c.ACL_ERROR_OP_NOT_FOUND
        c.aclopDestroyAttr(attr)


def test_two_streams_share_one_cached_operator(device: int) -> None:
    a = np.random.default_rng(0).standard_normal((64, 48)).astype(np.float32)
    b = np.random.default_rng(1).standard_normal((48, 32)).astype(np.float32)
    with OpTensors([a, b], [Out(np.float32, [64, 32])]) as t:
        check(compile_op("MatMul", t.ins, t.outs, 0))
    misses = stats()["misses"]
    errors: list[str] = []

    def worker(seed: int) -> None:
        check(c.aclrtSetDevice(0))
        try:
            run_on_own_stream(seed)
        finally:
            check(c.aclrtResetDevice(0))  # balance this thread's aclrtSetDevice

    def run_on_own_stream(seed: int) -> None:
        with new_stream() as s:
            scale = np.float32(seed + 1)
            with OpTensors([a * scale, b], [Out(np.float32, [64, 32])]) as w:
                for _ in range(20):
                    check(execute("MatMul", w.ins, w.outs, 0, s))
                check(c.aclrtSynchronizeStream(s))
                got = w.outs[0].read(np.float32, [64, 32])
                if not np.allclose(got, (a * scale) @ b, rtol=1e-4, atol=1e-3):
                    errors.append(f"thread {seed}: wrong result")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    assert stats()["misses"] == misses  # both threads ran the one cached kernel

