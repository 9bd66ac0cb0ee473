// CachingAllocator: serves a device's allocations from segments of its AddressRange, caching freed blocks
// for reuse (the algorithm is described at the top of caching_allocator.cpp). Thread-safe: one mutex.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory_resource>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "acl/acl_base.h"
#include "device/address_range.h"
#include "device/device_memory.h"
#include "device/free_list.h"

namespace ascendsim {

class CachingAllocator {
 public:
  static constexpr size_t kMinBlockSize = 512;             // every block is a multiple of this
  static constexpr size_t kSmallSize = size_t{1} << 20;    // requests up to this go to the small pool
  static constexpr size_t kSmallBuffer = size_t{2} << 20;  // small-pool segment size
  static constexpr size_t kLargeBuffer = size_t{20} << 20; // segment for requests of 1..10 MiB
  static constexpr size_t kMinLargeAlloc = size_t{10} << 20;
  static constexpr size_t kRoundLarge = size_t{2} << 20;   // larger segments are rounded to this

  CachingAllocator(int device_id, AddressRange* range, std::function<void()> synchronize_device);
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // See DeviceMemory::allocate / release / find / describe.
  // `cap`: the device memory cap of an injected memory_cap fault (SIZE_MAX: none).
  void* allocate(size_t size, uintptr_t stream, size_t usable_size, const char* api, size_t cap = SIZE_MAX);
  aclError release(void* ptr, const char* api);
  bool find(const void* p, Allocation* out) const;
  std::string describe(const void* p) const;

  MemoryStats stats();  // coalesces deferred blocks first, so the numbers are those of eager coalescing
  std::vector<MemorySegment> snapshot();  // likewise
  void reset_peak();
  void empty_cache();
  size_t release_all(const char* api);  // frees every live allocation; returns how many there were

 private:
  struct Pool;
  // kDeferred: freed but not yet coalesced, waiting in deferred_ for a same-size reuse.
  enum class State : uint8_t { kAllocated, kDeferred, kCached };
  struct Block {
    char* ptr;
    size_t size;        // a multiple of kMinBlockSize
    uintptr_t stream;   // the stream of the segment's first allocation; 0: not tied to a stream
    Pool* pool;
    Block* prev;        // address-order neighbours inside the same segment
    Block* next;
    size_t usable;      // while allocated: the bytes the caller may touch
    State state;
    const char* api = nullptr;  // while allocated: the allocating API and creation number, for leak reports
    uint64_t seq = 0;
    size_t extent = 0;  // while allocated: the bytes it was asked for (usable plus the runtime's padding)
    bool allocated() const { return state == State::kAllocated; }
  };
  // Free blocks ordered by (stream, size, address): lower_bound finds the best fit on a stream.
  struct BySize {
    bool operator()(const Block* a, const Block* b) const {
      if (a->stream != b->stream) return a->stream < b->stream;
      if (a->size != b->size) return a->size < b->size;
      return a->ptr < b->ptr;
    }
  };
  // Every block (allocated or free) ordered by address, searchable by an address.
  struct ByAddress {
    using is_transparent = void;
    bool operator()(const Block* a, const Block* b) const { return a->ptr < b->ptr; }
    bool operator()(const Block* a, uintptr_t b) const { return reinterpret_cast<uintptr_t>(a->ptr) < b; }
    bool operator()(uintptr_t a, const Block* b) const { return a < reinterpret_cast<uintptr_t>(b->ptr); }
  };
  struct Pool {
    explicit Pool(std::pmr::memory_resource* nodes, bool small) : blocks(nodes), is_small(small) {}
    std::pmr::set<Block*, BySize> blocks;
    bool is_small;
  };

  static constexpr size_t kDeferredSlots = 8;

  Block* take_deferred(const Pool& pool, uintptr_t stream, size_t size);
  void defer(Block* block);
  void flush_deferred();
  void cache(Block* block);  // coalesce with cached neighbours, then into the pool
  Block* find_free_block(Pool& pool, uintptr_t stream, size_t size);
  Block* grow(Pool& pool, uintptr_t stream, size_t rounded);  // maps a new segment for the request
  Block* map_segment(Pool& pool, uintptr_t stream, size_t segment_size);
  bool should_split(const Block* block, size_t size) const;
  void split(Block* block, size_t size);
  Block* merge_free_neighbours(Block* block);
  size_t release_cached_segments();  // returns the bytes given back to the range
  const Block* block_at(const void* p) const;  // the block containing p, or null
  bool recently_freed(uintptr_t p) const;
  size_t largest_free_block() const;
  void oom_message(size_t size, size_t rounded, const char* api) const;

  const int device_id_;
  AddressRange* const range_;
  const std::function<void()> synchronize_device_;

  mutable std::mutex mutex_;
  NodeRecycler nodes_;  // declared before the containers that allocate from it
  ObjectPool<Block> block_structs_;
  Pool small_{&nodes_, true};
  Pool large_{&nodes_, false};
  std::pmr::set<Block*, ByAddress> by_address_{&nodes_};
  // The most recently freed blocks, oldest first (see "Deferred coalescing" in the .cpp).
  std::array<Block*, kDeferredSlots> deferred_{};
  size_t deferred_count_ = 0;
  // Starts of the most recent frees, to tell a double free from a pointer never given out.
  std::array<uintptr_t, 1024> freed_ring_{};
  size_t freed_ring_next_ = 0;
  MemoryStats stats_{};
  size_t cap_ = SIZE_MAX;  // the cap of the allocation in progress (see allocate)
};

}  // namespace ascendsim
