#include "runtime/allocation_check.h"

#include <cstdio>
#include <string>

#include "core/error.h"
#include "runtime/device.h"
#include "runtime/host_memory.h"
#include "runtime/runtime.h"

namespace ascendsim {
namespace {

bool fits(const void* p, size_t count, const Allocation& allocation) {
  const size_t offset = static_cast<size_t>(static_cast<const char*>(p) - static_cast<const char*>(allocation.base));
  return offset < allocation.size && count <= allocation.size - offset;
}

}  // namespace

RegionFit locate_region(const void* p, size_t count, MemoryRegion* out) {
  out->allocation = Allocation{};
  if (Device* device = Runtime::instance().device_of_address(p)) {
    out->device = device;
    out->pinned = true;
    if (!device->memory().find(p, &out->allocation)) return RegionFit::kNotLive;
    return fits(p, count, out->allocation) ? RegionFit::kFits : RegionFit::kPastEnd;
  }
  out->device = nullptr;
  out->pinned = HostMemory::instance().find(p, &out->allocation);
  return !out->pinned || fits(p, count, out->allocation) ? RegionFit::kFits : RegionFit::kPastEnd;
}

aclError check_region(const void* p, size_t count, aclError code, const char* api, const char* arg,
                      MemoryRegion* out) {
  const RegionFit fit = locate_region(p, count, out);
  if (fit == RegionFit::kFits) return ACL_SUCCESS;
  if (fit == RegionFit::kNotLive)
    return fail(code, "%s: %s is not live device memory: %s", api, arg, out->device->memory().describe(p).c_str());
  const Allocation& allocation = out->allocation;
  const size_t offset = static_cast<size_t>(static_cast<const char*>(p) - static_cast<const char*>(allocation.base));
  const size_t room = offset < allocation.size ? allocation.size - offset : 0;
  return fail(code,
              "%s: %s %p + %zu bytes runs past the end of its %s: %s lies %zu bytes into the %zu-byte allocation "
              "at %p, so at most %zu bytes fit",
              api, arg, p, count, out->is_device() ? "device allocation" : "aclrtMallocHost buffer", arg, offset,
              allocation.size, allocation.base, room);
}

const char* region_name(const MemoryRegion& region, char* buffer, size_t size) {
  if (!region.is_device()) return region.pinned ? "host memory (aclrtMallocHost)" : "host memory";
  std::snprintf(buffer, size, "device %d memory", region.device->id());
  return buffer;
}

}  // namespace ascendsim
