// The caching allocator of one device, after PyTorch's CUDA caching allocator.
//
// Sizes. A request is rounded up to a multiple of 512 bytes. Rounded sizes up to 1 MiB are served from the
// small pool, larger ones from the large pool. When a pool has no fitting free block a new segment is
// mapped from the device's address range: 2 MiB for a small request, 20 MiB for a request below 10 MiB,
// otherwise the request rounded up to 2 MiB. If the preferred segment does not fit in what is left of the
// device (small emulated devices), the smallest segment that holds the request (rounded up to 2 MiB) is
// tried instead, so a request fails only when it really cannot be placed. Segments are mapped and unmapped
// only on this slow path (and by empty_cache), never on the hot path.
//
// Blocks. A segment is a chain of blocks (prev/next in address order) that exactly tile it. Each pool
// keeps its free blocks in a set ordered by (stream, size, address), so lower_bound on (stream, size) is
// the best fit: the smallest free block on the same stream that is large enough, lowest address first.
// A block taken for a smaller request is split when the remainder is worth keeping: at least 512 bytes in
// the small pool, more than 1 MiB in the large pool (so large segments are not shredded into slivers).
// On release a block merges with its free neighbours in the segment and goes back to its pool, so a
// segment whose allocations are all freed becomes one free block again.
//
// Deferred coalescing. The last few freed blocks (kDeferredSlots) wait, uncoalesced, in a small list.
// An allocation first looks there for a block of its pool and stream that it would take whole (same
// rounded size, or a remainder too small to split off); a hit skips the ordered sets altogether, which
// makes the malloc/free-the-same-size loop of real programs cheap. Any other allocation first coalesces
// the waiting blocks into their pools and then searches as above, and so do stats, empty_cache and the
// out-of-memory path. Because coalescing is order-independent, the pools then look exactly as with eager
// coalescing; only which of several equally good blocks a hit returns can differ.
//
// Streams. A segment belongs to the stream of the allocation that mapped it, and its blocks are reused
// only by allocations on that stream; stream 0 means "not tied to a stream" (aclrtMalloc). Work queued on
// a stream therefore never sees its memory handed to another stream behind its back.
//
// Out of memory. If no segment can be mapped, the device is synchronized (outside the lock: queued tasks
// may still touch freed blocks), every cached segment with no allocation in it is unmapped, and the
// mapping is retried once. If it still fails the request fails with ACL_ERROR_RT_MEMORY_ALLOCATION and a
// message with the requested, allocated, reserved and free bytes and the largest free block.
//
// Injected faults (core/fault_injection.h). Under a memory_cap rule's cap (passed in by DeviceMemory, SIZE_MAX:
// none) a request fails at once if the live allocations and it would exceed the cap, and mapping a segment
// past the cap fails like mapping one past the end of the device, so the out-of-memory path above
// (synchronize, release cached segments, retry) runs as it would on a smaller device. Segments reserved
// before the cap stay usable, within it. The out-of-memory message names the rule.
//
// Bookkeeping. Every block is also in an address-ordered set, so the block containing any address is one
// upper_bound away (O(log n)): that validates frees (exact start of a live allocation), interior pointers
// of copies, and names what a bad pointer is (interior, freed, never allocated). Block structs and set
// nodes are recycled through free lists, so no call does a heap allocation in the steady state; one mutex
// guards it all. An allocated block also keeps the allocating API and its creation number (two stores), so
// snapshot() can list segments and blocks, and leak reports name where each live allocation came from.
#include "device/caching_allocator.h"

#include <vector>

#include <algorithm>
#include <cstdio>

#include "core/error.h"
#include "core/fault_injection.h"
#include "core/live_objects.h"

