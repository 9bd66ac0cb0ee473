"""pyACL-compatible `acl` package: the same API, argument order and return shapes as Huawei's pyACL.

Handles and pointers are ints, functions with outputs return `(outputs..., ret)`, getters return bare
values. Every function here is the same object as its C-named twin in `ascendcl`; only names differ.
Real pyACL exports no constants; ascendsim's are in `acl.constants` (also `ascendcl`), out of the way of
the constants modules that samples define themselves.
"""

from ascendsim import _core

from . import constants, mdl, op, rt, util

__all__ = ["constants", "mdl", "op", "rt", "util"]

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


def app_log(level: int, message: str, _log=_core.aclAppLog) -> None:
    """acl.app_log(level, msg): the application log (printed when ASCEND_SLOG_PRINT_TO_STDOUT=1)."""
    _log(level, "python", "python", 0, message)
