"""Tensor descriptions (acl_base.h) through both Python faces: pyACL's `acl` (dims and ranges as lists) and
the C names of `ascendcl` (dims as addresses of int64 arrays). Semantics are CANN's, quirks included:
getters read the origin format/dims, aclSetTensorFormat/Shape set the storage ones; format setters accept
a NULL desc; a negative dim makes the element count 0; dims {-2} is ACL_UNKNOWN_RANK; no dtype, format or
rank limit when describing. Beyond CANN, dead handles are refused instead of crashing."""

from __future__ import annotations

import ctypes
import threading

import numpy as np
import pytest

import acl
import ascendcl as c
from acl_helpers import TESTS, Compiler, run_python
from ascendcl import (
    ACL_BOOL,
    ACL_DT_UNDEFINED,
    ACL_ERROR_API_NOT_SUPPORT,
    ACL_ERROR_GE_DATATYPE_INVALID,
    ACL_ERROR_GE_FORMAT_INVALID,
    ACL_ERROR_GE_SHAPE_INVALID,
    ACL_ERROR_INVALID_PARAM,
    ACL_FLOAT,
    ACL_FLOAT16,
    ACL_FORMAT_FRACTAL_Z,
    ACL_FORMAT_HWCN,
    ACL_FORMAT_NC1HWC0,
    ACL_FORMAT_NCHW,
    ACL_FORMAT_ND,
    ACL_FORMAT_NHWC,
    ACL_FORMAT_UNDEFINED,
    ACL_INT8,
    ACL_INT64,
    ACL_MEMTYPE_HOST,
    ACL_SUCCESS,
    ACL_UNKNOWN_RANK,
    aclGetRecentErrMsg,
)

INVALID = ACL_ERROR_INVALID_PARAM


def int64_array(values: list[int]) -> ctypes.Array:
    return (ctypes.c_int64 * max(len(values), 1))(*values)


@pytest.fixture
def desc() -> int:
    handle = acl.create_tensor_desc(ACL_FLOAT16, [2, 3, 5, 7], ACL_FORMAT_NCHW)
    assert handle != 0
    yield handle
    acl.destroy_tensor_desc(handle)


def dead_desc() -> int:
    handle = acl.create_tensor_desc(ACL_FLOAT, [1], ACL_FORMAT_ND)
    acl.destroy_tensor_desc(handle)
    return handle


# pyACL's tensor-description functions (its acl module table).
PYACL_NAMES = [
    "create_tensor_desc", "destroy_tensor_desc", "get_tensor_desc_type", "get_tensor_desc_format",
    "get_tensor_desc_size", "get_tensor_desc_element_count", "get_tensor_desc_num_dims", "get_tensor_desc_dim",
    "get_tensor_desc_name", "set_tensor_desc_name", "trans_tensor_desc_format", "set_tensor_storage_format",
    "set_tensor_storage_shape", "set_tensor_format", "set_tensor_shape", "set_tensor_origin_format",
    "set_tensor_dynamic_input", "set_tensor_origin_shape", "set_tensor_shape_range", "get_tensor_desc_address",
    "get_tensor_desc_by_index", "get_tensor_desc_dim_range", "get_tensor_desc_dim_v2", "set_tensor_place_ment",
    "set_tensor_const", "set_tensor_value_range",
]


def test_pyacl_has_every_tensor_desc_function() -> None:
    assert [name for name in PYACL_NAMES if not callable(getattr(acl, name, None))] == []
    assert callable(acl.mdl.set_dataset_tensor_desc) and callable(acl.mdl.get_dataset_tensor_desc)


# ---- create and read back ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_INT64, ACL_BOOL])
def test_create_and_read_back(dtype: int) -> None:
    desc = acl.create_tensor_desc(dtype, [4, 1, 6], ACL_FORMAT_ND)
    try:
        assert acl.get_tensor_desc_type(desc) == dtype
        assert acl.get_tensor_desc_format(desc) == ACL_FORMAT_ND
        assert acl.get_tensor_desc_num_dims(desc) == 3
        assert [acl.get_tensor_desc_dim(desc, i) for i in range(3)] == [4, 1, 6]
        assert [acl.get_tensor_desc_dim_v2(desc, i) for i in range(3)] == [(4, 0), (1, 0), (6, 0)]
        assert acl.get_tensor_desc_element_count(desc) == 24
        assert acl.get_tensor_desc_size(desc) == 24 * acl.data_type_size(dtype)
        assert acl.get_tensor_desc_name(desc) == ""
    finally:
        acl.destroy_tensor_desc(desc)


