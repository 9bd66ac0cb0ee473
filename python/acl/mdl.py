"""acl.mdl: offline models, with pyACL's names, argument order and return shapes (pyacl-api.md §2.3).

Every function is the same object as its C-named twin in `ascendcl`, except `add_dataset_buffer` and
`set_dataset_tensor_desc`, which return `(dataset, ret)` as pyACL does, and `set_config_opt` /
`set_exec_config_opt`, which take the option's value itself (an int, or a str for ACL_MDL_PATH_PTR) where the
C functions take its address and size. Dims come back as dicts
({'name', 'dimCount', 'dims'}), and a failed dict query returns `({}, ret)`. Functions not implemented yet
return ACL_ERROR_API_NOT_SUPPORT (200001) with a message, as their C twins do.
"""

from __future__ import annotations

import ctypes

from ascendcl import _constants as c
from ascendsim import _core

# load / unload / sizes
load_from_file = _core.aclmdlLoadFromFile
load_from_mem = _core.aclmdlLoadFromMem
load_from_file_with_mem = _core.aclmdlLoadFromFileWithMem
load_from_mem_with_mem = _core.aclmdlLoadFromMemWithMem
unload = _core.aclmdlUnload
query_size = _core.aclmdlQuerySize
query_size_from_mem = _core.aclmdlQuerySizeFromMem
create_config_handle = _core.aclmdlCreateConfigHandle
load_with_config = _core.aclmdlLoadWithConfig
destroy_config_handle = _core.aclmdlDestroyConfigHandle

# descriptions
create_desc = _core.aclmdlCreateDesc
destroy_desc = _core.aclmdlDestroyDesc
get_desc = _core.aclmdlGetDesc
get_desc_from_file = _core.aclmdlGetDescFromFile
get_desc_from_mem = _core.aclmdlGetDescFromMem
get_num_inputs = _core.aclmdlGetNumInputs
get_num_outputs = _core.aclmdlGetNumOutputs
get_input_size_by_index = _core.aclmdlGetInputSizeByIndex
get_output_size_by_index = _core.aclmdlGetOutputSizeByIndex
get_input_dims = _core.aclmdlGetInputDims
get_input_dims_v2 = _core.aclmdlGetInputDimsV2
get_input_dims_range = _core.aclmdlGetInputDimsRange
get_output_dims = _core.aclmdlGetOutputDims
get_cur_output_dims = _core.aclmdlGetCurOutputDims
get_input_name_by_index = _core.aclmdlGetInputNameByIndex
get_output_name_by_index = _core.aclmdlGetOutputNameByIndex
get_input_index_by_name = _core.aclmdlGetInputIndexByName
get_output_index_by_name = _core.aclmdlGetOutputIndexByName
get_input_data_type = _core.aclmdlGetInputDataType
get_output_data_type = _core.aclmdlGetOutputDataType
get_input_format = _core.aclmdlGetInputFormat
get_output_format = _core.aclmdlGetOutputFormat
get_op_attr = _core.aclmdlGetOpAttr
get_tensor_real_name = _core.aclmdlGetTensorRealName

# dynamic batch / image size / dims
get_dynamic_batch = _core.aclmdlGetDynamicBatch
set_dynamic_batch_size = _core.aclmdlSetDynamicBatchSize
get_dynamic_hw = _core.aclmdlGetDynamicHW
set_dynamic_hw_size = _core.aclmdlSetDynamicHWSize
get_input_dynamic_gear_count = _core.aclmdlGetInputDynamicGearCount
get_input_dynamic_dims = _core.aclmdlGetInputDynamicDims
set_input_dynamic_dims = _core.aclmdlSetInputDynamicDims

# datasets
create_dataset = _core.aclmdlCreateDataset
destroy_dataset = _core.aclmdlDestroyDataset
get_dataset_num_buffers = _core.aclmdlGetDatasetNumBuffers
get_dataset_buffer = _core.aclmdlGetDatasetBuffer
get_dataset_tensor_desc = _core.aclmdlGetDatasetTensorDesc


def add_dataset_buffer(dataset: int, data_buffer: int) -> tuple[int, int]:
    """pyACL returns the dataset with the code: `_, ret = acl.mdl.add_dataset_buffer(ds, buf)`."""
    return dataset, _core.aclmdlAddDatasetBuffer(dataset, data_buffer)


