// Device allocation and release shared by the functions that hand out device memory: the aclrtMalloc family
// (acl_memory.cpp, where they are defined) and acldvppMalloc / acldvppFree (acl_dvpp_memory.cpp).
#pragma once
#include <cstddef>

#include "acl/acl_rt.h"

namespace ascendsim {

// Allocates on the current context's device: `size` rounded up to a multiple of 32 bytes, plus 32 bytes of
// padding when `padding` (aclrtMalloc; not aclrtMallocAlign32). Errors name `api`.
aclError malloc_device(void** devPtr, size_t size, aclrtMemMallocPolicy policy, bool padding, const char* api);
// Frees a device allocation; a host pointer (aclrtMallocHost or foreign) is refused with a message saying so.
aclError free_device(void* devPtr, const char* api);

}  // namespace ascendsim
