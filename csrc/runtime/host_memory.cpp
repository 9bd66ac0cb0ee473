// Buffers come from posix_memalign (page-aligned, rounded up to whole pages so that neighbouring buffers
// never share a page); the registry is an address-ordered map, so interior lookups are O(log n). A held
// buffer freed by the program moves to freed_held_ and is given back to the system by its last drop_hold.
#include "runtime/host_memory.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>

#include "core/error.h"
#include "core/log.h"

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

// The buffer of `live` (start -> buffer) whose pages contain `address`, or live.end().
template <typename Map>
auto containing(Map& live, uintptr_t address) {
  auto after = live.upper_bound(address);
  if (after == live.begin()) return live.end();
  auto around = std::prev(after);
  return address - around->first < extent(around->second.size) ? around : live.end();
}
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
  live_.emplace(reinterpret_cast<uintptr_t>(p), Buffer{size, 0});
  live_bytes_ += size;
  return p;
}

aclError HostMemory::release(void* ptr, const char* api) {
  const auto address = reinterpret_cast<uintptr_t>(ptr);
  std::unique_lock<std::mutex> lock(mutex_);
  auto it = live_.find(address);
  if (it == live_.end()) {
    if (auto around = containing(live_, address); around != live_.end())
      return fail(ACL_ERROR_RT_PARAM_INVALID,
                  "%s: hostPtr %p is not the start of a buffer: it lies %zu bytes into the buffer at %p "
                  "(%zu bytes) allocated by aclrtMallocHost",
                  api, ptr, static_cast<size_t>(address - around->first), reinterpret_cast<void*>(around->first),
                  around->second.size);
    if (std::find(freed_ring_.begin(), freed_ring_.end(), address) != freed_ring_.end())
      return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: double free: hostPtr %p was already freed", api, ptr);
    return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: hostPtr %p was not allocated by aclrtMallocHost (or was freed long ago)",
                api, ptr);
  }
  const Buffer buffer = it->second;
  live_bytes_ -= buffer.size;
  live_.erase(it);
  freed_ring_[freed_ring_next_++ % freed_ring_.size()] = address;
  if (buffer.holds > 0) {
    freed_held_.emplace(address, buffer.holds);
    lock.unlock();
    log(kLogWarning, "ASCENDCL",
        "%s: hostPtr %p (%zu bytes) is still used by %u task(s) queued on a stream; it is released when they "
        "have run (on a device the result would be undefined: synchronize the stream before freeing)",
        api, ptr, buffer.size, buffer.holds);
    return ACL_SUCCESS;
  }
  lock.unlock();
  std::free(ptr);
  return ACL_SUCCESS;
}

std::shared_ptr<void> HostMemory::hold(const void* p) {
  if (p == nullptr) return nullptr;
  const auto address = reinterpret_cast<uintptr_t>(p);
  std::lock_guard<std::mutex> lock(mutex_);
  auto around = containing(live_, address);
  if (around == live_.end()) return nullptr;
  ++around->second.holds;
  const uintptr_t start = around->first;
  // The pointer itself is never followed: the deleter is what the hold is for.
  return std::shared_ptr<void>(reinterpret_cast<void*>(start), [this, start](void*) { drop_hold(start); });
}

void HostMemory::drop_hold(uintptr_t start) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (auto it = live_.find(start); it != live_.end()) {
    --it->second.holds;
    return;
  }
  auto it = freed_held_.find(start);
  if (it == freed_held_.end() || --it->second > 0) return;
  freed_held_.erase(it);
  lock.unlock();
  std::free(reinterpret_cast<void*>(start));
}

bool HostMemory::find(const void* p, Allocation* out) const {
  const auto address = reinterpret_cast<uintptr_t>(p);
  std::lock_guard<std::mutex> lock(mutex_);
  auto around = containing(live_, address);
  if (around == live_.end()) return false;
  out->base = reinterpret_cast<void*>(around->first);
  out->size = around->second.size;
  out->extent = around->second.size;
  return true;
}

size_t HostMemory::live_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return live_bytes_;
}

}  // namespace ascendsim