def test_c_face_takes_dims_as_an_address() -> None:
    dims = int64_array([3, 8])
    desc = c.aclCreateTensorDesc(ACL_FLOAT, 2, ctypes.addressof(dims), ACL_FORMAT_ND)
    try:
        assert c.aclGetTensorDescNumDims(desc) == 2
        assert c.aclGetTensorDescDimV2(desc, 1) == (8, ACL_SUCCESS)
        assert c.aclGetTensorDescSize(desc) == 96
        assert acl.create_tensor_desc is not c.aclCreateTensorDesc  # pyACL's takes a list
        assert acl.get_tensor_desc_size is c.aclGetTensorDescSize  # the rest are the same function objects
    finally:
        assert c.aclDestroyTensorDesc(desc) is None


def test_scalar_has_one_element() -> None:
    desc = acl.create_tensor_desc(ACL_INT64, [], ACL_FORMAT_ND)
    assert desc != 0
    assert acl.get_tensor_desc_num_dims(desc) == 0
    assert acl.get_tensor_desc_element_count(desc) == 1
    assert acl.get_tensor_desc_size(desc) == 8
    acl.destroy_tensor_desc(desc)
    desc = c.aclCreateTensorDesc(ACL_INT64, 0, 0, ACL_FORMAT_ND)  # no dims: NULL is fine
    assert desc != 0 and acl.get_tensor_desc_element_count(desc) == 1
    acl.destroy_tensor_desc(desc)


def test_dynamic_dims_and_unknown_rank() -> None:
    dynamic = acl.create_tensor_desc(ACL_FLOAT, [-1, 16], ACL_FORMAT_ND)
    unknown = acl.create_tensor_desc(ACL_FLOAT, [-2], ACL_FORMAT_ND)
    try:
        assert acl.get_tensor_desc_dim(dynamic, 0) == -1
        assert acl.get_tensor_desc_num_dims(dynamic) == 2
        assert acl.get_tensor_desc_element_count(dynamic) == 0
        assert "[-1,16]" in aclGetRecentErrMsg()
        assert acl.get_tensor_desc_size(dynamic) == 0
        assert acl.get_tensor_desc_num_dims(unknown) == ACL_UNKNOWN_RANK == 0xFFFFFFFFFFFFFFFE
        assert acl.get_tensor_desc_size(unknown) == 0
    finally:
        acl.destroy_tensor_desc(dynamic)
        acl.destroy_tensor_desc(unknown)


def test_element_count_overflow_is_zero_with_a_message() -> None:
    desc = acl.create_tensor_desc(ACL_FLOAT, [2**40, 2**40], ACL_FORMAT_ND)
    assert acl.get_tensor_desc_element_count(desc) == 0
    assert "too large" in aclGetRecentErrMsg()
    acl.destroy_tensor_desc(desc)
    desc = acl.create_tensor_desc(ACL_FLOAT, [2**62], ACL_FORMAT_ND)  # count fits, bytes do not
    assert acl.get_tensor_desc_element_count(desc) == 2**62
    assert acl.get_tensor_desc_size(desc) == 0
    assert "overflow" in aclGetRecentErrMsg()
    acl.destroy_tensor_desc(desc)


def test_no_dtype_format_or_rank_limit_when_describing() -> None:
    """CANN checks these where a description is used (aclop, models), not when describing."""
    many = acl.create_tensor_desc(ACL_FLOAT, [1] * 200, ACL_FORMAT_ND)  # more than ACL_MAX_DIM_CNT
    assert acl.get_tensor_desc_num_dims(many) == 200 and acl.get_tensor_desc_element_count(many) == 1
    acl.destroy_tensor_desc(many)
    odd = acl.create_tensor_desc(9999, [2], 12345)
    assert acl.get_tensor_desc_type(odd) == 9999 and acl.get_tensor_desc_format(odd) == 12345
    assert acl.get_tensor_desc_size(odd) == 2 * acl.data_type_size(9999)
    acl.destroy_tensor_desc(odd)
    undefined = acl.create_tensor_desc(ACL_DT_UNDEFINED, [2], ACL_FORMAT_UNDEFINED)
    assert acl.get_tensor_desc_size(undefined) == 0
    assert "data type -1 has no element size" in aclGetRecentErrMsg()
    acl.destroy_tensor_desc(undefined)


def test_create_refuses_negative_num_dims_and_null_dims() -> None:
    dims = int64_array([1, 2])
    assert c.aclCreateTensorDesc(ACL_FLOAT, -1, ctypes.addressof(dims), ACL_FORMAT_ND) == 0
    assert "numDims -1 is negative" in aclGetRecentErrMsg()
    assert c.aclCreateTensorDesc(ACL_FLOAT, 2, 0, ACL_FORMAT_ND) == 0
    assert "'dims' is NULL" in aclGetRecentErrMsg()


@pytest.mark.parametrize("dims", [(2, 3), None, "23", [2, "3"], [2.0]])
def test_pyacl_create_needs_a_list_of_ints(dims: object) -> None:
    with pytest.raises(TypeError):
        acl.create_tensor_desc(ACL_FLOAT, dims, ACL_FORMAT_ND)
    with pytest.raises(TypeError):
        acl.create_tensor_desc(ACL_FLOAT, [2])


# ---- bad handles and indexes --------------------------------------------------------------------------

