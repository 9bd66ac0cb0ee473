"""Tensor descriptions in the datasets of a model execution, as CANN's aclmdlExecute treats them for the
models ascendsim compiles (static and gear models, which CANN runs as DavinciModel, not as dynamic-shape
models): the input descriptions do not change the execution (DavinciModel does not read them; the gear
comes from ascend_mbatch_shape_data), and when the input dataset holds any, every output buffer gets a
new, empty description afterwards (CANN's ModelExecute creates them; DavinciModel fills none), replacing
the previous ones. Without input descriptions the output descriptions are left as they are. The real
output dims of a gear model are read with aclmdlGetCurOutputDims.
Source: CANN's acl model execute path (ModelExecute -> GeExecutor::ExecModel -> ModelManager::ExecuteModel,
which passes input/output descriptions only to a dynamic-shape HybridDavinciModel)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from exec_helpers import DeviceBuffers, add_relu_add, compile_model, reference

import acl
from ascendcl import (
    ACL_DT_UNDEFINED,
    ACL_ERROR_GE_PARAM_INVALID,
    ACL_FLOAT,
    ACL_FORMAT_ND,
    ACL_FORMAT_UNDEFINED,
    ACL_SUCCESS,
    aclGetRecentErrMsg,
    aclmdlLoadFromFile,
    aclmdlUnload,
)


def load(path: Path) -> int:
    model_id, ret = aclmdlLoadFromFile(str(path))
    assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
    return model_id


def dims_of(desc: int) -> list[int]:
    return [acl.get_tensor_desc_dim(desc, i) for i in range(acl.get_tensor_desc_num_dims(desc))]


def assert_empty(desc: int) -> None:
    assert desc != 0
    assert acl.get_tensor_desc_type(desc) == ACL_DT_UNDEFINED
    assert acl.get_tensor_desc_format(desc) == ACL_FORMAT_UNDEFINED
    assert acl.get_tensor_desc_num_dims(desc) == 0


@pytest.fixture
def static_model(tmp_path: Path, device: int) -> tuple[int, object]:
    model = add_relu_add(width=16)
    model_id = load(compile_model(model, tmp_path, "static"))
    yield model_id, model
    assert aclmdlUnload(model_id) == ACL_SUCCESS


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_input_descs_give_empty_output_descs(static_model: tuple[int, object], stream: int, mode: str) -> None:
    model_id, model = static_model
    x = np.random.default_rng(1).standard_normal((1, 16)).astype(np.float32)
    ins, outs = DeviceBuffers([x]), DeviceBuffers([np.zeros((1, 16), np.float32)])
    wrong = acl.create_tensor_desc(ACL_FLOAT, [3, 7], ACL_FORMAT_ND)  # not the model's [1,16]: not read
    mine = acl.create_tensor_desc(ACL_FLOAT, [1, 16], ACL_FORMAT_ND)
    try:
        assert acl.mdl.set_dataset_tensor_desc(ins.dataset, wrong, 0) == (ins.dataset, ACL_SUCCESS)
        assert acl.mdl.set_dataset_tensor_desc(outs.dataset, mine, 0) == (outs.dataset, ACL_SUCCESS)
        before = acl.mdl.get_dataset_tensor_desc(outs.dataset, 0)
        if mode == "sync":
            assert acl.mdl.execute(model_id, ins.dataset, outs.dataset) == ACL_SUCCESS, aclGetRecentErrMsg()
        else:
            assert acl.mdl.execute_async(model_id, ins.dataset, outs.dataset, stream) == ACL_SUCCESS
            assert acl.rt.synchronize_stream(stream) == ACL_SUCCESS
        np.testing.assert_allclose(outs.read()[0], reference(model, {"x": x})[0], rtol=1e-6, atol=1e-6)
        after = acl.mdl.get_dataset_tensor_desc(outs.dataset, 0)
        assert_empty(after)
        assert acl.get_tensor_desc_type(before) == ACL_DT_UNDEFINED  # the previous copy is destroyed
        assert "not a live tensor description" in aclGetRecentErrMsg()
        assert dims_of(acl.mdl.get_dataset_tensor_desc(ins.dataset, 0)) == [3, 7]  # inputs untouched
        assert dims_of(mine) == [1, 16]  # the user's own description is never touched
    finally:
        acl.destroy_tensor_desc(wrong)
        acl.destroy_tensor_desc(mine)
        ins.close()
        outs.close()


def test_without_input_descs_output_descs_stay(static_model: tuple[int, object]) -> None:
    model_id, _ = static_model
    ins, outs = DeviceBuffers([np.ones((1, 16), np.float32)]), DeviceBuffers([np.zeros((1, 16), np.float32)])
    mine = acl.create_tensor_desc(ACL_FLOAT, [1, 16], ACL_FORMAT_ND)
    try:
        assert acl.mdl.set_dataset_tensor_desc(outs.dataset, mine, 0)[1] == ACL_SUCCESS
        copy = acl.mdl.get_dataset_tensor_desc(outs.dataset, 0)
        assert acl.mdl.execute(model_id, ins.dataset, outs.dataset) == ACL_SUCCESS
        assert acl.mdl.get_dataset_tensor_desc(outs.dataset, 0) == copy
        assert dims_of(copy) == [1, 16]
    finally:
        acl.destroy_tensor_desc(mine)
        ins.close()
        outs.close()


def test_failed_execution_leaves_the_output_descs(static_model: tuple[int, object]) -> None:
    model_id, _ = static_model
    ins = DeviceBuffers([np.ones((1, 16), np.float32)])
    outs = DeviceBuffers([np.zeros((1, 16), np.float32)], sizes=[8])  # too small: refused
    desc = acl.create_tensor_desc(ACL_FLOAT, [1, 16], ACL_FORMAT_ND)
    try:
        acl.mdl.set_dataset_tensor_desc(ins.dataset, desc, 0)
        acl.mdl.set_dataset_tensor_desc(outs.dataset, desc, 0)
        copy = acl.mdl.get_dataset_tensor_desc(outs.dataset, 0)
        assert acl.mdl.execute(model_id, ins.dataset, outs.dataset) == ACL_ERROR_GE_PARAM_INVALID
        assert "output 0: model expects 64 bytes, given 8" in aclGetRecentErrMsg()
        assert acl.mdl.get_dataset_tensor_desc(outs.dataset, 0) == copy and dims_of(copy) == [1, 16]
    finally:
        acl.destroy_tensor_desc(desc)
        ins.close()
        outs.close()


def test_gear_model_real_dims_come_from_cur_output_dims(tmp_path: Path, device: int) -> None:
    model = add_relu_add(batch="N")
    model_id = load(compile_model(model, tmp_path, "batch", input_shape="x:-1,16", dynamic_batch_size="1,2,4"))
    ins = DeviceBuffers([np.zeros((4, 16), np.float32), np.zeros(1, np.int32)])
    outs = DeviceBuffers([np.zeros((4, 16), np.float32)])
    desc = acl.create_tensor_desc(ACL_FLOAT, [2, 16], ACL_FORMAT_ND)
    model_desc = acl.mdl.create_desc()
    try:
        assert acl.mdl.get_desc(model_desc, model_id) == ACL_SUCCESS
        x = np.random.default_rng(2).standard_normal((2, 16)).astype(np.float32)
        ins.write(0, x)
        assert acl.mdl.set_dynamic_batch_size(model_id, ins.dataset, 1, 2) == ACL_SUCCESS
        assert acl.mdl.set_dataset_tensor_desc(ins.dataset, desc, 0)[1] == ACL_SUCCESS
        assert acl.mdl.execute(model_id, ins.dataset, outs.dataset) == ACL_SUCCESS, aclGetRecentErrMsg()
        np.testing.assert_allclose(outs.read()[0][:2], reference(model, {"x": x})[0], rtol=1e-6, atol=1e-6)
        dims, ret = acl.mdl.get_cur_output_dims(model_desc, 0)
        assert ret == ACL_SUCCESS and dims["dims"] == [2, 16]
        assert_empty(acl.mdl.get_dataset_tensor_desc(outs.dataset, 0))
    finally:
        acl.mdl.destroy_desc(model_desc)
        acl.destroy_tensor_desc(desc)
        ins.close()
        outs.close()
        assert aclmdlUnload(model_id) == ACL_SUCCESS
