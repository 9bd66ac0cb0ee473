// Global memory as Ascend C kernels see it: device allocations (aclrtMalloc, judged by the runtime's one
// allocation check) and the host buffers of AscendC::GmAlloc (the CPU-debug mode's global memory), kept here in
// an ordered map so that an interior pointer finds its buffer.
#pragma once
#include <cstddef>

#include "acl/acl_base.h"

namespace ascendsim::ascendc {

void* gm_alloc(size_t size);                // null when out of memory
aclError gm_free(void* ptr);                // ACL_ERROR_INVALID_PARAM (with a message) for a foreign pointer
// True if [p, p + size) lies in one live allocation; else false with a description in what[0, what_size).
bool gm_check(const void* p, size_t size, char* what, size_t what_size);

}  // namespace ascendsim::ascendc
