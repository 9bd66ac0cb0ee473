// Buffers come from posix_memalign (page-aligned, rounded up to whole pages so that neighbouring buffers
// never share a page); the registry is an address-ordered map, so interior lookups are O(log n).
#include "runtime/host_memory.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>

#include "core/error.h"

namespace ascendsim {
namespace {
size_t page_size() {
  static const size_t size = [] {
    const long n = sysconf(_SC_PAGESIZE);
    return n > 0 ? static_cast<size_t>(n) : size_t{4096};
  }();
  return size;
}
// A buffer owns its whole pages: a pointer into the padding after the requested size is still "inside"
// (and out of bounds), not anonymous host memory.
size_t extent(size_t size) { return (size + page_size() - 1) / page_size() * page_size(); }
}  // namespace

HostMemory& HostMemory::instance() {
  static HostMemory* registry = new HostMemory();  // never destroyed: frees may come during shutdown
  return *registry;
}

void* HostMemory::allocate(size_t size, const char* api) {
  const size_t page = page_size();
  void* p = nullptr;
  if (size <= SIZE_MAX - page && posix_memalign(&p, page, extent(size)) != 0) p = nullptr;
  if (p == nullptr) {
    fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: out of host memory: cannot allocate %zu bytes", api, size);
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  live_.emplace(reinterpret_cast<uintptr_t>(p), size);
  live_bytes_ += size;
  return p;
}

aclError HostMemory::release(void* ptr, const char* api) {
  const auto address = reinterpret_cast<uintptr_t>(ptr);
  std::unique_lock<std::mutex> lock(mutex_);
  auto it = live_.find(address);
  if (it == live_.end()) {
    auto after = live_.upper_bound(address);
    if (after != live_.begin()) {
      auto around = std::prev(after);
      if (address - around->first < extent(around->second))
        return fail(ACL_ERROR_RT_PARAM_INVALID,
                    "%s: hostPtr %p is not the start of a buffer: it lies %zu bytes into the buffer at %p "
                    "(%zu bytes) allocated by aclrtMallocHost",
                    api, ptr, static_cast<size_t>(address - around->first),
                    reinterpret_cast<void*>(around->first), around->second);
    }
    if (std::find(freed_ring_.begin(), freed_ring_.end(), address) != freed_ring_.end())
      return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: double free: hostPtr %p was already freed", api, ptr);
    return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: hostPtr %p was not allocated by aclrtMallocHost (or was freed long ago)",
                api, ptr);
  }
  live_bytes_ -= it->second;
  live_.erase(it);
  freed_ring_[freed_ring_next_++ % freed_ring_.size()] = address;
  lock.unlock();
  std::free(ptr);
  return ACL_SUCCESS;
}

bool HostMemory::find(const void* p, Allocation* out) const {
  const auto address = reinterpret_cast<uintptr_t>(p);
  std::lock_guard<std::mutex> lock(mutex_);
  auto after = live_.upper_bound(address);
  if (after == live_.begin()) return false;
  auto around = std::prev(after);
  if (address - around->first >= extent(around->second)) return false;
  out->base = reinterpret_cast<void*>(around->first);
  out->size = around->second;
  return true;
}

size_t HostMemory::live_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return live_bytes_;
}

}  // namespace ascendsim
