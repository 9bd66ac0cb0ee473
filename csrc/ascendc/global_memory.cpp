#include "ascendc/global_memory.h"

#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>

#include "core/error.h"
#include "runtime/allocation_check.h"

namespace ascendsim::ascendc {
namespace {

struct GmBuffers {
  std::mutex mutex;
  std::map<const char*, size_t> live;  // base -> size
};

GmBuffers& buffers() {
  static auto* all = new GmBuffers();  // outlives late frees at exit
  return *all;
}

}  // namespace

void* gm_alloc(size_t size) {
  const size_t rounded = (size == 0 ? 1 : size + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, rounded);
  if (p == nullptr) return nullptr;
  GmBuffers& all = buffers();
  std::lock_guard<std::mutex> lock(all.mutex);
  all.live[static_cast<const char*>(p)] = size;
  return p;
}

aclError gm_free(void* ptr) {
  if (ptr == nullptr) return ACL_SUCCESS;
  GmBuffers& all = buffers();
  {
    std::lock_guard<std::mutex> lock(all.mutex);
    if (all.live.erase(static_cast<const char*>(ptr)) == 0)
      return fail(ACL_ERROR_INVALID_PARAM, "GmFree: %p was not returned by GmAlloc, or was freed already", ptr);
  }
  std::free(ptr);
  return ACL_SUCCESS;
}

bool gm_check(const void* p, size_t size, char* what, size_t what_size) {
  const char* begin = static_cast<const char*>(p);
  {
    GmBuffers& all = buffers();
    std::lock_guard<std::mutex> lock(all.mutex);
    auto it = all.live.upper_bound(begin);
    if (it != all.live.begin()) {
      --it;
      if (begin < it->first + it->second) {
        if (size <= static_cast<size_t>(it->first + it->second - begin)) return true;
        std::snprintf(what, what_size, "runs %zu bytes past the end of the GmAlloc buffer of %zu bytes at %p",
                      static_cast<size_t>(begin + size - (it->first + it->second)), it->second,
                      static_cast<const void*>(it->first));
        return false;
      }
    }
  }
  MemoryRegion region;
  switch (locate_region(p, size, &region)) {
    case RegionFit::kFits:
      if (region.is_device()) return true;
      std::snprintf(what, what_size, "host memory, not a device allocation (aclrtMalloc) or a GmAlloc buffer");
      return false;
    case RegionFit::kPastEnd:
      std::snprintf(what, what_size, "runs past the end of the device allocation of %zu bytes at %p",
                    region.allocation.size, region.allocation.base);
      return false;
    default:
      std::snprintf(what, what_size, "not in a live device allocation (freed, or never allocated)");
      return false;
  }
}

}  // namespace ascendsim::ascendc
