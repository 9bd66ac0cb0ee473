// AscendCL memory allocation: device memory (aclrtMalloc family, aclrtFree, aclrtMemFlush/Invalidate,
// aclrtGetMemInfo) and host memory (aclrtMallocHost/FreeHost). Device memory comes from the current
// context's device (DeviceMemory); host memory from the HostMemory registry.
#include <algorithm>
#include <cstdint>

#include "acl/acl_rt.h"
#include "api/device_malloc.h"
#include "core/error.h"
#include "core/fault_injection.h"
#include "core/log.h"
#include "prof/profiler.h"
#include "runtime/allocation_check.h"
#include "runtime/context.h"
#include "runtime/device.h"
#include "runtime/host_memory.h"
#include "runtime/runtime.h"

using namespace ascendsim;

namespace {

constexpr size_t kDataAlign = 32;    // device allocations are multiples of 32 bytes
constexpr size_t kPaddingSize = 32;  // aclrtMalloc adds 32 bytes of padding (aclrtMallocAlign32 does not)

bool known_policy(uint32_t policy) {
  const uint32_t base = policy & ~uint32_t{ACL_MEM_TYPE_LOW_BAND_WIDTH | ACL_MEM_TYPE_HIGH_BAND_WIDTH};
  return base <= ACL_MEM_MALLOC_NORMAL_ONLY_P2P;
}

// aclrtMemFlush / aclrtMemInvalidate: the emulated device shares the CPU's coherent caches, so after
// validating the range there is nothing to write back or discard.
aclError check_cache_range(void* devPtr, size_t size, const char* api) {
  if (devPtr == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'devPtr' is NULL", api);
  if (size == 0) return fail(ACL_ERROR_INVALID_PARAM, "%s: size is 0 (must be positive)", api);
  MemoryRegion region;
  if (aclError ret = check_region(devPtr, size, ACL_ERROR_RT_PARAM_INVALID, api, "devPtr", &region)) return ret;
  if (!region.is_device())
    return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: devPtr %p is host memory, not device memory", api, devPtr);
  return ACL_SUCCESS;
}

}  // namespace

// The real runtime allocates (size + 32 + padding - 1) / 32 * 32 bytes; the caller may touch the `size` bytes it
// asked for.
aclError ascendsim::malloc_device(void** devPtr, size_t size, aclrtMemMallocPolicy policy, bool padding,
                                  const char* api) {
  if (devPtr == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'devPtr' is NULL", api);
  if (size == 0) return fail(ACL_ERROR_INVALID_PARAM, "%s: size is 0 (must be positive)", api);
  const size_t append = padding ? kDataAlign + kPaddingSize : kDataAlign;
  if (size > SIZE_MAX - append) return fail(ACL_ERROR_INVALID_PARAM, "%s: size %zu is too large", api, size);
  // Like the real runtime, an unknown policy is not an error: it falls back to the default placement.
  if (!known_policy(static_cast<uint32_t>(policy)))
    log(kLogWarning, "ASCENDCL", "%s: unknown memory policy 0x%x, using ACL_MEM_MALLOC_HUGE_FIRST", api,
        static_cast<unsigned>(policy));
  std::shared_ptr<Context> context;
  if (aclError ret = require_current_context(api, &context)) return ret;
  if (fault::Hit hit = fault::check(fault::Site::kMalloc))
    return fault::report(hit, api, "out of device memory: nothing was allocated");
  const size_t aligned = (size + append - 1) / kDataAlign * kDataAlign;
  void* p = context->device()->memory().allocate(aligned, 0, size, api);
  if (p == nullptr) return ACL_ERROR_RT_MEMORY_ALLOCATION;  // the allocator recorded the message
  *devPtr = p;
  return ACL_SUCCESS;
}

aclError ascendsim::free_device(void* devPtr, const char* api) {
  if (devPtr == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'devPtr' is NULL", api);
  Device* device = Runtime::instance().device_of_address(devPtr);
  if (device == nullptr) {
    Allocation host{};
    if (HostMemory::instance().find(devPtr, &host))
      return fail(ACL_ERROR_RT_PARAM_INVALID,
                  "%s: devPtr %p is host memory from aclrtMallocHost, not device memory: free it with aclrtFreeHost",
                  api, devPtr);
    return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: devPtr %p is not device memory (a host pointer?)", api, devPtr);
  }
  return device->memory().release(devPtr, api);
}

extern "C" {

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  ASCENDSIM_PROFILE_API();
  return malloc_device(devPtr, size, policy, true, __func__);
}

aclError aclrtMallocAlign32(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  ASCENDSIM_PROFILE_API();
  return malloc_device(devPtr, size, policy, false, __func__);
}

aclError aclrtMallocCached(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  ASCENDSIM_PROFILE_API();
  return malloc_device(devPtr, size, policy, true, __func__);
}

aclError aclrtMemFlush(void* devPtr, size_t size) {
  ASCENDSIM_PROFILE_API();
  return check_cache_range(devPtr, size, __func__);
}

aclError aclrtMemInvalidate(void* devPtr, size_t size) {
  ASCENDSIM_PROFILE_API();
  return check_cache_range(devPtr, size, __func__);
}

aclError aclrtFree(void* devPtr) {
  ASCENDSIM_PROFILE_API();
  return free_device(devPtr, __func__);
}

aclError aclrtMallocHost(void** hostPtr, size_t size) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(hostPtr);
  if (size == 0) return fail(ACL_ERROR_INVALID_PARAM, "%s: size is 0 (must be positive)", __func__);
  void* p = HostMemory::instance().allocate(size, __func__);
  if (p == nullptr) return ACL_ERROR_RT_MEMORY_ALLOCATION;
  *hostPtr = p;
  return ACL_SUCCESS;
}

aclError aclrtFreeHost(void* hostPtr) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(hostPtr);
  if (Device* device = Runtime::instance().device_of_address(hostPtr))
    return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: hostPtr %p is device %d memory, not host memory: free it with aclrtFree",
                __func__, hostPtr, device->id());
  return HostMemory::instance().release(hostPtr, __func__);
}

aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t* free, size_t* total) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(free);
  ASCENDSIM_CHECK_NOT_NULL(total);
  if (static_cast<int>(attr) < ACL_DDR_MEM || static_cast<int>(attr) > ACL_HBM_MEM_P2P_NORMAL)
    return fail(ACL_ERROR_RT_INVALID_MEMORY_TYPE, "%s: attr %d is not a valid aclrtMemAttr (%d..%d)", __func__,
                static_cast<int>(attr), static_cast<int>(ACL_DDR_MEM), static_cast<int>(ACL_HBM_MEM_P2P_NORMAL));
  std::shared_ptr<Context> context;
  if (aclError ret = require_current_context(__func__, &context)) return ret;
  // One kind of memory per emulated device: every attribute reports it. Memory cached by the allocator
  // but not allocated counts as free: it is handed out again (or released) on demand.
  // A device capped by fault injection (memory_cap) reports the cap as its total.
  const MemoryStats stats = context->device()->memory().stats();
  *total = std::min(stats.capacity_bytes, fault::memory_cap(context->device_id()));
  *free = *total - std::min(*total, stats.allocated_bytes);
  return ACL_SUCCESS;
}

}  // extern "C"
