#include "api/memory_checks.h"

#include <cstdio>
#include <string>

#include "core/error.h"
#include "runtime/device.h"
#include "runtime/host_memory.h"
#include "runtime/runtime.h"

namespace ascendsim {
namespace {

aclError out_of_bounds(const void* p, size_t count, const Allocation& allocation, const char* what, const char* api,
                       const char* arg) {
  const size_t offset = static_cast<size_t>(static_cast<const char*>(p) - static_cast<const char*>(allocation.base));
  const size_t room = offset < allocation.size ? allocation.size - offset : 0;
  return fail(ACL_ERROR_RT_PARAM_INVALID,
              "%s: %s %p + %zu bytes runs past the end of its %s: %s lies %zu bytes into the %zu-byte allocation "
              "at %p, so at most %zu bytes fit",
              api, arg, p, count, what, arg, offset, allocation.size, allocation.base, room);
}

}  // namespace

aclError check_region(const void* p, size_t count, const char* api, const char* arg, MemoryRegion* out) {
  Allocation allocation{};
  if (Device* device = Runtime::instance().device_of_address(p)) {
    out->device = device;
    out->pinned = true;
    if (!device->memory().find(p, &allocation))
      return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: %s is not live device memory: %s", api, arg,
                  device->memory().describe(p).c_str());
    const size_t offset = static_cast<size_t>(static_cast<const char*>(p) - static_cast<char*>(allocation.base));
    if (offset >= allocation.size || count > allocation.size - offset)
      return out_of_bounds(p, count, allocation, "device allocation", api, arg);
    return ACL_SUCCESS;
  }
  out->device = nullptr;
  out->pinned = HostMemory::instance().find(p, &allocation);
  if (out->pinned) {
    const size_t offset = static_cast<size_t>(static_cast<const char*>(p) - static_cast<char*>(allocation.base));
    if (offset >= allocation.size || count > allocation.size - offset)
      return out_of_bounds(p, count, allocation, "aclrtMallocHost buffer", api, arg);
  }
  return ACL_SUCCESS;
}

bool valid_memcpy_kind(int kind) { return kind >= ACL_MEMCPY_HOST_TO_HOST && kind <= ACL_MEMCPY_DEFAULT; }

const char* memcpy_kind_name(int kind) {
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST: return "ACL_MEMCPY_HOST_TO_HOST";
    case ACL_MEMCPY_HOST_TO_DEVICE: return "ACL_MEMCPY_HOST_TO_DEVICE";
    case ACL_MEMCPY_DEVICE_TO_HOST: return "ACL_MEMCPY_DEVICE_TO_HOST";
    case ACL_MEMCPY_DEVICE_TO_DEVICE: return "ACL_MEMCPY_DEVICE_TO_DEVICE";
    case ACL_MEMCPY_DEFAULT: return "ACL_MEMCPY_DEFAULT";
    default: return "?";
  }
}

aclrtMemcpyKind implied_memcpy_kind(const MemoryRegion& dst, const MemoryRegion& src) {
  if (dst.is_device()) return src.is_device() ? ACL_MEMCPY_DEVICE_TO_DEVICE : ACL_MEMCPY_HOST_TO_DEVICE;
  return src.is_device() ? ACL_MEMCPY_DEVICE_TO_HOST : ACL_MEMCPY_HOST_TO_HOST;
}

const char* region_name(const MemoryRegion& region, char* buffer, size_t size) {
  if (!region.is_device()) return region.pinned ? "host memory (aclrtMallocHost)" : "host memory";
  std::snprintf(buffer, size, "device %d memory", region.device->id());
  return buffer;
}

}  // namespace ascendsim
