"""The AscendCL C API under its C names, for porting C/C++ samples to Python line by line.

    from ascendcl import *
    ret = aclInit("")
    ret = aclrtSetDevice(0)
    ptr, ret = aclrtMalloc(1024, ACL_MEM_MALLOC_HUGE_FIRST)
    free, total, ret = aclrtGetMemInfo(ACL_HBM_MEM)

The rule: a C parameter that is a non-const pointer to a scalar, enum or handle is an out-parameter and
comes back as a return value, in C order, before the error code; every other parameter is an input in C
order (handles and addresses as int, strings as str). A function with no out-parameters returns its C
result bare. Every enum value, error code and numeric macro of the headers is here under its C name.
"""

from ascendsim import _core

from ._constants import *
from ._constants import __all__ as _constant_names

_function_names = sorted(name for name in dir(_core) if name.startswith("acl"))
globals().update({name: getattr(_core, name) for name in _function_names})

__all__ = [*_function_names, *_constant_names]  # noqa: PLE0604 (names computed above)