def test_getters_on_null_and_dead_handles() -> None:
    for handle in (0, dead_desc()):
        assert acl.get_tensor_desc_type(handle) == ACL_DT_UNDEFINED
        assert acl.get_tensor_desc_format(handle) == ACL_FORMAT_UNDEFINED
        assert acl.get_tensor_desc_size(handle) == 0
        assert acl.get_tensor_desc_element_count(handle) == 0
        assert acl.get_tensor_desc_num_dims(handle) == 0
        assert acl.get_tensor_desc_dim(handle, 0) == -1
        assert acl.get_tensor_desc_dim_v2(handle, 0)[1] == INVALID
        assert acl.get_tensor_desc_name(handle) == ""
        assert acl.get_tensor_desc_address(handle) == 0
        assert acl.get_tensor_desc_by_index(handle, 0) == 0
        message = aclGetRecentErrMsg()
        assert ("is NULL" in message) if handle == 0 else ("not a live tensor description" in message)


def test_dim_index_out_of_range(desc: int) -> None:
    assert acl.get_tensor_desc_dim(desc, 4) == -1
    assert "index 4 is out of range: the description has 4 dims" in aclGetRecentErrMsg()
    assert acl.get_tensor_desc_dim_v2(desc, 4)[1] == INVALID
    assert acl.get_tensor_desc_dim_v2(desc, -1)[1] == INVALID  # wraps to SIZE_MAX, as pyACL's "k"
    assert acl.get_tensor_desc_dim(desc, 2**64 - 1) == -1


def test_destroy_null_dead_and_twice() -> None:
    aclGetRecentErrMsg()  # clears
    assert acl.destroy_tensor_desc(0) is None
    assert aclGetRecentErrMsg() == ""
    handle = dead_desc()
    acl.destroy_tensor_desc(handle)
    assert "not a live tensor description" in aclGetRecentErrMsg()


def test_by_index_and_address(desc: int) -> None:
    assert acl.get_tensor_desc_by_index(desc, 0) == desc
    assert acl.get_tensor_desc_by_index(desc, 1) == 0
    assert "index 1 is out of range" in aclGetRecentErrMsg()
    aclGetRecentErrMsg()  # clears
    assert acl.get_tensor_desc_address(desc) == 0  # only aclmdlCreateAndGetOpDesc's descriptions have one
    assert aclGetRecentErrMsg() == ""


# ---- origin and storage layouts ------------------------------------------------------------------------

def test_storage_setters_leave_the_origin_the_getters_read(desc: int) -> None:
    assert acl.set_tensor_format(desc, ACL_FORMAT_NC1HWC0) == ACL_SUCCESS
    assert acl.set_tensor_shape(desc, [2, 1, 5, 7, 16]) == ACL_SUCCESS
    assert acl.set_tensor_storage_format(desc, ACL_FORMAT_NC1HWC0) == ACL_SUCCESS
    assert acl.set_tensor_storage_shape(desc, [2, 1, 5, 7, 16]) == ACL_SUCCESS
    assert acl.get_tensor_desc_format(desc) == ACL_FORMAT_NCHW
    assert acl.get_tensor_desc_num_dims(desc) == 4
    assert acl.set_tensor_origin_format(desc, ACL_FORMAT_NHWC) == ACL_SUCCESS
    assert acl.set_tensor_origin_shape(desc, [2, 5, 7, 3]) == ACL_SUCCESS
    assert acl.get_tensor_desc_format(desc) == ACL_FORMAT_NHWC
    assert [acl.get_tensor_desc_dim(desc, i) for i in range(4)] == [2, 5, 7, 3]
    assert acl.set_tensor_origin_shape(desc, []) == ACL_SUCCESS  # a scalar
    assert acl.get_tensor_desc_num_dims(desc) == 0 and acl.get_tensor_desc_element_count(desc) == 1


@pytest.mark.parametrize("setter", ["aclSetTensorFormat", "aclSetTensorStorageFormat", "aclSetTensorOriginFormat"])
def test_format_setters_accept_null_but_not_dead_handles(setter: str) -> None:
    function = getattr(c, setter)
    assert function(0, ACL_FORMAT_ND) == ACL_SUCCESS  # CANN ignores a NULL desc here
    assert function(dead_desc(), ACL_FORMAT_ND) == INVALID
    assert "not a live tensor description" in aclGetRecentErrMsg()


@pytest.mark.parametrize("setter", ["aclSetTensorShape", "aclSetTensorStorageShape", "aclSetTensorOriginShape"])
def test_shape_setters_bad_inputs(setter: str, desc: int) -> None:
    function = getattr(c, setter)
    dims = int64_array([4, 4])
    assert function(0, 2, ctypes.addressof(dims)) == INVALID
    assert "'desc' is NULL" in aclGetRecentErrMsg()
    assert function(desc, 2, 0) == INVALID
    assert "'dims' is NULL" in aclGetRecentErrMsg()
    assert function(dead_desc(), 2, ctypes.addressof(dims)) == INVALID
    assert function(desc, -3, ctypes.addressof(dims)) == ACL_SUCCESS  # CANN: a negative count sets no dims
    pyacl = {"aclSetTensorShape": acl.set_tensor_shape, "aclSetTensorStorageShape": acl.set_tensor_storage_shape,
             "aclSetTensorOriginShape": acl.set_tensor_origin_shape}[setter]
    with pytest.raises(TypeError):
        pyacl(desc, (1, 2))


