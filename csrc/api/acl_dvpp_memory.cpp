// acl_dvpp.h memory: acldvppMalloc / acldvppFree, the device memory that media data processing reads and writes.
// As documented, the size is rounded up to a multiple of 32 bytes plus 32 bytes (aclrtMalloc's rule) and the
// start is 128-byte aligned: every device block starts on a 512-byte boundary (device/caching_allocator.h), so
// the plain device allocation already meets it. The memory is huge-page memory on the device
// (ACL_MEM_MALLOC_HUGE_ONLY); it is ordinary device memory for copies, operators and models alike.
#include "api/device_malloc.h"
#include "api/dvpp_interface.h"
#include "prof/profiler.h"

using namespace ascendsim;

extern "C" {

aclError acldvppMalloc(void** devPtr, size_t size) {
  ASCENDSIM_PROFILE_API();
  return malloc_device(devPtr, size, ACL_MEM_MALLOC_HUGE_ONLY, true, __func__);
}

aclError acldvppFree(void* devPtr) {
  ASCENDSIM_PROFILE_API();
  return free_device(devPtr, __func__);
}

}  // extern "C"
