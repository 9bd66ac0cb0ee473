// Huge-page-advised mappings (see page_memory.h).
#include "kernels/page_memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

namespace ascendsim::kernels {

float* map_floats(size_t count) {
  if (count == 0) return nullptr;
  const size_t bytes = count * sizeof(float);
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  madvise(p, bytes, MADV_HUGEPAGE);  // advisory: small pages where the system has no huge ones
#endif
  return static_cast<float*>(p);
}

void unmap_floats(float* p, size_t count) {
  if (p != nullptr) munmap(p, count * sizeof(float));
}

namespace {

constexpr size_t kHugePage = size_t{2} << 20;

struct WeightChunk {
  char* base;
  size_t size, used, live;  // live: allocations in it not yet freed
  // Of the newest chunk: blocks freed below `used` (offset, bytes), given back when those above them are.
  std::vector<std::pair<size_t, size_t>> freed;
};

size_t carved_bytes(size_t bytes) { return (bytes + 63) / 64 * 64; }

struct WeightPool {
  std::mutex mutex;
  std::vector<WeightChunk> chunks;  // the newest last
};

// Never destroyed: kernels holding weights may be freed by other static destructors at exit.
WeightPool& weight_pool() {
  static auto* pool = new WeightPool;
  return *pool;
}

// A new chunk of `size` bytes (whole huge pages) on a huge-page boundary.
WeightChunk map_chunk(size_t size) {
  void* p = mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  char* start = static_cast<char*>(p);
  char* base = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(start) + kHugePage - 1) & ~uintptr_t{kHugePage - 1});
  if (base > start) munmap(start, static_cast<size_t>(base - start));
  munmap(base + size, static_cast<size_t>(start + kHugePage - base));  // the tail (base is below start + kHugePage)
#ifdef MADV_HUGEPAGE
  madvise(base, size, MADV_HUGEPAGE);  // advisory, as above
#endif
  return WeightChunk{base, size, 0, 0, {}};
}

}  // namespace

void* map_weights(size_t bytes) {
  WeightPool& pool = weight_pool();
  std::lock_guard<std::mutex> lock(pool.mutex);
  if (pool.chunks.empty() || pool.chunks.back().size - pool.chunks.back().used < bytes) {
    const size_t size = (std::max(bytes, kWeightChunkBytes) + kHugePage - 1) / kHugePage * kHugePage;
    pool.chunks.reserve(pool.chunks.size() + 1);  // (no throw once mapped)
    WeightChunk chunk = map_chunk(size);
    if (!pool.chunks.empty()) pool.chunks.back().freed = {};  // no longer carved
    pool.chunks.push_back(std::move(chunk));
  }
  WeightChunk& chunk = pool.chunks.back();
  char* p = chunk.base + chunk.used;
  chunk.used += carved_bytes(bytes);
  ++chunk.live;
  return p;
}

void unmap_weights(void* p, size_t bytes) {
  WeightPool& pool = weight_pool();
  std::lock_guard<std::mutex> lock(pool.mutex);
  for (auto it = pool.chunks.begin(); it != pool.chunks.end(); ++it) {
    if (static_cast<char*>(p) < it->base || static_cast<char*>(p) >= it->base + it->size) continue;
    if (--it->live == 0) {
      munmap(it->base, it->size);
      pool.chunks.erase(it);
    } else if (it + 1 == pool.chunks.end()) {
      // The newest chunk takes back the blocks at its top, so that weights packed and dropped at load (a product
      // path that lost its timing) are carved again rather than left resident.
      it->freed.emplace_back(static_cast<size_t>(static_cast<char*>(p) - it->base), carved_bytes(bytes));
      for (bool taken = true; taken;) {
        taken = false;
        for (auto block = it->freed.begin(); block != it->freed.end(); ++block) {
          if (block->first + block->second != it->used) continue;
          it->used = block->first;
          it->freed.erase(block);
          taken = true;
          break;
        }
      }
    }
    return;
  }
}

}  // namespace ascendsim::kernels