def test_origin_shape_negative_count_clears_the_dims(desc: int) -> None:
    dims = int64_array([4])
    assert c.aclSetTensorOriginShape(desc, -1, ctypes.addressof(dims)) == ACL_SUCCESS
    assert acl.get_tensor_desc_num_dims(desc) == 0


# ---- ranges ------------------------------------------------------------------------------------------------

def test_shape_range_round_trip(desc: int) -> None:
    assert acl.get_tensor_desc_dim_range(desc, 0, 2) == (None, INVALID)  # no ranges yet
    assert "has 0 dim ranges" in aclGetRecentErrMsg()
    assert acl.set_tensor_shape_range(desc, [[1, 4], [3, -1]]) == ACL_SUCCESS
    assert acl.get_tensor_desc_dim_range(desc, 1, 2) == ([3, -1], ACL_SUCCESS)
    assert acl.get_tensor_desc_dim_range(desc, 0, 4) == ([1, 4, 0, 0], ACL_SUCCESS)  # pyACL: dim_range_num ints
    assert c.aclGetTensorDescDimRange is acl.get_tensor_desc_dim_range
    assert acl.get_tensor_desc_dim_range(desc, 2, 2) == (None, INVALID)
    assert acl.get_tensor_desc_dim_range(desc, 0, 1) == (None, INVALID)
    assert "dimRangeNum 1 is smaller than 2" in aclGetRecentErrMsg()
    assert acl.get_tensor_desc_dim_range(desc, 0, 4097) == (None, INVALID)  # pyACL's bound
    assert acl.get_tensor_desc_dim_range(0, 0, 2) == (None, INVALID)
    assert acl.set_tensor_shape_range(desc, []) == ACL_SUCCESS  # replaces: none left
    assert acl.get_tensor_desc_dim_range(desc, 0, 2) == (None, INVALID)


def test_shape_range_through_the_c_face(desc: int) -> None:
    ranges = int64_array([1, 8, 2, 2])
    assert c.aclSetTensorShapeRange(desc, 2, ctypes.addressof(ranges)) == ACL_SUCCESS
    assert acl.get_tensor_desc_dim_range(desc, 0, 2) == ([1, 8], ACL_SUCCESS)
    assert c.aclSetTensorShapeRange(desc, 2, 0) == INVALID
    assert "'dimsRange' is NULL with a count of 2" in aclGetRecentErrMsg()
    assert c.aclSetTensorShapeRange(0, 0, 0) == INVALID
    assert c.aclSetTensorValueRange(desc, 1, 0) == INVALID
    assert c.aclSetTensorValueRange(desc, 2, ctypes.addressof(ranges)) == ACL_SUCCESS


@pytest.mark.parametrize("ranges", [[1, 2], [[1, 2, 3]], [[1]], ((1, 2),), [[1, "x"]], None])
def test_pyacl_ranges_need_lists_of_pairs(ranges: object, desc: int) -> None:
    with pytest.raises(TypeError):
        acl.set_tensor_shape_range(desc, ranges)
    with pytest.raises(TypeError):
        acl.set_tensor_value_range(desc, ranges)


def test_value_range(desc: int) -> None:
    assert acl.set_tensor_value_range(desc, [[0, 10], [-5, 5]]) == ACL_SUCCESS
    assert acl.set_tensor_value_range(0, [[0, 1]]) == INVALID
    assert acl.set_tensor_value_range(dead_desc(), [[0, 1]]) == INVALID


def test_range_counts_are_bounded(desc: int) -> None:
    """The counts are bounded before anything is allocated: ACL_MAX_DIM_CNT shape ranges (one per dim), 2^20
    value ranges; a larger count is refused naming it, and the ranges set before stay."""
    ranges = np.tile(np.array([1, 2], np.int64), (1 << 20) + 1)
    assert c.aclSetTensorShapeRange(desc, 128, ranges.ctypes.data) == ACL_SUCCESS
    assert c.aclSetTensorShapeRange(desc, 129, ranges.ctypes.data) == INVALID
    assert "aclSetTensorShapeRange: dimsCount 129 is larger than 128" in aclGetRecentErrMsg()
    assert acl.get_tensor_desc_dim_range(desc, 127, 2) == ([1, 2], ACL_SUCCESS)
    assert c.aclSetTensorValueRange(desc, 1 << 20, ranges.ctypes.data) == ACL_SUCCESS
    assert c.aclSetTensorValueRange(desc, (1 << 20) + 1, ranges.ctypes.data) == INVALID
    assert f"valueCount {(1 << 20) + 1} is larger than {1 << 20}" in aclGetRecentErrMsg()


