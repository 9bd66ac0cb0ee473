// HostMemory: the registry of host memory given out by aclrtMallocHost. The emulator's "page-locked"
// host memory is ordinary page-aligned memory; the registry exists so that aclrtFreeHost can reject
// pointers it never gave out (unknown, interior, double free) and so that copies can bounds-check host
// pointers that lie inside such a buffer and tell pinned from pageable host memory.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

#include "acl/acl_base.h"
#include "device/device_memory.h"

namespace ascendsim {

class HostMemory {
 public:
  static HostMemory& instance();

  // A page-aligned buffer of `size` (> 0) bytes; null with ACL_ERROR_RT_MEMORY_ALLOCATION recorded
  // (naming `api`) if the host is out of memory.
  void* allocate(size_t size, const char* api);
  // ACL_SUCCESS, or ACL_ERROR_RT_PARAM_INVALID with a message for a pointer that is not the start of a
  // live buffer (interior pointer, double free, unknown pointer).
  aclError release(void* ptr, const char* api);
  // The live buffer containing p (its size is the size asked for).
  bool find(const void* p, Allocation* out) const;
  size_t live_bytes() const;

 private:
  HostMemory() = default;
  mutable std::mutex mutex_;
  std::map<uintptr_t, size_t> live_;  // start -> requested size
  std::array<uintptr_t, 256> freed_ring_{};  // recent frees, to name a double free as such
  size_t freed_ring_next_ = 0;
  size_t live_bytes_ = 0;
};

}  // namespace ascendsim
