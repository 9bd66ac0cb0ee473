"""pyACL compatibility: the runtime parts of official pyACL samples, run unmodified in spirit.

The flows follow what the Ascend samples' acllite helpers and runtime samples do with `acl` (resource
init with run mode, a context per thread, memcpy between bytes objects and device memory, zero-copy
numpy views, a callback thread, event timing, host buffers, releases from __del__), each checked
numerically with numpy; plus the API surface of pyACL's acl, acl.rt and acl.util: names, argument
order, return shapes, TypeError on wrong types, extra arguments ignored by zero-argument functions.
"""

from __future__ import annotations

import gc
import threading
import time
import warnings
import weakref
from collections.abc import Iterator

import numpy as np
import pytest

import acl
import acl.mdl
import acl.op
from acl.constants import (
    ACL_CALLBACK_BLOCK,
    ACL_CALLBACK_NO_BLOCK,
    ACL_ERROR_RT_CONTEXT_NULL,
    ACL_EVENT_STATUS_COMPLETE,
    ACL_FLOAT,
    ACL_FORMAT_ND,
    ACL_HBM_MEM,
    ACL_HOST,
    ACL_MEM_MALLOC_HUGE_FIRST,
    ACL_MEM_MALLOC_NORMAL_ONLY,
    ACL_MEMCPY_DEVICE_TO_DEVICE,
    ACL_MEMCPY_DEVICE_TO_HOST,
    ACL_MEMCPY_HOST_TO_DEVICE,
    ACL_MEMCPY_HOST_TO_HOST,
    ACL_SUCCESS,
)
from acl_helpers import WAIT, run_python

NPY_FLOAT32 = 11  # the NumPy type numbers samples pass to ptr_to_numpy
NPY_INT32 = 5

# The spec (pyacl-api.md) sections 2.1, 2.2 and 2.4: every name a pyACL runtime program may call.
TOP_LEVEL = [
    "init", "finalize", "get_recent_err_msg", "get_soc_name", "get_version", "app_log", "create_data_buffer",
    "destroy_data_buffer", "get_data_buffer_addr", "get_data_buffer_size", "get_data_buffer_size_v2",
    "update_data_buffer", "data_type_size", "create_tensor_desc", "destroy_tensor_desc", "get_tensor_desc_size",
    "get_tensor_desc_element_count", "get_tensor_desc_num_dims", "get_tensor_desc_type", "get_tensor_desc_format",
    "get_tensor_desc_name", "get_tensor_desc_dim", "get_tensor_desc_dim_v2", "set_tensor_desc_name",
    "set_tensor_shape", "set_tensor_format", "set_tensor_const", "float16_to_float", "float_to_float16",
]
RT = [
    "set_device", "reset_device", "get_device", "get_device_count", "get_run_mode", "create_context",
    "destroy_context", "set_context", "get_context", "create_stream", "destroy_stream", "synchronize_stream",
    "synchronize_device", "malloc", "free", "malloc_host", "free_host", "malloc_cached", "memcpy", "memcpy_async",
    "memset", "memset_async", "get_mem_info", "create_event", "create_event_with_flag", "destroy_event",
    "record_event", "reset_event", "query_event", "synchronize_event", "event_elapsed_time", "stream_wait_event",
    "subscribe_report", "unsubscribe_report", "process_report", "launch_callback", "set_exception_info_callback",
    "device_can_access_peer", "memcpy2d", "memcpy2d_async", "set_op_execute_time_out",
]
UTIL = [
    "bytes_to_ptr", "ptr_to_bytes", "numpy_to_ptr", "numpy_contiguous_to_ptr", "ptr_to_numpy", "start_thread",
    "stop_thread",
]


def check(ret: int) -> None:
    """acllite's check_ret: a non-zero ret is a failure."""
    assert ret == ACL_SUCCESS, f"ret={ret}: {acl.get_recent_err_msg()}"


def host_bytes(size: int) -> bytes:
    """acllite's copy_data_as_numpy target: a zero bytes object that memcpy writes into."""
    return np.zeros(size, dtype=np.byte).tobytes()


@pytest.fixture
def context(device: int) -> Iterator[int]:
    """AclLiteResource.init: a created context (current for this thread) and its release."""
    created, ret = acl.rt.create_context(device)
    check(ret)
    yield created
    check(acl.rt.destroy_context(created))