namespace ascendsim {
namespace {

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

// "1.50 GiB": sizes for messages.
std::string format_bytes(size_t bytes) {
  static const char* const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  if (unit == 0)
    std::snprintf(text, sizeof text, "%zu bytes", bytes);
  else
    std::snprintf(text, sizeof text, "%.2f %s", value, units[unit]);
  return text;
}

}  // namespace

CachingAllocator::CachingAllocator(int device_id, AddressRange* range, std::function<void()> synchronize_device)
    : device_id_(device_id), range_(range), synchronize_device_(std::move(synchronize_device)) {
  stats_.capacity_bytes = range_->capacity();
}

CachingAllocator::~CachingAllocator() {
  // The range itself is unmapped by its owner; the structs and nodes go with their pools.
  by_address_.clear();
  small_.blocks.clear();
  large_.blocks.clear();
}

void* CachingAllocator::allocate(size_t size, uintptr_t stream, size_t usable_size, const char* api, size_t cap) {
  if (usable_size == 0 || usable_size > size) usable_size = size;
  const size_t capacity = range_->capacity();
  const size_t rounded = size <= capacity ? round_up(size, kMinBlockSize) : size;
  // Larger than the whole device: fail at once instead of flushing the cache for nothing.
  if (size == 0 || size > capacity || round_up(rounded, kRoundLarge) > capacity) {
    std::lock_guard<std::mutex> lock(mutex_);
    cap_ = cap;
    flush_deferred();
    ++stats_.oom_count;
    oom_message(size, rounded, api);
    return nullptr;
  }

  std::unique_lock<std::mutex> lock(mutex_);
  cap_ = cap;
  if (cap != SIZE_MAX && stats_.allocated_bytes + rounded > cap) {  // over an injected cap: as a full device
    flush_deferred();
    ++stats_.oom_count;
    oom_message(size, rounded, api);
    return nullptr;
  }
  Pool& pool = rounded <= kSmallSize ? small_ : large_;
  Block* block = take_deferred(pool, stream, rounded);
  if (block == nullptr) {
    flush_deferred();
    block = find_free_block(pool, stream, rounded);
  }
  if (block != nullptr) {
    ++stats_.cache_hits;
  } else if ((block = grow(pool, stream, rounded)) == nullptr) {
    // Slow path: wait for queued work (it may still use freed blocks), drop the cache, retry once.
    lock.unlock();
    if (synchronize_device_) synchronize_device_();
    lock.lock();
    ++stats_.alloc_retries;
    flush_deferred();
    block = find_free_block(pool, stream, rounded);  // another thread may have freed meanwhile
    if (block == nullptr) {
      release_cached_segments();
      block = grow(pool, stream, rounded);
    }
    if (block == nullptr) {
      ++stats_.oom_count;
      oom_message(size, rounded, api);
      return nullptr;
    }
  }
  if (should_split(block, rounded)) split(block, rounded);
  block->state = State::kAllocated;
  block->usable = usable_size;
  block->extent = size;
  block->api = api;
  block->seq = next_creation_seq();
  stats_.allocated_bytes += block->size;
  stats_.requested_bytes += usable_size;
  stats_.peak_allocated_bytes = std::max(stats_.peak_allocated_bytes, stats_.allocated_bytes);
  ++stats_.allocation_count;
  return block->ptr;
}

aclError CachingAllocator::release(void* ptr, const char* api) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto address = reinterpret_cast<uintptr_t>(ptr);
  auto it = by_address_.find(address);
  if (it == by_address_.end() || !(*it)->allocated()) {
    const Block* around = block_at(ptr);
    if (around != nullptr && around->allocated())
      return fail(ACL_ERROR_RT_PARAM_INVALID,
                  "%s: %p is not the start of an allocation: it lies %zu bytes into the allocation at %p "
                  "(%zu bytes) on device %d; free the pointer the allocation returned",
                  api, ptr, static_cast<size_t>(address - reinterpret_cast<uintptr_t>(around->ptr)),
                  static_cast<void*>(around->ptr), around->usable, device_id_);
    if (recently_freed(address))
      return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: double free: device %d memory at %p was already freed", api,
                  device_id_, ptr);
    return fail(ACL_ERROR_RT_PARAM_INVALID,
                "%s: %p is not a live allocation of device %d: it was never returned by an allocation call "
                "(or was freed long ago)",
                api, ptr, device_id_);
  }
  Block* block = *it;
  stats_.allocated_bytes -= block->size;
  stats_.requested_bytes -= block->usable;
  block->usable = 0;
  ++stats_.free_count;
  freed_ring_[freed_ring_next_++ % freed_ring_.size()] = address;
  defer(block);
  return ACL_SUCCESS;
}

bool CachingAllocator::find(const void* p, Allocation* out) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const Block* block = block_at(p);
  if (block == nullptr || !block->allocated()) return false;
  out->base = block->ptr;
  out->size = block->usable;
  out->extent = block->extent;
  return true;
}

std::string CachingAllocator::describe(const void* p) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto address = reinterpret_cast<uintptr_t>(p);
  const Block* block = block_at(p);
  char text[256];
  if (block == nullptr) {
    std::snprintf(text, sizeof text,
                  "%p is in device %d's address space but in no allocation (never allocated, or its memory "
                  "was freed and released)",
                  p, device_id_);
  } else if (block->allocated()) {
    std::snprintf(text, sizeof text, "%p lies %zu bytes into the allocation at %p of %zu bytes on device %d", p,
                  static_cast<size_t>(address - reinterpret_cast<uintptr_t>(block->ptr)),
                  static_cast<void*>(block->ptr), block->usable, device_id_);
  } else if (recently_freed(address)) {
    std::snprintf(text, sizeof text, "%p is freed memory of device %d (it was freed by aclrtFree)", p, device_id_);
  } else {
    std::snprintf(text, sizeof text, "%p is unallocated memory of device %d (freed, or never allocated)", p,
                  device_id_);
  }
  return text;
}

