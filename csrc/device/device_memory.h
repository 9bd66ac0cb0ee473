// DeviceMemory: the memory of one emulated device. A private virtual address range (reserved once, pages
// committed only when touched) is carved into segments, and a caching allocator in the style of PyTorch's
// CUDA allocator serves allocations from those segments. The address range lets the runtime tell device
// pointers from host pointers, and the table of live allocations lets it reject copies that leave an
// allocation, double frees and use of freed memory.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl_base.h"

namespace ascendsim {

struct MemoryStats {
  size_t capacity_bytes;        // the configured device memory, rounded up to 2 MiB
  size_t allocated_bytes;       // held by live allocations (block sizes)
  size_t requested_bytes;       // the sizes users asked for, of live allocations
  size_t reserved_bytes;        // held by segments (allocated + cached)
  size_t peak_allocated_bytes;  // since creation or the last reset_peak()
  size_t peak_reserved_bytes;
  size_t largest_free_block;    // largest free piece: a cached free block or an unreserved address run
  uint64_t allocation_count;    // allocations served since creation
  uint64_t free_count;          // releases since creation
  uint64_t segment_count;       // segments currently mapped
  uint64_t cache_hits;          // allocations served from cached blocks
  uint64_t alloc_retries;       // times the cache was flushed to satisfy a request
  uint64_t oom_count;
};

// A memory snapshot (DeviceMemory::snapshot, after PyTorch's torch.cuda.memory_snapshot): every segment
// mapped from the device's address range, with the blocks that tile it in address order.
struct MemoryBlock {
  uintptr_t address;
  size_t size;        // block size (a multiple of 512 bytes)
  size_t requested;   // allocated: the bytes the caller asked for; free: 0
  bool allocated;
  const char* api;    // allocated: the API that allocated it; free: null
  uint64_t seq;       // allocated: its creation number (core/live_objects.h); free: 0
};
struct MemorySegment {
  uintptr_t address;
  size_t size;
  bool small_pool;    // served requests up to 1 MiB
  uintptr_t stream;   // the stream its blocks are reused on; 0: not tied to a stream
  std::vector<MemoryBlock> blocks;
};

struct Allocation {
  void* base;
  size_t size;    // the size the user asked for: copies must stay inside it
  size_t extent;  // the bytes allocated (>= size: the runtime's rounding and padding), all addressable
};

class DeviceMemory {
 public:
  // `synchronize_device` is called before cached segments are released, so no queued task can still
  // touch them. It is called without any allocator lock held.
  DeviceMemory(int device_id, size_t capacity_bytes, std::function<void()> synchronize_device);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  // Returns a block of at least `size` bytes usable on `stream` (0: not tied to a stream). `usable_size`
  // (<= size; 0 means `size`) is what the caller may touch: find() reports it as the allocation's size,
  // so copies are checked against it (aclrtMalloc pads `size` but only the requested bytes are the
  // user's). On failure records ACL_ERROR_RT_MEMORY_ALLOCATION with a message naming `api` and giving
  // requested, allocated, reserved and free bytes and the largest free block, and returns null.
  void* allocate(size_t size, uintptr_t stream = 0, size_t usable_size = 0, const char* api = "allocate");
  // ACL_SUCCESS, or ACL_ERROR_RT_PARAM_INVALID with a message naming `api` for a pointer that is not the
  // start of a live allocation (interior pointer, double free, unknown pointer).
  aclError release(void* ptr, const char* api = "free");

  int device_id() const;
  bool in_range(const void* p) const;                  // inside this device's address range; lock-free
  bool find(const void* p, Allocation* out) const;     // the live allocation that contains p
  // For error messages about a pointer that find() rejected: "lies N bytes into the allocation at ...",
  // "is freed memory of device D", "is unallocated memory of device D", ...
  std::string describe(const void* p) const;

  MemoryStats stats() const;
  std::vector<MemorySegment> snapshot() const;  // consistent with stats() taken at the same moment
  void reset_peak();
  // Frees every live allocation, as a device reset does; the segments stay mapped (cached), so a stale
  // pointer is answered with an error code, never a fault. Returns the number of allocations freed.
  size_t release_all(const char* api);
  void empty_cache();  // synchronizes the device, then returns every unused cached segment to the range
  size_t capacity() const;

 private:
  void sample() const;  // the profiler's memory counter (prof/profiler.h)
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ascendsim
