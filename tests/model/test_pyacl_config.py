"""pyACL's config setters take Python values: `acl.mdl.set_config_opt(handle, attr, int | str)` and
`acl.mdl.set_exec_config_opt(handle, attr, int)`, as the official samples call them (the C names in
`ascendcl` keep the C shape: an address and a size). The path string is copied when set."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from exec_helpers import DeviceBuffers, add_relu_add, compile_model, reference

import acl
from ascendcl import (
    ACL_ERROR_INVALID_PARAM,
    ACL_MDL_LOAD_FROM_FILE,
    ACL_MDL_LOAD_FROM_FILE_WITH_MEM,
    ACL_MDL_LOAD_TYPE_SIZET,
    ACL_MDL_PATH_PTR,
    ACL_MDL_PRIORITY_INT32,
    ACL_MDL_STREAM_SYNC_TIMEOUT,
    ACL_MDL_WEIGHT_ADDR_PTR,
    ACL_MDL_WEIGHT_SIZET,
    ACL_MDL_WORK_ADDR_PTR,
    ACL_MDL_WORK_SIZET,
    ACL_MDL_WORKSPACE_ADDR_PTR,
    ACL_MDL_WORKSPACE_MEM_OPTIMIZE,
    ACL_MDL_WORKSPACE_SIZET,
    ACL_MEM_MALLOC_HUGE_FIRST,
    ACL_SUCCESS,
)


def test_official_sample_config_flow(tmp_path: Path, device: int, stream: int) -> None:
    model = add_relu_add()
    path = str(compile_model(model, tmp_path, "sample"))
    handle = acl.mdl.create_config_handle()
    assert acl.mdl.set_config_opt(handle, ACL_MDL_LOAD_TYPE_SIZET, ACL_MDL_LOAD_FROM_FILE) == ACL_SUCCESS
    assert acl.mdl.set_config_opt(handle, ACL_MDL_PATH_PTR, path) == ACL_SUCCESS  # its C copy is freed at once
    assert acl.mdl.set_config_opt(handle, ACL_MDL_WORKSPACE_MEM_OPTIMIZE, 1) == ACL_SUCCESS
    assert acl.mdl.set_config_opt(handle, ACL_MDL_PRIORITY_INT32, 0) == ACL_SUCCESS
    model_id, ret = acl.mdl.load_with_config(handle)
    assert ret == ACL_SUCCESS, acl.get_recent_err_msg()
    assert acl.mdl.destroy_config_handle(handle) == ACL_SUCCESS

    exec_config = acl.mdl.create_exec_config_handle()
    assert acl.mdl.set_exec_config_opt(exec_config, ACL_MDL_STREAM_SYNC_TIMEOUT, 5000) == ACL_SUCCESS
    assert acl.mdl.set_exec_config_opt(exec_config, ACL_MDL_STREAM_SYNC_TIMEOUT, 0) == ACL_ERROR_INVALID_PARAM
    work_size, _, ret = acl.mdl.query_size(path)
    work, ret = acl.rt.malloc(max(work_size, 1), ACL_MEM_MALLOC_HUGE_FIRST)
    assert acl.mdl.set_exec_config_opt(exec_config, ACL_MDL_WORK_ADDR_PTR, work) == ACL_SUCCESS
    assert acl.mdl.set_exec_config_opt(exec_config, ACL_MDL_WORK_SIZET, max(work_size, 1)) == ACL_SUCCESS
    x = np.linspace(-2, 2, 16, dtype=np.float32).reshape(1, 16)
    ins, outs = DeviceBuffers([x]), DeviceBuffers([np.zeros_like(x)])
    assert acl.mdl.execute_v2(model_id, ins.dataset, outs.dataset, stream, exec_config) == ACL_SUCCESS
    np.testing.assert_allclose(outs.read()[0], reference(model, {"x": x})[0], rtol=1e-6, atol=1e-6)
    ins.close()
    outs.close()
    assert acl.mdl.destroy_exec_config_handle(exec_config) == ACL_SUCCESS
    assert acl.rt.free(work) == ACL_SUCCESS
    assert acl.mdl.unload(model_id) == ACL_SUCCESS


def test_load_with_config_in_user_memory(tmp_path: Path, device: int) -> None:
    path = str(compile_model(add_relu_add(), tmp_path, "mem", disabled_passes=["elementwise_fusion"]))
    work_size, weight_size, ret = acl.mdl.query_size(path)
    assert ret == ACL_SUCCESS and work_size > 0 and weight_size > 0
    work, _ = acl.rt.malloc(work_size, ACL_MEM_MALLOC_HUGE_FIRST)
    weight, _ = acl.rt.malloc(weight_size, ACL_MEM_MALLOC_HUGE_FIRST)
    handle = acl.mdl.create_config_handle()
    for attr, value in ((ACL_MDL_LOAD_TYPE_SIZET, ACL_MDL_LOAD_FROM_FILE_WITH_MEM), (ACL_MDL_PATH_PTR, path),
                        (ACL_MDL_WORKSPACE_ADDR_PTR, work), (ACL_MDL_WORKSPACE_SIZET, work_size),
                        (ACL_MDL_WEIGHT_ADDR_PTR, weight), (ACL_MDL_WEIGHT_SIZET, weight_size)):
        assert acl.mdl.set_config_opt(handle, attr, value) == ACL_SUCCESS
    model_id, ret = acl.mdl.load_with_config(handle)
    assert ret == ACL_SUCCESS, acl.get_recent_err_msg()
    assert acl.mdl.unload(model_id) == ACL_SUCCESS
    assert acl.mdl.destroy_config_handle(handle) == ACL_SUCCESS
    assert acl.rt.free(work) == ACL_SUCCESS and acl.rt.free(weight) == ACL_SUCCESS


def test_wrong_value_types_are_type_errors(device: int) -> None:
    handle = acl.mdl.create_config_handle()
    with pytest.raises(TypeError, match="takes a str"):
        acl.mdl.set_config_opt(handle, ACL_MDL_PATH_PTR, 1234)
    with pytest.raises(TypeError, match="takes an int"):
        acl.mdl.set_config_opt(handle, ACL_MDL_LOAD_TYPE_SIZET, "1")
    assert acl.mdl.set_config_opt(handle, ACL_MDL_LOAD_TYPE_SIZET, 99) == ACL_ERROR_INVALID_PARAM
    assert "load type 99" in acl.get_recent_err_msg()
    _, ret = acl.mdl.load_with_config(handle)
    assert ret == ACL_ERROR_INVALID_PARAM and "ACL_MDL_LOAD_TYPE_SIZET" in acl.get_recent_err_msg()
    assert acl.mdl.destroy_config_handle(handle) == ACL_SUCCESS