MemoryStats CachingAllocator::stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  flush_deferred();
  MemoryStats result = stats_;
  result.largest_free_block = largest_free_block();
  return result;
}

std::vector<MemorySegment> CachingAllocator::snapshot() {
  std::lock_guard<std::mutex> lock(mutex_);
  flush_deferred();
  std::vector<MemorySegment> segments;
  for (const Block* block : by_address_) {  // a segment starts at a block with no predecessor
    if (block->prev == nullptr)
      segments.push_back(MemorySegment{reinterpret_cast<uintptr_t>(block->ptr), 0, block->pool->is_small,
                                       block->stream, {}});
    MemorySegment& segment = segments.back();
    segment.size += block->size;
    const bool live = block->allocated();
    segment.blocks.push_back(MemoryBlock{reinterpret_cast<uintptr_t>(block->ptr), block->size,
                                         live ? block->usable : 0, live, live ? block->api : nullptr,
                                         live ? block->seq : 0});
  }
  return segments;
}

void CachingAllocator::reset_peak() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.peak_allocated_bytes = stats_.allocated_bytes;
  stats_.peak_reserved_bytes = stats_.reserved_bytes;
}

void CachingAllocator::empty_cache() {
  if (synchronize_device_) synchronize_device_();  // queued tasks may still touch freed blocks
  std::lock_guard<std::mutex> lock(mutex_);
  flush_deferred();
  release_cached_segments();
}

size_t CachingAllocator::release_all(const char* api) {
  std::vector<void*> live;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const Block* block : by_address_)
      if (block->allocated()) live.push_back(block->ptr);
  }
  for (void* ptr : live) release(ptr, api);
  return live.size();
}

CachingAllocator::Block* CachingAllocator::take_deferred(const Pool& pool, uintptr_t stream, size_t size) {
  for (size_t i = deferred_count_; i-- > 0;) {  // newest first: its memory is the warmest
    Block* block = deferred_[i];
    if (block->pool != &pool || block->stream != stream || block->size < size || should_split(block, size))
      continue;
    std::copy(deferred_.begin() + i + 1, deferred_.begin() + deferred_count_, deferred_.begin() + i);
    --deferred_count_;
    return block;
  }
  return nullptr;
}

void CachingAllocator::defer(Block* block) {
  if (deferred_count_ == kDeferredSlots) {  // full: the oldest goes to its pool
    cache(deferred_[0]);
    std::copy(deferred_.begin() + 1, deferred_.end(), deferred_.begin());
    --deferred_count_;
  }
  block->state = State::kDeferred;
  deferred_[deferred_count_++] = block;
}

void CachingAllocator::flush_deferred() {
  for (size_t i = 0; i < deferred_count_; ++i) cache(deferred_[i]);
  deferred_count_ = 0;
}

void CachingAllocator::cache(Block* block) {
  block->state = State::kCached;
  block = merge_free_neighbours(block);
  block->pool->blocks.insert(block);
}

CachingAllocator::Block* CachingAllocator::find_free_block(Pool& pool, uintptr_t stream, size_t size) {
  Block key{nullptr, size, stream, &pool, nullptr, nullptr, 0, State::kCached};
  auto it = pool.blocks.lower_bound(&key);
  if (it == pool.blocks.end() || (*it)->stream != stream) return nullptr;
  Block* block = *it;
  pool.blocks.erase(it);
  return block;
}

CachingAllocator::Block* CachingAllocator::grow(Pool& pool, uintptr_t stream, size_t rounded) {
  const size_t preferred = rounded <= kSmallSize      ? kSmallBuffer
                           : rounded < kMinLargeAlloc ? kLargeBuffer
                                                      : round_up(rounded, kRoundLarge);
  const size_t minimal = round_up(rounded, kRoundLarge);
  Block* block = map_segment(pool, stream, preferred);
  if (block == nullptr && minimal < preferred) block = map_segment(pool, stream, minimal);
  return block;
}

CachingAllocator::Block* CachingAllocator::map_segment(Pool& pool, uintptr_t stream, size_t segment_size) {
  if (cap_ != SIZE_MAX && range_->mapped_bytes() + segment_size > cap_) return nullptr;  // an injected cap
  void* memory = range_->map(segment_size);
  if (memory == nullptr) return nullptr;
  Block* block = block_structs_.create(
      Block{static_cast<char*>(memory), segment_size, stream, &pool, nullptr, nullptr, 0, State::kCached});
  by_address_.insert(block);
  stats_.reserved_bytes += segment_size;
  stats_.peak_reserved_bytes = std::max(stats_.peak_reserved_bytes, stats_.reserved_bytes);
  ++stats_.segment_count;
  return block;
}