HUGE_COUNTS = """
import ctypes

import acl
import ascendcl as c

desc = acl.create_tensor_desc(c.ACL_FLOAT, [2], c.ACL_FORMAT_ND)
ranges = (ctypes.c_int64 * 4)(1, 2, 3, 4)
for setter, name in ((c.aclSetTensorShapeRange, "dimsCount"), (c.aclSetTensorValueRange, "valueCount")):
    for count in (2**62, 2**64 - 1):
        assert setter(desc, count, ctypes.addressof(ranges)) == c.ACL_ERROR_INVALID_PARAM
        assert f"{name} {count} is larger than" in c.aclGetRecentErrMsg()
for length in (2**62, 2**64 - 1):  # more than the host has; more than any vector holds (std::length_error)
    assert c.aclSetTensorConst(desc, ctypes.addressof(ranges), length) == c.ACL_ERROR_BAD_ALLOC
    message = c.aclGetRecentErrMsg()
    assert "aclSetTensorConst: length " + str(length) in message, message
acl.destroy_tensor_desc(desc)
print("ok")
"""


def test_huge_counts_are_errors_not_aborts() -> None:
    """Issue 13: a range count of 2^62 or SIZE_MAX threw std::length_error out of the C API and a SIZE_MAX const
    length std::length_error (the process aborted). Run in a fresh process, where an abort is an exit code."""
    result = run_python(HUGE_COUNTS)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stdout + result.stderr


# ---- name, dynamic input, const, placement ------------------------------------------------------------------

def test_name(desc: int) -> None:
    assert acl.set_tensor_desc_name(desc, "input_0") is None
    assert acl.get_tensor_desc_name(desc) == "input_0"
    acl.set_tensor_desc_name(desc, "")
    assert acl.get_tensor_desc_name(desc) == ""
    assert acl.set_tensor_desc_name(0, "x") is None
    assert "'desc' is NULL" in aclGetRecentErrMsg()
    with pytest.raises(TypeError):
        acl.set_tensor_desc_name(desc, None)


def test_dynamic_input(desc: int) -> None:
    assert acl.set_tensor_dynamic_input(desc, "x") == ACL_SUCCESS
    assert acl.set_tensor_dynamic_input(0, "x") == INVALID
    assert acl.set_tensor_dynamic_input(dead_desc(), "x") == INVALID


def test_const_data(desc: int) -> None:
    values = np.arange(6, dtype=np.float32)
    assert acl.set_tensor_const(desc, values.ctypes.data, values.nbytes) == ACL_SUCCESS
    assert acl.set_tensor_const(desc, values.ctypes.data, 0) == INVALID
    assert "length is 0" in aclGetRecentErrMsg()
    assert acl.set_tensor_const(desc, 0, 4) == INVALID
    assert "'dataBuffer' is NULL" in aclGetRecentErrMsg()
    assert acl.set_tensor_const(0, values.ctypes.data, 4) == INVALID
    assert acl.set_tensor_const(dead_desc(), values.ctypes.data, 4) == INVALID


def test_placement(desc: int) -> None:
    assert acl.set_tensor_place_ment(desc, ACL_MEMTYPE_HOST) == ACL_SUCCESS
    assert acl.set_tensor_place_ment(0, ACL_MEMTYPE_HOST) == INVALID
    assert acl.set_tensor_place_ment(dead_desc(), ACL_MEMTYPE_HOST) == INVALID


# ---- format translation -----------------------------------------------------------------------------------

def dims_of(desc: int) -> list[int]:
    return [acl.get_tensor_desc_dim(desc, i) for i in range(acl.get_tensor_desc_num_dims(desc))]


