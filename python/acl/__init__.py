"""pyACL-compatible `acl` package: the same API, argument order and return shapes as Huawei's pyACL.

Handles and pointers are ints, functions with outputs return `(outputs..., ret)`, getters return bare
values. Every function here is the same object as its C-named twin in `ascendcl`; only names differ.
Real pyACL exports no constants; ascendsim's are in `acl.constants` (also `ascendcl`), out of the way of
the constants modules that samples define themselves.
"""

from __future__ import annotations

from ascendsim import _core

from . import blas, constants, mdl, media, op, prof, rt, util

__all__ = ["blas", "constants", "mdl", "media", "op", "prof", "rt", "util"]

init = _core.pyacl_init
finalize = _core.aclFinalize
get_recent_err_msg = _core.pyacl_get_recent_err_msg
get_soc_name = _core.aclrtGetSocName
get_version = _core.aclrtGetVersion

create_data_buffer = _core.aclCreateDataBuffer
destroy_data_buffer = _core.aclDestroyDataBuffer
update_data_buffer = _core.aclUpdateDataBuffer
get_data_buffer_addr = _core.aclGetDataBufferAddr
get_data_buffer_size = _core.aclGetDataBufferSize
get_data_buffer_size_v2 = _core.aclGetDataBufferSizeV2
data_type_size = _core.aclDataTypeSize
float16_to_float = _core.aclFloat16ToFloat
float_to_float16 = _core.aclFloatToFloat16
get_cann_attribute = _core.aclGetCannAttribute
get_device_capability = _core.aclGetDeviceCapability

# tensor descriptions (dims and ranges are Python lists)
create_tensor_desc = _core.pyacl_create_tensor_desc
destroy_tensor_desc = _core.aclDestroyTensorDesc
get_tensor_desc_type = _core.aclGetTensorDescType
get_tensor_desc_format = _core.aclGetTensorDescFormat
get_tensor_desc_size = _core.aclGetTensorDescSize
get_tensor_desc_element_count = _core.aclGetTensorDescElementCount
get_tensor_desc_num_dims = _core.aclGetTensorDescNumDims
get_tensor_desc_dim = _core.aclGetTensorDescDim
get_tensor_desc_dim_v2 = _core.aclGetTensorDescDimV2
get_tensor_desc_name = _core.aclGetTensorDescName
set_tensor_desc_name = _core.aclSetTensorDescName
get_tensor_desc_address = _core.aclGetTensorDescAddress
get_tensor_desc_by_index = _core.aclGetTensorDescByIndex
trans_tensor_desc_format = _core.aclTransTensorDescFormat
set_tensor_shape = _core.pyacl_set_tensor_shape
set_tensor_origin_shape = _core.pyacl_set_tensor_origin_shape
set_tensor_storage_shape = _core.pyacl_set_tensor_storage_shape
set_tensor_format = _core.aclSetTensorFormat
set_tensor_origin_format = _core.aclSetTensorOriginFormat
set_tensor_storage_format = _core.aclSetTensorStorageFormat
set_tensor_dynamic_input = _core.aclSetTensorDynamicInput
set_tensor_const = _core.aclSetTensorConst
set_tensor_place_ment = _core.aclSetTensorPlaceMent
set_tensor_shape_range = _core.pyacl_set_tensor_shape_range
set_tensor_value_range = _core.pyacl_set_tensor_value_range
get_tensor_desc_dim_range = _core.aclGetTensorDescDimRange


# Python wrappers bind what they call as defaults: they keep working from __del__ at interpreter
# shutdown, when module globals may already be gone.
def app_log(level: int, message: str, /, *, _log=_core.aclAppLog) -> None:
    """acl.app_log(level, msg): a line of the application log (module APP: the plog file, or stdout with
    ASCEND_LOG_PRINT_TO_STDOUT=1), when ASCEND_GLOBAL_LOG_LEVEL lets its level through."""
    _log(level, "python", "python", 0, message)


def get_cann_attribute_list(*_ignored: object, _list=_core.aclGetCannAttributeList) -> tuple[list[int], int, int]:
    """acl.get_cann_attribute_list() -> (attributes, count, ret), pyACL's shape."""
    attributes, ret = _list()
    return attributes, len(attributes), ret