bool CachingAllocator::should_split(const Block* block, size_t size) const {
  const size_t remaining = block->size - size;
  return block->pool->is_small ? remaining >= kMinBlockSize : remaining > kSmallSize;
}

void CachingAllocator::split(Block* block, size_t size) {
  Block* rest = block_structs_.create(
      Block{block->ptr + size, block->size - size, block->stream, block->pool, block, block->next, 0, State::kCached});
  if (block->next != nullptr) block->next->prev = rest;
  block->next = rest;
  block->size = size;
  by_address_.insert(rest);
  rest->pool->blocks.insert(rest);
}

CachingAllocator::Block* CachingAllocator::merge_free_neighbours(Block* block) {
  // Only neighbours already in a pool: a deferred neighbour merges when its own turn comes.
  if (Block* prev = block->prev; prev != nullptr && prev->state == State::kCached) {
    prev->pool->blocks.erase(prev);  // before its size (part of the key) changes
    prev->size += block->size;
    prev->next = block->next;
    if (block->next != nullptr) block->next->prev = prev;
    by_address_.erase(block);
    block_structs_.destroy(block);
    block = prev;
  }
  if (Block* next = block->next; next != nullptr && next->state == State::kCached) {
    next->pool->blocks.erase(next);
    block->size += next->size;
    block->next = next->next;
    if (next->next != nullptr) next->next->prev = block;
    by_address_.erase(next);
    block_structs_.destroy(next);
  }
  return block;
}

size_t CachingAllocator::release_cached_segments() {
  flush_deferred();
  size_t released = 0;
  for (Pool* pool : {&small_, &large_}) {
    for (auto it = pool->blocks.begin(); it != pool->blocks.end();) {
      Block* block = *it;
      if (block->prev != nullptr || block->next != nullptr) {  // part of a segment still in use
        ++it;
        continue;
      }
      it = pool->blocks.erase(it);
      by_address_.erase(block);
      range_->unmap(block->ptr, block->size);
      stats_.reserved_bytes -= block->size;
      --stats_.segment_count;
      released += block->size;
      block_structs_.destroy(block);
    }
  }
  return released;
}

const CachingAllocator::Block* CachingAllocator::block_at(const void* p) const {
  const auto address = reinterpret_cast<uintptr_t>(p);
  auto it = by_address_.upper_bound(address);
  if (it == by_address_.begin()) return nullptr;
  const Block* block = *--it;
  return address - reinterpret_cast<uintptr_t>(block->ptr) < block->size ? block : nullptr;
}

bool CachingAllocator::recently_freed(uintptr_t p) const {
  return std::find(freed_ring_.begin(), freed_ring_.end(), p) != freed_ring_.end();
}

size_t CachingAllocator::largest_free_block() const {
  size_t largest = range_->largest_unmapped();
  for (const Pool* pool : {&small_, &large_})
    for (const Block* block : pool->blocks) largest = std::max(largest, block->size);
  return largest;
}

void CachingAllocator::oom_message(size_t size, size_t rounded, const char* api) const {
  const MemoryStats& s = stats_;
  const char* cap_rule = "?";
  const size_t cap = cap_ == SIZE_MAX ? SIZE_MAX : fault::memory_cap(device_id_, &cap_rule);
  const size_t capacity = std::min(range_->capacity(), cap);
  const size_t free_bytes = capacity - std::min(capacity, s.allocated_bytes);
  const std::string capped = cap == SIZE_MAX ? ""
                                             : " The device memory is capped at " + format_bytes(cap) +
                                                   " (injected fault: rule '" + cap_rule + "').";
  const size_t cached = s.reserved_bytes - s.allocated_bytes;
  fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
       "%s: device %d out of memory: tried to allocate %s (%zu bytes, a block of %zu bytes). "
       "Device capacity %s: %s allocated by live allocations (%s requested), %s reserved in segments "
       "(%s of it cached but unallocated), %s free; largest free block %s.%s%s%s",
       api, device_id_, format_bytes(size).c_str(), size, rounded,
       format_bytes(capacity).c_str(), format_bytes(s.allocated_bytes).c_str(),
       format_bytes(s.requested_bytes).c_str(), format_bytes(s.reserved_bytes).c_str(), format_bytes(cached).c_str(),
       format_bytes(free_bytes).c_str(), format_bytes(std::min(largest_free_block(), free_bytes)).c_str(),
       free_bytes >= size ? " Enough memory is free but not in one piece (fragmentation): free long-lived "
                            "allocations or allocate large buffers first."
                          : cap == SIZE_MAX ? " Free memory (aclrtFree), or give the emulated device more with "
                                              "ASCENDSIM_DEVICE_MEMORY (e.g. 64G) before the program starts."
                                            : "",
       range_->error().empty() ? "" : (" Address range unavailable: " + range_->error()).c_str(), capped.c_str());
}

}  // namespace ascendsim
