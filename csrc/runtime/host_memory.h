// HostMemory: the registry of host memory given out by aclrtMallocHost. The emulator's "page-locked"
// host memory is ordinary page-aligned memory; the registry exists so that aclrtFreeHost can reject
// pointers it never gave out (unknown, interior, double free) and so that copies can bounds-check host
// pointers that lie inside such a buffer and tell pinned from pageable host memory.
//
// A task queued on a stream holds the buffers it reads or writes (hold()). aclrtFreeHost of a held buffer
// does not wait and does not fail (the device's behaviour is undefined; freeing it there would be a
// use-after-free in the emulator): the buffer leaves the registry at once, as freed, and goes back to the
// system when the last task holding it has run or been discarded, with a warning naming it.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
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
  // A hold on the live buffer containing p until the returned pointer is dropped; null (no hold) when p
  // lies in no aclrtMallocHost buffer (or is null: no lookup).
  std::shared_ptr<void> hold(const void* p);

 private:
  struct Buffer {
    size_t size;     // the size asked for
    uint32_t holds;  // queued tasks using it
  };
  HostMemory() = default;
  void drop_hold(uintptr_t start);

  mutable std::mutex mutex_;
  std::map<uintptr_t, Buffer> live_;      // start -> buffer
  std::map<uintptr_t, uint32_t> freed_held_;  // freed by the program, still held by tasks: start -> holds
  std::array<uintptr_t, 256> freed_ring_{};  // recent frees, to name a double free as such
  size_t freed_ring_next_ = 0;
  size_t live_bytes_ = 0;
};

}  // namespace ascendsim
