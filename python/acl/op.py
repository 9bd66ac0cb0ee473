"""acl.op: single operators, with pyACL's names, argument order and return shapes (python/pyACL/op/op.cpp).

Attributes: `create_attr()` -> attr (0 on failure), `destroy_attr(attr)` -> None, the scalar setters
`set_attr_bool/int/float/string(attr, name, value)` -> ret, the list setters
`set_attr_list_bool/int/float/string/list_int(attr, name, values: list)` -> ret (a numpy array is accepted
with pyACL's deprecation warning), and, as pyACL returns them, `set_attr_data_type(attr, name, dtype)` and
`set_attr_list_data_type(attr, name, dtypes: list)` -> (attr, ret). `set_max_op_queue_num(n)` -> ret.
pyACL has no compile-option functions: aclSetCompileopt and its siblings are in `ascendcl` under their C names.
The execution functions arrive with single-operator execution.
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
