#include "runtime/allocation_check.h"

#include <cstdio>
#include <string>

#include "core/error.h"
#include "runtime/device.h"
#include "runtime/host_memory.h"
#include "runtime/runtime.h"

namespace ascendsim {
namespace {

// False (with the message recorded as `code`) when [p, p + count) runs past the end of `allocation`.
aclError check_room(const void* p, size_t count, const Allocation& allocation, const char* what, aclError code,
                    const char* api, const char* arg) {
  const size_t offset = static_cast<size_t>(static_cast<const char*>(p) - static_cast<const char*>(allocation.base));
  if (offset < allocation.size && count <= allocation.size - offset) return ACL_SUCCESS;
  const size_t room = offset < allocation.size ? allocation.size - offset : 0;
  return fail(code,
              "%s: %s %p + %zu bytes runs past the end of its %s: %s lies %zu bytes into the %zu-byte allocation "
              "at %p and has only %zu bytes, so at most %zu bytes fit",
              api, arg, p, count, what, arg, offset, allocation.size, allocation.base, room, room);
}

}  // namespace

aclError check_region(const void* p, size_t count, aclError code, const char* api, const char* arg,
                      MemoryRegion* out) {
  if (Device* device = Runtime::instance().device_of_address(p)) {
    out->device = device;
    out->pinned = true;
    if (!device->memory().find(p, &out->allocation))
      return fail(code, "%s: %s is not live device memory: %s", api, arg, device->memory().describe(p).c_str());
    return check_room(p, count, out->allocation, "device allocation", code, api, arg);
  }
  out->device = nullptr;
  out->pinned = HostMemory::instance().find(p, &out->allocation);
  return out->pinned ? check_room(p, count, out->allocation, "aclrtMallocHost buffer", code, api, arg) : ACL_SUCCESS;
}

const char* region_name(const MemoryRegion& region, char* buffer, size_t size) {
  if (!region.is_device()) return region.pinned ? "host memory (aclrtMallocHost)" : "host memory";
  std::snprintf(buffer, size, "device %d memory", region.device->id());
  return buffer;
}

}  // namespace ascendsim
