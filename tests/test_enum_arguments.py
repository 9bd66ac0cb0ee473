"""Enum arguments given ints their enum does not have (issue 13). A C caller may pass any int for a C enum
(aclrtMemcpy(..., 3072)); in C++ such a value must not be stored in an enum-typed field or loaded as the enum
(undefined behaviour, which UBSan reports). A function that checks the value refuses it, naming it, before
anything is stored; a value CANN takes as given (tensor descriptions describe with any dtype, format or
placement) is kept as an int, handed back unchanged, and refused where the description is used."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

import acl
import ascendcl as c
from ascendcl import (
    ACL_DT_UNDEFINED,
    ACL_ERROR_API_NOT_SUPPORT,
    ACL_ERROR_GE_FORMAT_INVALID,
    ACL_ERROR_INVALID_PARAM,
    ACL_FLOAT,
    ACL_FLOAT16,
    ACL_FORMAT_NCHW,
    ACL_FORMAT_ND,
    ACL_MDL_INPUTQ_NUM_SIZET,
    ACL_MEM_MALLOC_HUGE_FIRST,
    ACL_RT_STREAM_PRIORITY,
    ACL_STRING,
    ACL_SUCCESS,
    aclDataTypeSize,
    aclGetRecentErrMsg,
)

OUT_OF_RANGE = (3072, -3072, 2**31 - 1)  # outside every enum's C++ range


def test_data_type_size_of_unknown_types() -> None:
    # CANN's aclDataTypeSize returns sizeof(int64_t) in its default case: 8 for any unknown value.
    for value in OUT_OF_RANGE:
        assert aclDataTypeSize(value) == 8
    assert aclDataTypeSize(ACL_STRING) == aclDataTypeSize(ACL_DT_UNDEFINED) == 0
    assert aclDataTypeSize(ACL_FLOAT16) == 2


def test_memcpy_kind(stream: int) -> None:
    device, ret = c.aclrtMalloc(64, ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == ACL_SUCCESS
    host = ctypes.create_string_buffer(64)
    for kind in OUT_OF_RANGE:
        assert c.aclrtMemcpy(device, 64, ctypes.addressof(host), 64, kind) == ACL_ERROR_INVALID_PARAM
        assert f"kind {kind} is not a valid aclrtMemcpyKind" in aclGetRecentErrMsg()
        assert c.aclrtMemcpyAsync(device, 64, ctypes.addressof(host), 64, kind, stream) == ACL_ERROR_INVALID_PARAM
        assert f"kind {kind} is not a valid aclrtMemcpyKind" in aclGetRecentErrMsg()
    assert c.aclrtFree(device) == ACL_SUCCESS


def test_enum_argument_travels_as_a_c_int(device: int) -> None:
    """From Python an enum argument is a C int end to end (csrc/python/fastcall.h, wire_t): -1 reaches the
    function as -1, and an int beyond int32 is an OverflowError, as pyACL's "i" format gives, where wrapping
    it into the enum's unsigned type made 2^32 + 1 the valid kind 1 (HOST_TO_DEVICE)."""
    device_ptr, ret = c.aclrtMalloc(64, ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == ACL_SUCCESS
    host = ctypes.create_string_buffer(64)
    assert c.aclrtMemcpy(device_ptr, 64, ctypes.addressof(host), 64, -1) == ACL_ERROR_INVALID_PARAM
    assert "kind -1 is not a valid aclrtMemcpyKind" in aclGetRecentErrMsg()
    for face in (c.aclrtMemcpy, acl.rt.memcpy):
        with pytest.raises(OverflowError):
            face(device_ptr, 64, ctypes.addressof(host), 64, (1 << 32) + 1)
    assert c.aclrtFree(device_ptr) == ACL_SUCCESS


def test_stream_config_attr(device: int) -> None:
    handle = c.aclrtCreateStreamConfigHandle()
    value = ctypes.c_uint32(5)
    for attr in (4, *OUT_OF_RANGE):
        assert c.aclrtSetStreamConfigOpt(handle, attr, ctypes.addressof(value), 4) == ACL_ERROR_INVALID_PARAM
        assert f"attr {attr} is not an aclrtStreamConfigAttr (0..3)" in aclGetRecentErrMsg()
    assert c.aclrtSetStreamConfigOpt(handle, ACL_RT_STREAM_PRIORITY, ctypes.addressof(value), 4) == ACL_SUCCESS
    assert c.aclrtDestroyStreamConfigHandle(handle) == ACL_SUCCESS


def test_model_config_attrs(device: int) -> None:
    config = c.aclmdlCreateConfigHandle()
    value = ctypes.c_size_t(1)
    for attr in (25, *OUT_OF_RANGE):  # not an attribute at all: a bad argument, not an unsupported attribute
        assert c.aclmdlSetConfigOpt(config, attr, ctypes.addressof(value), 8) == ACL_ERROR_INVALID_PARAM
        assert f"attribute {attr} is not an aclmdlConfigAttr (0..24)" in aclGetRecentErrMsg()
    assert c.aclmdlSetConfigOpt(config, ACL_MDL_INPUTQ_NUM_SIZET, ctypes.addressof(value), 8) == \
        ACL_ERROR_API_NOT_SUPPORT
    assert c.aclmdlDestroyConfigHandle(config) == ACL_SUCCESS
    exec_config = c.aclmdlCreateExecConfigHandle()
    for attr in (8, *OUT_OF_RANGE):
        assert c.aclmdlSetExecConfigOpt(exec_config, attr, ctypes.addressof(value), 8) == ACL_ERROR_INVALID_PARAM
        assert f"attribute {attr} is not an aclmdlExecConfigAttr (0..7)" in aclGetRecentErrMsg()
    assert c.aclmdlDestroyExecConfigHandle(exec_config) == ACL_SUCCESS


def test_tensor_desc_keeps_any_int(device: int) -> None:
    desc = acl.create_tensor_desc(3072, [2, 3], -3072)
    assert acl.get_tensor_desc_type(desc) == 3072 and acl.get_tensor_desc_format(desc) == -3072
    assert acl.get_tensor_desc_size(desc) == 6 * 8  # an unknown type's size, as aclDataTypeSize
    assert c.aclSetTensorFormat(desc, 4096) == ACL_SUCCESS
    assert c.aclSetTensorOriginFormat(desc, 5000) == ACL_SUCCESS
    assert c.aclSetTensorPlaceMent(desc, 3072) == ACL_SUCCESS
    assert acl.get_tensor_desc_format(desc) == 5000
    assert acl.trans_tensor_desc_format(desc, ACL_FORMAT_NCHW) == (0, ACL_ERROR_GE_FORMAT_INVALID)
    assert "no format transfer from 5000 to NCHW" in aclGetRecentErrMsg()
    good = acl.create_tensor_desc(ACL_FLOAT, [1, 2, 3, 4], ACL_FORMAT_NCHW)
    assert acl.trans_tensor_desc_format(good, 3072) == (0, ACL_ERROR_GE_FORMAT_INVALID)
    assert "no format transfer from NCHW to 3072" in aclGetRecentErrMsg()
    acl.destroy_tensor_desc(good)
    acl.destroy_tensor_desc(desc)


def test_operator_refuses_a_description_its_enums_cannot_hold(stream: int) -> None:
    # "Checked where a description is used": before any conversion to the enum, naming the value.
    shape = [2, 3]
    good = acl.create_tensor_desc(ACL_FLOAT, shape, ACL_FORMAT_ND)
    data = np.zeros(6, np.float32)
    buffer = c.aclCreateDataBuffer(data.ctypes.data, data.nbytes)
    cases = [("data type 3072, which is not an aclDataType", acl.create_tensor_desc(3072, shape, ACL_FORMAT_ND)),
             ("format 3072, which is not an aclFormat", acl.create_tensor_desc(ACL_FLOAT, shape, 3072))]
    placed = acl.create_tensor_desc(ACL_FLOAT, shape, ACL_FORMAT_ND)
    assert c.aclSetTensorPlaceMent(placed, 3072) == ACL_SUCCESS
    cases.append(("placement 3072, which is not an aclMemType", placed))
    stored = acl.create_tensor_desc(ACL_FLOAT, shape, ACL_FORMAT_ND)
    assert c.aclSetTensorFormat(stored, -3072) == ACL_SUCCESS
    cases.append(("format -3072, which is not an aclFormat", stored))
    for words, bad in cases:
        assert c.aclopExecuteV2("Add", 2, [good, bad], [buffer, buffer], 1, [good], [buffer], 0, stream) == \
            ACL_ERROR_INVALID_PARAM
        message = aclGetRecentErrMsg()
        assert "aclopExecuteV2: inputDesc[1] has " + words in message, message
        assert c.aclopCompile("Add", 2, [good, good], 1, [bad], 0, 0, 0, None) == ACL_ERROR_INVALID_PARAM
        assert "aclopCompile: outputDesc[0] has " + words in aclGetRecentErrMsg()
        acl.destroy_tensor_desc(bad)
    assert c.aclDestroyDataBuffer(buffer) == ACL_SUCCESS
    acl.destroy_tensor_desc(good)
