"""acl.util: moving between Python objects and raw addresses, and threads for callbacks.

Memory behind these addresses is real process memory: bytes objects, numpy arrays, host and device
allocations are all addressable by plain ints.
"""

from __future__ import annotations

import ctypes
import warnings

import numpy as np

from ascendsim import _core

bytes_to_ptr = _core.bytes_to_ptr
ptr_to_bytes = _core.ptr_to_bytes
start_thread = _core.start_thread
stop_thread = _core.stop_thread


# pyACL warns with the base Warning class on each call of its numpy helpers, and raises ValueError
# (not TypeError) for an argument that is not an ndarray; these follow it.
def numpy_to_ptr(array: np.ndarray, /) -> int:
    """The address of the array's data, without copying (deprecated in pyACL: use bytes_to_ptr)."""
    warnings.warn("acl.util.numpy_to_ptr will be deprecated. Please use acl.util.bytes_to_ptr instead.",
                  Warning, stacklevel=2)
    if not isinstance(array, np.ndarray):
        raise ValueError("acl.util.numpy_to_ptr needs an ndarray as argument")  # noqa: TRY004 (as pyACL)
    if not array.flags.c_contiguous:
        warnings.warn("The input ndarray is discontiguous. Please use acl.util.bytes_to_ptr instead.",
                      Warning, stacklevel=2)
    return int(array.__array_interface__["data"][0])


def numpy_contiguous_to_ptr(array: np.ndarray, /) -> tuple[int, np.ndarray]:
    """(address, contiguous array): keep the returned array alive while the address is used."""
    warnings.warn("acl.util.numpy_contiguous_to_ptr will be deprecated. Please use acl.util.bytes_to_ptr "
                  "instead.", Warning, stacklevel=2)
    if not isinstance(array, np.ndarray):
        raise ValueError("acl.util.numpy_contiguous_to_ptr needs an ndarray as argument")  # noqa: TRY004
    contiguous = np.ascontiguousarray(array)
    return int(contiguous.__array_interface__["data"][0]), contiguous


def ptr_to_numpy(ptr: int, shape: tuple[int, ...], npy_type: int, /) -> np.ndarray:
    """A writable zero-copy numpy view of the memory at `ptr` (npy_type is a NumPy type number)."""
    warnings.warn("acl.util.ptr_to_numpy will be deprecated. Please use acl.util.ptr_to_bytes instead.",
                  Warning, stacklevel=2)
    if not isinstance(ptr, int) or not isinstance(shape, tuple) or not isinstance(npy_type, int):
        raise TypeError("acl.util.ptr_to_numpy args parse failed")
    if not all(isinstance(dim, int) and dim >= 0 for dim in shape):
        raise ValueError(f"acl.util.ptr_to_numpy: shape {shape} must hold non-negative ints")
    dtype = _dtype_of_number(npy_type)
    count = int(np.prod(shape, dtype=np.int64))
    if ptr == 0 and count > 0:
        raise ValueError("acl.util.ptr_to_numpy: address is 0")
    buffer = (ctypes.c_char * (count * dtype.itemsize)).from_address(ptr) if count else bytearray()
    return np.frombuffer(buffer, dtype=dtype, count=count).reshape(shape)


def _dtype_of_number(npy_type: int) -> np.dtype:
    for type_code in np.typecodes["All"]:
        dtype = np.dtype(type_code)
        if dtype.num == npy_type and dtype.kind != "V":
            return dtype
    raise ValueError(f"acl.util.ptr_to_numpy: {npy_type} is not a NumPy type number")