def set_dataset_tensor_desc(dataset: int, tensor_desc: int, index: int) -> tuple[int, int]:
    """pyACL returns the dataset with the code, as add_dataset_buffer."""
    return dataset, _core.aclmdlSetDatasetTensorDesc(dataset, tensor_desc, index)


# execution
execute = _core.aclmdlExecute
execute_async = _core.aclmdlExecuteAsync
execute_v2 = _core.aclmdlExecuteV2
execute_async_v2 = _core.aclmdlExecuteAsyncV2
create_exec_config_handle = _core.aclmdlCreateExecConfigHandle
destroy_exec_config_handle = _core.aclmdlDestroyExecConfigHandle

# AIPP and debugging
get_aipp_type = _core.aclmdlGetAippType
get_first_aipp_info = _core.aclmdlGetFirstAippInfo
set_dump = _core.aclmdlSetDump
init_dump = _core.aclmdlInitDump
finalize_dump = _core.aclmdlFinalizeDump


# The C type of each option's value (the C functions take its address and size); size_t where not listed.
_CONFIG_VALUE_TYPES: dict[int, type] = {
    c.ACL_MDL_PRIORITY_INT32: ctypes.c_int32,
    c.ACL_MDL_PATH_PTR: ctypes.c_char_p, c.ACL_MDL_WEIGHT_PATH_PTR: ctypes.c_char_p,
    c.ACL_MDL_MEM_ADDR_PTR: ctypes.c_void_p, c.ACL_MDL_WEIGHT_ADDR_PTR: ctypes.c_void_p,
    c.ACL_MDL_WORKSPACE_ADDR_PTR: ctypes.c_void_p, c.ACL_MDL_INPUTQ_ADDR_PTR: ctypes.c_void_p,
    c.ACL_MDL_OUTPUTQ_ADDR_PTR: ctypes.c_void_p, c.ACL_MDL_MODEL_DESC_PTR: ctypes.c_void_p,
    c.ACL_MDL_KERNEL_PTR: ctypes.c_void_p, c.ACL_MDL_KERNEL_ARGS_PTR: ctypes.c_void_p,
    c.ACL_MDL_STATIC_TASK_PTR: ctypes.c_void_p, c.ACL_MDL_DYNAMIC_TASK_PTR: ctypes.c_void_p,
}
_EXEC_CONFIG_VALUE_TYPES: dict[int, type] = {
    c.ACL_MDL_STREAM_SYNC_TIMEOUT: ctypes.c_int32, c.ACL_MDL_EVENT_SYNC_TIMEOUT: ctypes.c_int32,
    c.ACL_MDL_WORK_ADDR_PTR: ctypes.c_void_p,
}


def _c_value(api: str, attr: int, value: int | str, value_type: type) -> ctypes._SimpleCData:
    if value_type is ctypes.c_char_p:
        if not isinstance(value, str):
            raise TypeError(f"{api}: attr {attr} takes a str (a path), got {type(value).__name__}")
        return ctypes.c_char_p(value.encode())
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{api}: attr {attr} takes an int, got {type(value).__name__}")
    return value_type(value)


def set_config_opt(config_handle: int, attr: int, value: int | str) -> int:
    """pyACL's acl.mdl.set_config_opt: `value` is an int, or a str for ACL_MDL_PATH_PTR."""
    data = _c_value("acl.mdl.set_config_opt", attr, value, _CONFIG_VALUE_TYPES.get(attr, ctypes.c_size_t))
    return _core.aclmdlSetConfigOpt(config_handle, attr, ctypes.addressof(data), ctypes.sizeof(data))


def set_exec_config_opt(handle: int, attr: int, value: int) -> int:
    """pyACL's acl.mdl.set_exec_config_opt: `value` is an int (a timeout in ms, an address or a size)."""
    data = _c_value("acl.mdl.set_exec_config_opt", attr, value, _EXEC_CONFIG_VALUE_TYPES.get(attr, ctypes.c_size_t))
    return _core.aclmdlSetExecConfigOpt(handle, attr, ctypes.addressof(data), ctypes.sizeof(data))
