"""acl.media: media data processing (DVPP) memory, with pyACL's names and return shapes.

`dvpp_malloc(size)` -> (ptr, ret): device memory for media data, the size rounded up to a multiple of 32 bytes
plus 32, the start 128-byte aligned (acldvppMalloc); `dvpp_free(ptr)` -> ret. ascendsim has no DVPP engine: the
image and video functions of acl_dvpp.h return ACL_ERROR_API_NOT_SUPPORT under their C names in `ascendcl`.
"""

from ascendsim import _core

dvpp_malloc = _core.acldvppMalloc
dvpp_free = _core.acldvppFree
