// ascendsim's own C functions (include/ascendsim/ascendsim_ext.h): device memory statistics, the kernel variant.
#include "ascendsim/ascendsim_ext.h"

#include <string>

#include "core/error.h"
#include "core/host_wait.h"
#include "kernels/isa.h"
#include "runtime/device.h"
#include "runtime/runtime.h"

using namespace ascendsim;

extern "C" {

aclError ascendsimGetMemoryStats(int32_t deviceId, ascendsimMemoryStats* stats) {
  ASCENDSIM_CHECK_NOT_NULL(stats);
  Device* device = Runtime::instance().device(deviceId, __func__);
  if (device == nullptr) return ACL_ERROR_RT_INVALID_DEVICEID;
  const MemoryStats s = device->memory().stats();
  stats->capacity_bytes = s.capacity_bytes;
  stats->allocated_bytes = s.allocated_bytes;
  stats->requested_bytes = s.requested_bytes;
  stats->reserved_bytes = s.reserved_bytes;
  stats->peak_allocated_bytes = s.peak_allocated_bytes;
  stats->peak_reserved_bytes = s.peak_reserved_bytes;
  stats->largest_free_block = s.largest_free_block;
  stats->allocation_count = s.allocation_count;
  stats->free_count = s.free_count;
  stats->segment_count = s.segment_count;
  stats->cache_hits = s.cache_hits;
  stats->alloc_retries = s.alloc_retries;
  stats->oom_count = s.oom_count;
  return ACL_SUCCESS;
}

aclError ascendsimResetPeakMemoryStats(int32_t deviceId) {
  Device* device = Runtime::instance().device(deviceId, __func__);
  if (device == nullptr) return ACL_ERROR_RT_INVALID_DEVICEID;
  device->memory().reset_peak();
  return ACL_SUCCESS;
}

aclError ascendsimEmptyCache(int32_t deviceId) {
  Device* device = Runtime::instance().device(deviceId, __func__);
  if (device == nullptr) return ACL_ERROR_RT_INVALID_DEVICEID;
  device->memory().empty_cache();
  return ACL_SUCCESS;
}

const char* ascendsimGetKernelVariant(void) { return kernels::active_isa_name(); }

const char* ascendsimGetKernelVariants(void) {
  static const std::string names = [] {
    std::string joined;
    for (const std::string& name : kernels::runnable_isas()) joined += (joined.empty() ? "" : " ") + name;
    return joined;
  }();
  return names.c_str();
}

}  // extern "C"

void ascendsimSetHostWaitHooks(void* (*begin)(void), void (*end)(void* token)) {
  ascendsim::set_host_wait_hooks(begin, end);
}