@pytest.fixture
def acl_stream(context: int) -> Iterator[int]:
    stream, ret = acl.rt.create_stream()
    check(ret)
    yield stream
    check(acl.rt.destroy_stream(stream))


# ---------------------------------------------------------------- API surface and shapes


def test_every_pyacl_runtime_name_is_there() -> None:
    assert [name for name in TOP_LEVEL if not callable(getattr(acl, name, None))] == []
    assert [name for name in RT if not callable(getattr(acl.rt, name, None))] == []
    assert [name for name in UTIL if not callable(getattr(acl.util, name, None))] == []
    # Samples pick their copy path with this test.
    assert "bytes_to_ptr" in dir(acl.util)
    # acl.mdl and acl.op (later issues) import and have their first functions.
    assert callable(acl.mdl.load_from_file) and callable(acl.op.create_attr)


def test_return_shapes_follow_pyacl(acl_stream: int) -> None:
    run_mode, ret = acl.rt.get_run_mode()
    assert (run_mode, ret) == (ACL_HOST, ACL_SUCCESS)
    major, minor, patch, ret = acl.get_version()
    assert ret == ACL_SUCCESS and all(isinstance(v, int) for v in (major, minor, patch))
    assert isinstance(acl.get_soc_name(), str)
    count, ret = acl.rt.get_device_count()
    assert ret == ACL_SUCCESS and count >= 1
    device_id, ret = acl.rt.get_device()
    assert (device_id, ret) == (0, ACL_SUCCESS)
    free, total, ret = acl.rt.get_mem_info(ACL_HBM_MEM)
    assert ret == ACL_SUCCESS and 0 < free <= total

    pointer, ret = acl.rt.malloc(256, ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == ACL_SUCCESS and isinstance(pointer, int) and pointer != 0
    cached, ret = acl.rt.malloc_cached(64, ACL_MEM_MALLOC_NORMAL_ONLY)
    assert ret == ACL_SUCCESS and cached != 0
    host, ret = acl.rt.malloc_host(64)
    assert ret == ACL_SUCCESS and host != 0
    # Status-only functions return a bare int.
    assert acl.rt.memset(pointer, 256, 7, 256) == ACL_SUCCESS
    assert acl.rt.memset_async(pointer, 256, 9, 128, acl_stream) == ACL_SUCCESS
    assert acl.rt.synchronize_stream(acl_stream) == ACL_SUCCESS
    assert acl.rt.memcpy(host, 64, pointer + 120, 16, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS
    np.testing.assert_array_equal(np.frombuffer(acl.util.ptr_to_bytes(host, 16), np.uint8), [9] * 8 + [7] * 8)

    # Data buffers: a bare handle from the constructor, bare getters.
    buffer = acl.create_data_buffer(pointer, 256)
    assert isinstance(buffer, int) and buffer != 0
    assert acl.get_data_buffer_addr(buffer) == pointer
    assert acl.get_data_buffer_size(buffer) == acl.get_data_buffer_size_v2(buffer) == 256
    assert acl.update_data_buffer(buffer, cached, 64) == ACL_SUCCESS
    assert (acl.get_data_buffer_addr(buffer), acl.get_data_buffer_size_v2(buffer)) == (cached, 64)
    assert acl.destroy_data_buffer(buffer) == ACL_SUCCESS
    assert acl.data_type_size(ACL_FLOAT) == 4
    assert acl.float_to_float16(1.5) == int(np.float16(1.5).view(np.uint16))
    assert acl.float16_to_float(int(np.float16(-2.25).view(np.uint16))) == -2.25

    can, ret = acl.rt.device_can_access_peer(0, 1)
    assert ret == ACL_SUCCESS and can in (0, 1)
    assert acl.app_log(1, "pyacl compat test: 100% of the format is the message") is None
    for release, address in ((acl.rt.free, pointer), (acl.rt.free, cached), (acl.rt.free_host, host)):
        assert release(address) == ACL_SUCCESS


def test_wrong_types_raise_type_error(device: int) -> None:
    for call in (
        lambda: acl.init(None),
        lambda: acl.rt.set_device("0"),
        lambda: acl.rt.set_device(0.0),
        lambda: acl.rt.free(None),
        lambda: acl.rt.malloc(1024),  # the policy is required
        lambda: acl.rt.malloc(1.5, 0),
        lambda: acl.rt.memcpy(0, 4, b"abcd", 4, 1),  # src is an address, not an object
        lambda: acl.rt.destroy_stream(None),
        lambda: acl.rt.launch_callback("not callable", None, 1, 0),
        lambda: acl.util.start_thread(42, None),
        lambda: acl.util.stop_thread(None),
        lambda: acl.util.ptr_to_bytes(None, 4),
        lambda: acl.app_log(1, "message", "one argument too many"),
        lambda: acl.create_tensor_desc(ACL_FLOAT, (2, 3), ACL_FORMAT_ND),  # dims must be a list
        lambda: acl.set_tensor_shape(0, (2, 3)),
    ):
        with pytest.raises(TypeError):
            call()
    with pytest.raises(ValueError):
        acl.util.bytes_to_ptr(bytearray(4))  # pyACL: "needs an byte as argument"
    with pytest.raises(ValueError), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        acl.util.numpy_to_ptr([1, 2, 3])


def test_numpy_integers_are_accepted_like_python_ints(device: int) -> None:
    # pyACL's "i"/"I" formats take any integer with __index__, as computed sizes and ids often are.
    assert acl.rt.set_device(np.int32(0)) == ACL_SUCCESS
    pointer, ret = acl.rt.malloc(np.int64(64), np.int32(ACL_MEM_MALLOC_HUGE_FIRST))
    check(ret)
    assert acl.rt.memset(pointer, np.uint64(64), np.int8(3), np.int64(64)) == ACL_SUCCESS
    np.testing.assert_array_equal(np.frombuffer(acl.util.ptr_to_bytes(pointer, np.int64(64)), np.uint8), 3)
    check(acl.rt.free(pointer))
    check(acl.rt.reset_device(0))


def test_zero_argument_functions_ignore_extra_arguments(context: int) -> None:
    # Public code calls acl.rt.get_context(DEVICE_ID); pyACL never parses the arguments of these.
    assert acl.rt.get_context(0) == (context, ACL_SUCCESS)
    assert acl.rt.get_device("ignored") == (0, ACL_SUCCESS)
    assert acl.rt.get_run_mode(1, 2)[1] == ACL_SUCCESS
    assert acl.rt.get_device_count(None)[1] == ACL_SUCCESS
    assert acl.get_version(0)[-1] == ACL_SUCCESS
    assert isinstance(acl.get_soc_name(0), str)
    acl.get_recent_err_msg("ignored")
    stream, ret = acl.rt.create_stream(0)
    check(ret)
    event, ret = acl.rt.create_event(0)
    check(ret)
    assert acl.rt.synchronize_device(0) == ACL_SUCCESS
    check(acl.rt.destroy_event(event))
    check(acl.rt.destroy_stream(stream))
    attributes, count, ret = acl.get_cann_attribute_list(0)
    assert ret == ACL_SUCCESS and count == len(attributes)


def test_recent_error_message_is_a_string_then_none(device: int) -> None:
    acl.get_recent_err_msg()
    assert acl.get_recent_err_msg() is None
    assert acl.rt.free(0) != ACL_SUCCESS
    message = acl.get_recent_err_msg()
    assert isinstance(message, str) and "aclrtFree" in message
    assert acl.get_recent_err_msg() is None  # reading it clears it


def test_device_utilization_has_pyacl_keys(device: int) -> None:
    info, ret = acl.rt.get_device_utilization_rate(0)
    assert ret == ACL_SUCCESS
    assert set(info) == {"cube_utilization", "vector_utilization", "aicpu_utilization", "memory_utilization",
                         "utilization_extend"}


# ---------------------------------------------------------------- memory and copies, acllite style


def test_bytes_device_round_trip_like_acllite(context: int) -> None:
    source = np.random.default_rng(1).standard_normal((4, 25), dtype=np.float32)
    size = source.nbytes
    # copy_data_host_to_device: the address of a bytes object's own buffer, no copy.
    input_bytes = source.tobytes()
    device_in, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_NORMAL_ONLY)
    check(ret)
    check(acl.rt.memcpy(device_in, size, acl.util.bytes_to_ptr(input_bytes), size, ACL_MEMCPY_HOST_TO_DEVICE))
    # copy_data_device_to_device, with pointer arithmetic on the result (samples offset into buffers).
    device_out, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_NORMAL_ONLY)
    check(ret)
    half = size // 2
    check(acl.rt.memcpy(device_out + half, half, device_in, half, ACL_MEMCPY_DEVICE_TO_DEVICE))
    check(acl.rt.memcpy(device_out, half, device_in + half, half, ACL_MEMCPY_DEVICE_TO_DEVICE))
    # copy_data_as_numpy: memcpy writes into an "immutable" bytes object, read back with frombuffer.
    output_bytes = host_bytes(size)
    check(acl.rt.memcpy(acl.util.bytes_to_ptr(output_bytes), size, device_out, size, ACL_MEMCPY_DEVICE_TO_HOST))
    result = np.frombuffer(output_bytes, dtype=np.float32).reshape(source.shape)
    np.testing.assert_array_equal(result, np.roll(source.reshape(-1), source.size // 2).reshape(source.shape))
    # ptr_to_bytes is a copy of device memory, as the async sample reads outputs.
    np.testing.assert_array_equal(np.frombuffer(acl.util.ptr_to_bytes(device_in, size), np.float32),
                                  source.reshape(-1))
    check(acl.rt.free(device_in))
    check(acl.rt.free(device_out))


def test_host_buffers_and_zero_copy_views(acl_stream: int) -> None:
    rows, cols = 8, 16
    size = rows * cols * 4
    host_in, ret = acl.rt.malloc_host(size)
    check(ret)
    host_out, ret = acl.rt.malloc_host(size)
    check(ret)
    device, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        view_in = acl.util.ptr_to_numpy(host_in, (rows, cols), NPY_INT32)
        view_out = acl.util.ptr_to_numpy(host_out, (rows, cols), NPY_INT32)
    assert {w.category for w in caught} == {Warning}  # pyACL warns that ptr_to_numpy will be deprecated
    assert view_in.flags.writeable and view_in.dtype == np.int32
    view_in[:] = np.arange(rows * cols, dtype=np.int32).reshape(rows, cols)  # written through the view
    check(acl.rt.memcpy_async(device, size, host_in, size, ACL_MEMCPY_HOST_TO_DEVICE, acl_stream))
    check(acl.rt.memcpy_async(host_out, size, device, size, ACL_MEMCPY_DEVICE_TO_HOST, acl_stream))
    check(acl.rt.synchronize_stream(acl_stream))
    np.testing.assert_array_equal(view_out, view_in)
    # memcpy2d: a column block of every row, with pitches, host -> device -> host.
    width, block = 4 * 4, 4
    view_out[:] = -1
    check(acl.rt.memset(device, size, 0, size))
    check(acl.rt.memcpy2d(device, cols * 4, host_in + 8, cols * 4, width, rows, ACL_MEMCPY_HOST_TO_DEVICE))
    check(acl.rt.memcpy2d_async(host_out, cols * 4, device, cols * 4, width, rows, ACL_MEMCPY_DEVICE_TO_HOST,
                                acl_stream))
    check(acl.rt.synchronize_stream(acl_stream))
    expected = np.full((rows, cols), -1, np.int32)
    expected[:, :block] = view_in[:, 2:2 + block]
    np.testing.assert_array_equal(view_out, expected)
    del view_in, view_out
    for release, address in ((acl.rt.free_host, host_in), (acl.rt.free_host, host_out), (acl.rt.free, device)):
        check(release(address))
    assert acl.rt.free_host(host_in) != ACL_SUCCESS  # double free is an error code, not a crash


def test_host_memory_fills_and_hint_kinds_like_the_samples(acl_stream: int) -> None:
    # Samples clear aclrtMallocHost buffers with memset and, written for CANN 7+, pass a kind that does not match
    # their pointers (the kind is reserved): both work on the device.
    import ctypes

    size = 4096
    host, ret = acl.rt.malloc_host(size)
    check(ret)
    device, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret)
    view = np.ctypeslib.as_array((ctypes.c_uint8 * size).from_address(host))
    check(acl.rt.memset(host, size, 0xEE, size))
    assert (view == 0xEE).all()
    check(acl.rt.memset_async(host, size, 0x11, size // 2, acl_stream))
    check(acl.rt.synchronize_stream(acl_stream))
    assert (view[: size // 2] == 0x11).all() and (view[size // 2:] == 0xEE).all()
    check(acl.rt.memcpy(device, size, host, size, ACL_MEMCPY_DEVICE_TO_HOST))  # really host to device
    check(acl.rt.memset(host, size, 0, size))
    check(acl.rt.memcpy(host, size, device, size, ACL_MEMCPY_HOST_TO_DEVICE))  # really device to host
    assert (view[: size // 2] == 0x11).all() and (view[size // 2:] == 0xEE).all()
    del view
    check(acl.rt.free(device))
    check(acl.rt.free_host(host))


def test_numpy_pointer_helpers_warn_like_pyacl() -> None:
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert acl.util.numpy_to_ptr(array) == array.ctypes.data
        pointer, contiguous = acl.util.numpy_contiguous_to_ptr(array.T)
    assert [w.category for w in caught] == [Warning, Warning]
    assert all("deprecated" in str(w.message) for w in caught)
    assert pointer == contiguous.ctypes.data and contiguous.flags.c_contiguous
    np.testing.assert_array_equal(contiguous, array.T)


# ---------------------------------------------------------------- contexts per thread


def test_context_per_thread_with_set_context(context: int) -> None:
    """Worker threads start with no context and adopt the main one with set_context (the async
    sample's pattern); each then copies its own slice through device memory."""
    workers = 4
    chunk = 1024
    source = np.arange(workers * chunk, dtype=np.float32)
    device, ret = acl.rt.malloc(source.nbytes, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret)
    results: dict[int, object] = {}

    def work(index: int) -> None:
        before = acl.rt.get_context()
        check(acl.rt.set_context(context))
        part = source[index * chunk:(index + 1) * chunk].tobytes()
        offset = index * chunk * 4
        check(acl.rt.memcpy(device + offset, len(part), acl.util.bytes_to_ptr(part), len(part),
                            ACL_MEMCPY_HOST_TO_DEVICE))
        back = host_bytes(len(part))
        check(acl.rt.memcpy(acl.util.bytes_to_ptr(back), len(back), device + offset, len(part),
                            ACL_MEMCPY_DEVICE_TO_HOST))
        results[index] = (before, acl.rt.get_context(), np.frombuffer(back, np.float32) * 2)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    assert sorted(results) == list(range(workers))
    for index, (before, after, doubled) in results.items():
        assert before == (0, ACL_ERROR_RT_CONTEXT_NULL)
        assert after == (context, ACL_SUCCESS)
        np.testing.assert_array_equal(doubled, source[index * chunk:(index + 1) * chunk] * 2)
    check(acl.rt.free(device))


# ---------------------------------------------------------------- callbacks


class CallbackThread:
    """The samples' callback plumbing: acl.util.start_thread running process_report in a loop (an
    idle poll returns a timeout code, which samples ignore)."""

    def __init__(self, context: int, timeout_ms: int = 20) -> None:
        self.running = True
        self.thread_id, ret = acl.util.start_thread(self._loop, [context, timeout_ms])
        check(ret)

    def _loop(self, args_list: list[int]) -> None:
        context, timeout = args_list
        check(acl.rt.set_context(context))
        while self.running:
            acl.rt.process_report(timeout)

    def stop(self) -> None:
        self.running = False
        check(acl.util.stop_thread(self.thread_id))


def test_callback_thread_flow(context: int, acl_stream: int) -> None:
    worker = CallbackThread(context)
    check(acl.rt.subscribe_report(worker.thread_id, acl_stream))
    size = 64 * 4
    device, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret)
    host, ret = acl.rt.malloc_host(size)
    check(ret)
    calls: list[tuple[object, int]] = []

    def fill(user_data: list[float]) -> None:
        # Runs on the subscribed thread; with ACL_CALLBACK_BLOCK the stream waits for it, so the
        # copy queued after it sees what it wrote.
        scale, offset = user_data
        calls.append(("fill", threading.get_ident()))
        data = (np.arange(64, dtype=np.float32) * scale + offset).tobytes()
        check(acl.rt.memcpy(host, size, acl.util.bytes_to_ptr(data), size, ACL_MEMCPY_HOST_TO_HOST))

    def read_back(user_data: object) -> None:
        calls.append((user_data, threading.get_ident()))

    check(acl.rt.memset_async(device, size, 0, size, acl_stream))
    check(acl.rt.launch_callback(fill, [2.0, 1.0], ACL_CALLBACK_BLOCK, acl_stream))
    check(acl.rt.memcpy_async(device, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE, acl_stream))
    check(acl.rt.launch_callback(read_back, "after copy", ACL_CALLBACK_NO_BLOCK, acl_stream))
    check(acl.rt.launch_callback(read_back, None, ACL_CALLBACK_BLOCK, acl_stream))
    # The main thread sits in synchronize_stream (GIL released) while the callback thread runs Python.
    check(acl.rt.synchronize_stream(acl_stream))
    assert calls == [("fill", worker.thread_id), ("after copy", worker.thread_id), (None, worker.thread_id)]
    result = host_bytes(size)
    check(acl.rt.memcpy(acl.util.bytes_to_ptr(result), size, device, size, ACL_MEMCPY_DEVICE_TO_HOST))
    np.testing.assert_array_equal(np.frombuffer(result, np.float32), np.arange(64, dtype=np.float32) * 2 + 1)

    check(acl.rt.unsubscribe_report(worker.thread_id, acl_stream))
    worker.stop()
    check(acl.rt.free(device))
    check(acl.rt.free_host(host))


def test_callbacks_on_the_default_stream_and_a_python_thread(context: int) -> None:
    """pyACL's own tests subscribe stream 0; a threading.Thread's ident is its pthread id too."""
    stop = threading.Event()

    def loop() -> None:
        check(acl.rt.set_context(context))
        while not stop.is_set():
            acl.rt.process_report(20)

    thread = threading.Thread(target=loop)
    thread.start()
    seen: list[tuple[str, int]] = []
    try:
        check(acl.rt.subscribe_report(thread.ident, 0))
        for tag in ("a", "b", "c"):
            check(acl.rt.launch_callback(lambda t: seen.append((t, threading.get_ident())), tag, ACL_CALLBACK_BLOCK,
                                         0))
        check(acl.rt.synchronize_stream(0))
        check(acl.rt.unsubscribe_report(thread.ident, 0))
    finally:
        stop.set()
        thread.join(WAIT)
    assert seen == [("a", thread.ident), ("b", thread.ident), ("c", thread.ident)]


def test_started_thread_drops_its_function_when_it_returns() -> None:
    """pyACL releases fn and args when fn returns: a thread that is never joined keeps nothing alive
    (so acllite objects it referenced can still run __del__)."""

    class Payload:
        pass

    payload = Payload()
    alive = weakref.ref(payload)
    done = threading.Event()
    thread_id, ret = acl.util.start_thread(lambda item: done.set(), payload)
    check(ret)
    del payload
    assert done.wait(WAIT)
    deadline = time.monotonic() + WAIT
    while alive() is not None and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.001)
    assert alive() is None
    check(acl.util.stop_thread(thread_id))


# ---------------------------------------------------------------- events


def test_event_timing_from_real_timestamps(context: int, acl_stream: int) -> None:
    worker = CallbackThread(context)
    check(acl.rt.subscribe_report(worker.thread_id, acl_stream))
    start, ret = acl.rt.create_event()
    check(ret)
    end, ret = acl.rt.create_event_with_flag(1)  # ACL_EVENT_TIME_LINE
    check(ret)
    check(acl.rt.record_event(start, acl_stream))
    # A blocking callback that sleeps: the stream reaches `end` at least this late.
    check(acl.rt.launch_callback(lambda ms: time.sleep(ms / 1000), 30, ACL_CALLBACK_BLOCK, acl_stream))
    check(acl.rt.record_event(end, acl_stream))
    check(acl.rt.synchronize_event(end))
    assert acl.rt.query_event(end) == (ACL_EVENT_STATUS_COMPLETE, ACL_SUCCESS)
    elapsed, ret = acl.rt.event_elapsed_time(start, end)
    check(ret)
    assert isinstance(elapsed, float) and elapsed >= 29.0
    # Cross-stream ordering through an event: the second stream copies only after the first wrote.
    other, ret = acl.rt.create_stream()
    check(ret)
    device, ret = acl.rt.malloc(16, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret)
    check(acl.rt.reset_event(end, acl_stream))
    check(acl.rt.launch_callback(lambda ms: time.sleep(ms / 1000), 10, ACL_CALLBACK_BLOCK, acl_stream))
    check(acl.rt.memset_async(device, 16, 5, 16, acl_stream))
    check(acl.rt.record_event(end, acl_stream))
    check(acl.rt.stream_wait_event(other, end))
    result = host_bytes(16)
    check(acl.rt.memcpy_async(acl.util.bytes_to_ptr(result), 16, device, 16, ACL_MEMCPY_DEVICE_TO_HOST, other))
    check(acl.rt.synchronize_stream(other))
    np.testing.assert_array_equal(np.frombuffer(result, np.uint8), 5)
    check(acl.rt.unsubscribe_report(worker.thread_id, acl_stream))
    worker.stop()
    for release, handle in ((acl.rt.destroy_event, start), (acl.rt.destroy_event, end),
                            (acl.rt.destroy_stream, other), (acl.rt.free, device)):
        check(release(handle))


# ---------------------------------------------------------------- a whole program, to interpreter exit

ACLLITE_PROGRAM = """
import threading
import numpy as np
import acl

ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 1, 2

class Image:
    # acllite_image.py asks for the run mode at import time, before acl.init().
    _run_mode, _ = acl.rt.get_run_mode()

class Resource:
    # AclLiteResource: init in order, release everything from __del__ (at interpreter exit here).
    def __init__(self, device_id=0):
        self.device_id = device_id
        assert acl.init() == 0
        assert acl.rt.set_device(device_id) == 0
        self.context, ret = acl.rt.create_context(device_id)
        assert ret == 0
        self.stream, ret = acl.rt.create_stream()
        assert ret == 0
        self.run_mode, ret = acl.rt.get_run_mode()
        assert ret == 0
        self.buffer, ret = acl.rt.malloc(4096, 0)
        assert ret == 0

    def __del__(self):
        rets = [acl.rt.free(self.buffer)]
        if self.stream:
            rets.append(acl.rt.destroy_stream(self.stream))
        if self.context:
            rets.append(acl.rt.destroy_context(self.context))
        rets.append(acl.rt.reset_device(self.device_id))
        rets.append(acl.finalize())
        print("released", rets, flush=True)

resource = Resource()
data = np.linspace(0, 1, 1024, dtype=np.float32)
raw = data.tobytes()
assert acl.rt.memcpy(resource.buffer, 4096, acl.util.bytes_to_ptr(raw), 4096, ACL_MEMCPY_HOST_TO_DEVICE) == 0
out = np.zeros(1024, dtype=np.byte).tobytes()
assert acl.rt.memcpy(acl.util.bytes_to_ptr(out), 1024, resource.buffer + 1024, 1024,
                     ACL_MEMCPY_DEVICE_TO_HOST) == 0
assert np.array_equal(np.frombuffer(out, np.float32), data[256:512])
# A helper thread that is started and finishes but is never joined, as some samples leave theirs.
started = threading.Event()
tid, ret = acl.util.start_thread(lambda holder: started.set(), [resource])
assert ret == 0 and started.wait(30)
print("run mode", Image._run_mode, resource.run_mode, flush=True)
"""


def test_acllite_program_releases_from_del_at_exit() -> None:
    result = run_python(ACLLITE_PROGRAM)
    assert result.returncode == 0, result.stderr
    assert "run mode 1 1" in result.stdout
    assert "released [0, 0, 0, 0, 0]" in result.stdout, result.stdout + result.stderr


def test_tensor_desc_functions_take_lists() -> None:
    # Tensor descriptions themselves arrive with model and operator execution; the pyACL argument
    # shapes are in place: dims are lists, the constructor returns a bare handle (0 on failure).
    desc = acl.create_tensor_desc(ACL_FLOAT, [2, 3], ACL_FORMAT_ND)
    assert isinstance(desc, int)
    if desc:
        assert acl.get_tensor_desc_num_dims(desc) == 2
        assert acl.get_tensor_desc_dim_v2(desc, 1) == (3, ACL_SUCCESS)
        assert acl.set_tensor_shape(desc, [4, 5, 6]) == ACL_SUCCESS
        assert acl.destroy_tensor_desc(desc) is None
    else:
        assert isinstance(acl.get_recent_err_msg(), str)
