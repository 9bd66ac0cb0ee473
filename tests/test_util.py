"""acl.util: addresses of Python objects without copies, zero-copy numpy views, threads."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

import acl
from ascendcl import ACL_MEMCPY_HOST_TO_HOST, ACL_SUCCESS, aclrtMemcpy


def test_bytes_to_ptr_is_the_buffer_itself() -> None:
    data = bytes(range(16))
    pointer = acl.util.bytes_to_ptr(data)
    assert acl.util.ptr_to_bytes(pointer, 16) == data
    # Writing through the address changes the "immutable" bytes object, as samples rely on.
    target = bytes(16)
    assert aclrtMemcpy(acl.util.bytes_to_ptr(target), 16, pointer, 16, ACL_MEMCPY_HOST_TO_HOST) == ACL_SUCCESS
    assert target == data
    with pytest.raises(ValueError):
        acl.util.bytes_to_ptr(bytearray(4))
    assert "bytes_to_ptr" in dir(acl.util) and "ptr_to_bytes" in dir(acl.util)


def test_numpy_pointers() -> None:
    array = np.arange(12, dtype=np.float32).reshape(3, 4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pointer = acl.util.numpy_to_ptr(array)
    assert pointer == array.ctypes.data and any("deprecated" in str(w.message) for w in caught)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        acl.util.numpy_to_ptr(array.T)
    assert len(caught) == 2   # deprecation + not contiguous
    pointer, contiguous = acl.util.numpy_contiguous_to_ptr(array.T)
    assert contiguous.flags.c_contiguous and pointer == contiguous.ctypes.data
    np.testing.assert_array_equal(contiguous, array.T)


def test_ptr_to_numpy_is_a_writable_view() -> None:
    array = np.arange(6, dtype=np.int32)
    view = acl.util.ptr_to_numpy(array.ctypes.data, (2, 3), np.dtype(np.int32).num)
    np.testing.assert_array_equal(view, array.reshape(2, 3))
    view[1, 2] = 99
    assert array[5] == 99
    half = acl.util.ptr_to_numpy(np.ones(4, np.float16).ctypes.data, (4,), 23)
    assert half.dtype == np.float16
    with pytest.raises(TypeError):
        acl.util.ptr_to_numpy(array.ctypes.data, [2, 3], 5)
    with pytest.raises(ValueError):
        acl.util.ptr_to_numpy(array.ctypes.data, (2,), 1000)


def test_start_and_stop_thread() -> None:
    seen: list[object] = []
    thread_id, ret = acl.util.start_thread(lambda arg: seen.append((arg, threading.get_ident())), "x")
    assert ret == ACL_SUCCESS and thread_id
    assert acl.util.stop_thread(thread_id) == ACL_SUCCESS
    assert seen == [("x", thread_id)]    # the id is the thread's own pthread id
    thread_id, _ = acl.util.start_thread(lambda: seen.append("no args"), None)
    acl.util.stop_thread(thread_id)
    assert seen[-1] == "no args"

    def boom(_):
        raise KeyError("inside")

    thread_id, _ = acl.util.start_thread(boom, 1)
    with pytest.raises(RuntimeError, match="inside"):
        acl.util.stop_thread(thread_id)
    assert acl.util.stop_thread(12345) != ACL_SUCCESS
