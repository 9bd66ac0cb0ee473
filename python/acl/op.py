"""acl.op: single operators, with pyACL's names, argument order and return shapes (python/pyACL/op/op.cpp).

Attributes: `create_attr()` -> attr (0 on failure), `destroy_attr(attr)` -> None, the scalar setters
`set_attr_bool/int/float/string(attr, name, value)` -> ret, the list setters
`set_attr_list_bool/int/float/string/list_int(attr, name, values: list)` -> ret (a numpy array is accepted
with pyACL's deprecation warning), and, as pyACL returns them, `set_attr_data_type(attr, name, dtype)` and
`set_attr_list_data_type(attr, name, dtypes: list)` -> (attr, ret). `set_max_op_queue_num(n)` -> ret.
pyACL has no compile-option functions: aclSetCompileopt and its siblings are in `ascendcl` under their C names.
Execution (pyACL's argument order; counts are the lists' lengths):
`execute(op_type, in_descs, in_bufs, out_descs, out_bufs, attr, stream)` and `execute_v2(...)` -> ret,
`create_handle(op_type, in_descs, out_descs, attr)` -> (handle, ret), `execute_with_handle(handle, in_bufs,
out_bufs, stream)` -> ret, `destroy_handle(handle)` -> None, `cast(src_desc, src_buf, dst_desc, dst_buf,
truncate, stream)` -> ret, `create_handle_for_cast(src_desc, dst_desc, truncate)` -> (handle, ret),
`infer_shape(op_type, in_descs, in_bufs, num_outputs, out_descs, attr)` -> ret,
`update_params(op_type, in_descs, out_descs, attr)` -> ret, `set_model_dir(dir)` -> ret,
`load(ptr, size)` -> ret. pyACL has no compile functions: aclopCompile* are in `ascendcl`.
"""

from ascendsim import _core

create_attr = _core.aclopCreateAttr
destroy_attr = _core.aclopDestroyAttr
set_attr_bool = _core.aclopSetAttrBool
set_attr_int = _core.aclopSetAttrInt
set_attr_float = _core.aclopSetAttrFloat
set_attr_string = _core.aclopSetAttrString
set_attr_list_bool = _core.pyacl_op_set_attr_list_bool
set_attr_list_int = _core.pyacl_op_set_attr_list_int
set_attr_list_float = _core.pyacl_op_set_attr_list_float
set_attr_list_string = _core.pyacl_op_set_attr_list_string
set_attr_list_list_int = _core.pyacl_op_set_attr_list_list_int
set_attr_data_type = _core.pyacl_op_set_attr_data_type
set_attr_list_data_type = _core.pyacl_op_set_attr_list_data_type
set_max_op_queue_num = _core.aclopSetMaxOpQueueNum
execute = _core.pyacl_op_execute
execute_v2 = _core.pyacl_op_execute_v2
create_handle = _core.pyacl_op_create_handle
execute_with_handle = _core.pyacl_op_execute_with_handle
destroy_handle = _core.aclopDestroyHandle
cast = _core.aclopCast
create_handle_for_cast = _core.aclopCreateHandleForCast
infer_shape = _core.pyacl_op_infer_shape
update_params = _core.pyacl_op_update_params
set_model_dir = _core.aclopSetModelDir
load = _core.aclopLoad