@pytest.mark.parametrize(("src", "dims", "dtype", "dst", "expected"), [
    (ACL_FORMAT_NCHW, [2, 3, 5, 7], ACL_FLOAT, ACL_FORMAT_NHWC, [2, 5, 7, 3]),
    (ACL_FORMAT_NCHW, [2, 3, 5, 7], ACL_FLOAT, ACL_FORMAT_HWCN, [5, 7, 3, 2]),
    (ACL_FORMAT_NHWC, [2, 5, 7, 3], ACL_FLOAT, ACL_FORMAT_NCHW, [2, 3, 5, 7]),
    (ACL_FORMAT_NHWC, [2, 5, 7, 3], ACL_FLOAT, ACL_FORMAT_HWCN, [5, 7, 3, 2]),
    (ACL_FORMAT_HWCN, [5, 7, 3, 2], ACL_FLOAT, ACL_FORMAT_NCHW, [2, 3, 5, 7]),
    (ACL_FORMAT_HWCN, [5, 7, 3, 2], ACL_FLOAT, ACL_FORMAT_NHWC, [2, 5, 7, 3]),
    (ACL_FORMAT_NCHW, [1, 3, 224, 224], ACL_FLOAT16, ACL_FORMAT_NC1HWC0, [1, 1, 224, 224, 16]),  # GE's own test
    (ACL_FORMAT_NCHW, [1, 33, 4, 4], ACL_FLOAT, ACL_FORMAT_NC1HWC0, [1, 3, 4, 4, 16]),
    (ACL_FORMAT_NCHW, [1, 33, 4, 4], ACL_INT8, ACL_FORMAT_NC1HWC0, [1, 2, 4, 4, 32]),
    (ACL_FORMAT_NHWC, [1, 4, 4, 17], ACL_FLOAT16, ACL_FORMAT_NC1HWC0, [1, 2, 4, 4, 16]),
])
def test_trans_format(src: int, dims: list[int], dtype: int, dst: int, expected: list[int]) -> None:
    desc = acl.create_tensor_desc(dtype, dims, src)
    out, ret = acl.trans_tensor_desc_format(desc, dst)
    try:
        assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
        assert out not in (0, desc)
        assert dims_of(out) == expected
        assert acl.get_tensor_desc_type(out) == dtype
        assert acl.get_tensor_desc_format(out) == src  # CANN keeps the source format on the result
        assert dims_of(desc) == dims  # the source is unchanged
    finally:
        acl.destroy_tensor_desc(out)
        acl.destroy_tensor_desc(desc)


@pytest.mark.parametrize(("case", "code", "text"), [
    ((ACL_FORMAT_NCHW, [1, 2, 3, 4], ACL_FLOAT, ACL_FORMAT_NCHW), ACL_ERROR_GE_FORMAT_INVALID, "from NCHW to NCHW"),
    ((ACL_FORMAT_ND, [1, 2, 3, 4], ACL_FLOAT, ACL_FORMAT_NCHW), ACL_ERROR_GE_FORMAT_INVALID, "from ND to NCHW"),
    ((ACL_FORMAT_NCHW, [1, 2, 3, 4], ACL_FLOAT, ACL_FORMAT_ND), ACL_ERROR_GE_FORMAT_INVALID, "from NCHW to ND"),
    ((ACL_FORMAT_NC1HWC0, [1, 1, 3, 4, 16], ACL_FLOAT, ACL_FORMAT_NCHW), ACL_ERROR_GE_FORMAT_INVALID, "NC1HWC0"),
    ((ACL_FORMAT_NCHW, [1, 2, 3], ACL_FLOAT, ACL_FORMAT_NHWC), ACL_ERROR_GE_SHAPE_INVALID, "needs 4 known"),
    ((ACL_FORMAT_NCHW, [-1, 2, 3, 4], ACL_FLOAT, ACL_FORMAT_NHWC), ACL_ERROR_GE_SHAPE_INVALID, "[-1,2,3,4]"),
    ((ACL_FORMAT_NCHW, [1, 2, 3], ACL_FLOAT, ACL_FORMAT_NC1HWC0), ACL_ERROR_GE_SHAPE_INVALID, "needs 4 known"),
    ((ACL_FORMAT_NCHW, [1, 2, 3, 4], ACL_DT_UNDEFINED, ACL_FORMAT_NC1HWC0), ACL_ERROR_GE_DATATYPE_INVALID, "type -1"),
    ((ACL_FORMAT_NCHW, [1, 2, 3, 4], ACL_FLOAT, ACL_FORMAT_FRACTAL_Z), ACL_ERROR_API_NOT_SUPPORT, "FRACTAL_Z"),
    ((ACL_FORMAT_NCHW, [1, 2, 3, 4], ACL_FLOAT, 777), ACL_ERROR_GE_FORMAT_INVALID, "from NCHW to 777"),
])
def test_trans_format_errors(case: tuple[int, list[int], int, int], code: int, text: str) -> None:
    src, dims, dtype, dst = case
    desc = acl.create_tensor_desc(dtype, dims, src)
    assert acl.trans_tensor_desc_format(desc, dst) == (0, code)
    assert text in aclGetRecentErrMsg()
    acl.destroy_tensor_desc(desc)


def test_trans_format_bad_handles() -> None:
    assert acl.trans_tensor_desc_format(0, ACL_FORMAT_NHWC) == (0, INVALID)
    assert acl.trans_tensor_desc_format(dead_desc(), ACL_FORMAT_NHWC) == (0, INVALID)
    assert "srcDesc" in aclGetRecentErrMsg()


# ---- threads ---------------------------------------------------------------------------------------------

def test_one_description_read_and_written_from_threads(desc: int) -> None:
    """Each call sees a whole shape (4 or 2 dims of one setter call), never a torn one."""
    errors: list[str] = []

    def writer() -> None:
        for i in range(2000):
            acl.set_tensor_origin_shape(desc, [1, 2, 3, 4] if i % 2 else [9, 9])

    def reader() -> None:
        for _ in range(2000):
            count = acl.get_tensor_desc_element_count(desc)
            if count not in (24, 81):
                errors.append(f"element count {count}")

    threads = [threading.Thread(target=writer), threading.Thread(target=reader), threading.Thread(target=reader)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


# ---- the copies a dataset keeps (aclmdlSetDatasetTensorDesc / aclmdlGetDatasetTensorDesc) -------------------

@pytest.fixture
def dataset() -> int:
    handle = acl.mdl.create_dataset()
    buffers = [acl.create_data_buffer(0, 0) for _ in range(3)]
    for buffer in buffers:
        assert acl.mdl.add_dataset_buffer(handle, buffer) == (handle, ACL_SUCCESS)
    yield handle
    acl.mdl.destroy_dataset(handle)
    for buffer in buffers:
        acl.destroy_data_buffer(buffer)


def test_dataset_keeps_a_copy_per_buffer(dataset: int, desc: int) -> None:
    assert acl.mdl.get_dataset_tensor_desc(dataset, 1) == 0  # none set: NULL, no error
    assert acl.mdl.set_dataset_tensor_desc(dataset, desc, 1) == (dataset, ACL_SUCCESS)
    copy = acl.mdl.get_dataset_tensor_desc(dataset, 1)
    assert copy not in (0, desc)
    assert dims_of(copy) == [2, 3, 5, 7] and acl.get_tensor_desc_type(copy) == ACL_FLOAT16
    assert acl.mdl.get_dataset_tensor_desc(dataset, 0) == 0 and acl.mdl.get_dataset_tensor_desc(dataset, 2) == 0
    acl.set_tensor_origin_shape(desc, [4])  # the copy does not follow the user's description
    assert dims_of(copy) == [2, 3, 5, 7]
    assert acl.mdl.set_dataset_tensor_desc(dataset, desc, 1) == (dataset, ACL_SUCCESS)
    assert acl.mdl.get_dataset_tensor_desc(dataset, 1) == copy  # updated in place, as CANN
    assert dims_of(copy) == [4]
    assert c.aclmdlSetDatasetTensorDesc(dataset, 0, 1) == ACL_SUCCESS  # NULL removes it
    assert acl.mdl.get_dataset_tensor_desc(dataset, 1) == 0
    assert acl.get_tensor_desc_type(copy) == ACL_DT_UNDEFINED  # and destroys the copy
    assert c.aclmdlGetDatasetTensorDesc is acl.mdl.get_dataset_tensor_desc


def test_dataset_copy_is_not_the_users_to_destroy(dataset: int, desc: int) -> None:
    assert c.aclmdlSetDatasetTensorDesc(dataset, desc, 0) == ACL_SUCCESS
    copy = c.aclmdlGetDatasetTensorDesc(dataset, 0)
    acl.destroy_tensor_desc(copy)
    assert "belongs to a dataset" in aclGetRecentErrMsg()
    assert acl.get_tensor_desc_num_dims(copy) == 4  # still alive
    acl.destroy_tensor_desc(desc)  # the user's own: the copy is independent of it
    assert acl.get_tensor_desc_num_dims(copy) == 4  # (the fixture's second destroy of `desc` is refused)


def test_destroying_the_dataset_destroys_its_copies(desc: int) -> None:
    dataset = acl.mdl.create_dataset()
    buffer = acl.create_data_buffer(0, 0)
    acl.mdl.add_dataset_buffer(dataset, buffer)
    assert c.aclmdlSetDatasetTensorDesc(dataset, desc, 0) == ACL_SUCCESS
    copy = c.aclmdlGetDatasetTensorDesc(dataset, 0)
    assert acl.mdl.destroy_dataset(dataset) == ACL_SUCCESS
    assert acl.get_tensor_desc_type(copy) == ACL_DT_UNDEFINED
    assert "not a live tensor description" in aclGetRecentErrMsg()
    assert acl.get_tensor_desc_type(desc) == ACL_FLOAT16  # the user's own stays
    acl.destroy_data_buffer(buffer)


def test_dataset_desc_bad_inputs(dataset: int, desc: int) -> None:
    assert acl.mdl.set_dataset_tensor_desc(dataset, desc, 3) == (dataset, INVALID)
    assert "index 3 is out of range (the dataset has 3 buffers)" in aclGetRecentErrMsg()
    assert acl.mdl.set_dataset_tensor_desc(dataset, 0, 3) == (dataset, INVALID)  # checked before the desc
    assert acl.mdl.get_dataset_tensor_desc(dataset, 3) == 0
    assert "index 3 is out of range" in aclGetRecentErrMsg()
    assert acl.mdl.set_dataset_tensor_desc(0, desc, 0) == (0, INVALID)
    assert acl.mdl.get_dataset_tensor_desc(0, 0) == 0
    assert acl.mdl.set_dataset_tensor_desc(dataset, dead_desc(), 0) == (dataset, INVALID)
    assert "tensorDesc" in aclGetRecentErrMsg()
    dead = acl.mdl.create_dataset()
    acl.mdl.destroy_dataset(dead)
    assert acl.mdl.set_dataset_tensor_desc(dead, desc, 0) == (dead, INVALID)
    assert acl.mdl.get_dataset_tensor_desc(dead, 0) == 0
    assert "not live" in aclGetRecentErrMsg()


# ---- from C --------------------------------------------------------------------------------------------------

def test_c_program(compiler: Compiler) -> None:
    program = compiler.build(TESTS / "c" / "tensor_desc_flow.c")
    result = compiler.run(program)
    assert result.returncode == 0 and result.stdout.startswith("ok"), result.stdout + result.stderr


# ---- hardening ---------------------------------------------------------------------------------------------

FUZZ = r"""
import random
import threading

import acl

rng = random.Random(7)
INTS = [0, 1, -1, -2, 2, 3, 4, 16, 4096, 2**31 - 1, -2**31, 2**32 - 1, 2**63 - 1, 2**64 - 1, -2**63]
descs, datasets = [0], [0]


def pick_int():
    return rng.choice(INTS)


def pick_list(depth=0):
    items = [pick_int() if depth or rng.random() < 0.7 else [pick_int(), pick_int()] for _ in range(rng.randrange(6))]
    return items if rng.random() < 0.9 else [pick_int()] * rng.choice([129, 300])


def step():
    d, ds, i = rng.choice(descs), rng.choice(datasets), pick_int()
    if rng.random() < 0.05:
        d, ds = pick_int() % 2**64, pick_int() % 2**64  # made-up handles
    choice = rng.randrange(16)
    if choice == 0:
        descs.append(acl.create_tensor_desc(rng.choice([0, 1, 3, 9, -1, 9999]), pick_list(1), rng.choice([0, 2, 3, -1, 77])))
    elif choice == 1:
        acl.destroy_tensor_desc(d)
    elif choice == 2:
        for f in (acl.get_tensor_desc_type, acl.get_tensor_desc_format, acl.get_tensor_desc_size,
                  acl.get_tensor_desc_element_count, acl.get_tensor_desc_num_dims, acl.get_tensor_desc_name,
                  acl.get_tensor_desc_address):
            f(d)
    elif choice == 3:
        acl.get_tensor_desc_dim(d, i), acl.get_tensor_desc_dim_v2(d, i), acl.get_tensor_desc_by_index(d, i)
    elif choice == 4:
        acl.get_tensor_desc_dim_range(d, i, rng.choice([0, 1, 2, 5, 4096, 4097, 2**64 - 1]))
    elif choice == 5:
        rng.choice([acl.set_tensor_shape, acl.set_tensor_origin_shape, acl.set_tensor_storage_shape])(d, pick_list(1))
    elif choice == 6:
        try:
            rng.choice([acl.set_tensor_shape_range, acl.set_tensor_value_range])(d, pick_list())
        except TypeError:
            pass
    elif choice == 7:
        rng.choice([acl.set_tensor_format, acl.set_tensor_origin_format, acl.set_tensor_storage_format,
                    acl.set_tensor_place_ment])(d, rng.choice([0, 1, 2, -1, 2**31 - 1]))
    elif choice == 8:
        out, ret = acl.trans_tensor_desc_format(d, rng.choice([0, 1, 2, 3, 4, 16, 29, -1]))
        descs.append(out)
    elif choice == 9:
        acl.set_tensor_desc_name(d, rng.choice(["", "x", "y" * 300])), acl.set_tensor_dynamic_input(d, "x")
    elif choice == 10:
        ds_new = acl.mdl.create_dataset()
        for _ in range(rng.randrange(4)):
            acl.mdl.add_dataset_buffer(ds_new, acl.create_data_buffer(0, 0))
        datasets.append(ds_new)
    elif choice == 11:
        acl.mdl.set_dataset_tensor_desc(ds, d, rng.choice([0, 1, 2, 3, i]))
    elif choice == 12:
        got = acl.mdl.get_dataset_tensor_desc(ds, rng.choice([0, 1, 2, i]))
        descs.append(got)
    elif choice == 13:
        acl.mdl.destroy_dataset(ds)
    elif choice == 14:
        acl.set_tensor_const(d, acl.util.bytes_to_ptr(KEEP), rng.choice([0, 1, len(KEEP)]))
    else:
        acl.get_recent_err_msg()


KEEP = bytes(64)


def worker(seed):
    local = random.Random(seed)
    for _ in range(3000):
        rng.seed(local.random())
        step()


threads = [threading.Thread(target=worker, args=(s,)) for s in range(3)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("survived")
"""


def test_random_calls_never_crash() -> None:
    """Live, destroyed, dataset-owned and made-up handles, extreme ints, odd lists, from three threads."""
    result = run_python(FUZZ, timeout=300)
    assert result.returncode == 0 and "survived" in result.stdout, result.stdout[-2000:] + result.stderr[-4000:]
