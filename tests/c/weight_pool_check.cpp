// Checks of the packed weights' huge-page pool (csrc/kernels/page_memory.cpp, used by PackedFloats): allocations
// are 64-byte aligned, writable and disjoint, a chunk starts on a 2 MiB boundary, one larger than a chunk gets its
// own, a chunk is unmapped when its last allocation is freed (msync then answers ENOMEM), the newest chunk carves
// again the blocks freed at its top, threads allocating and freeing at once get disjoint memory, and PackedFloats
// takes its large buffers from the pool.
// Prints "OK" on success.
#include <sys/mman.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "kernels/packed_floats.h"
#include "kernels/page_memory.h"

using ascendsim::kernels::kWeightChunkBytes;
using ascendsim::kernels::map_weights;
using ascendsim::kernels::unmap_weights;

namespace {

constexpr uintptr_t kHugePage = uintptr_t{2} << 20;

bool fail(const char* what) {
  std::printf("FAILED: %s\n", what);
  return false;
}

bool mapped(const void* p) {
  void* page = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(p) & ~uintptr_t{4095});
  return msync(page, 4096, MS_ASYNC) == 0 || errno != ENOMEM;
}

bool carve_and_release() {
  // A fresh pool: the first allocation opens a chunk on a 2 MiB boundary.
  const size_t sizes[] = {65536, 100000, 1 << 20, 300};
  std::vector<char*> got;
  for (size_t size : sizes) {
    char* p = static_cast<char*>(map_weights(size));
    if (reinterpret_cast<uintptr_t>(p) % 64 != 0) return fail("an allocation is not 64-byte aligned");
    std::memset(p, 0x5a, size);
    got.push_back(p);
  }
  if (reinterpret_cast<uintptr_t>(got[0]) % kHugePage != 0) return fail("a chunk does not start on a huge page");
  for (size_t i = 0; i + 1 < got.size(); ++i)
    if (got[i + 1] < got[i] + sizes[i]) return fail("allocations overlap");
  // Larger than a chunk: a chunk of its own, also on a huge page.
  char* big = static_cast<char*>(map_weights(kWeightChunkBytes + 12345));
  if (reinterpret_cast<uintptr_t>(big) % kHugePage != 0) return fail("a large allocation is not on a huge page");
  std::memset(big, 1, kWeightChunkBytes + 12345);
  unmap_weights(big, kWeightChunkBytes + 12345);
  if (mapped(big)) return fail("a chunk stayed mapped after its only allocation was freed");
  for (size_t i = 0; i + 1 < got.size(); ++i) unmap_weights(got[i], sizes[i]);
  if (!mapped(got[0])) return fail("a chunk was unmapped while an allocation in it was live");
  unmap_weights(got.back(), sizes[got.size() - 1]);
  if (mapped(got[0])) return fail("a chunk stayed mapped after all its allocations were freed");
  return true;
}

bool freed_tops_are_carved_again() {
  char* keep = static_cast<char*>(map_weights(70000));  // keeps the chunk mapped throughout
  char* a = static_cast<char*>(map_weights(65536));
  char* b = static_cast<char*>(map_weights(100000));
  unmap_weights(b, 100000);  // the top: taken back at once
  char* c = static_cast<char*>(map_weights(90000));
  if (c != b) return fail("the block freed at the top was not carved again");
  unmap_weights(a, 65536);  // below c: waits for c
  char* d = static_cast<char*>(map_weights(65536));
  if (d == a) return fail("a block below a live one was carved again");
  unmap_weights(d, 65536);
  unmap_weights(c, 90000);  // c and then a given back
  char* e = static_cast<char*>(map_weights(65536));
  const bool ok = e == a;
  unmap_weights(e, 65536);
  unmap_weights(keep, 70000);
  return ok || fail("blocks freed below the top were not given back with it");
}

bool threads_at_once() {
  constexpr int kThreads = 4, kRounds = 200;
  bool ok = true;
  std::vector<std::thread> workers;
  std::vector<char> failed(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    workers.emplace_back([t, &failed] {
      for (int r = 0; r < kRounds; ++r) {
        const size_t size = 65536 + static_cast<size_t>((t * 7919 + r * 104729) % 500000);
        auto* p = static_cast<unsigned char*>(map_weights(size));
        std::memset(p, t + 1, size);
        std::this_thread::yield();
        for (size_t i = 0; i < size; i += 4093)
          if (p[i] != t + 1) failed[static_cast<size_t>(t)] = 1;  // another thread wrote here
        unmap_weights(p, size);
      }
    });
  }
  for (auto& w : workers) w.join();
  for (char f : failed) ok = ok && f == 0;
  return ok || fail("threads allocating at once got overlapping memory");
}

bool packed_floats_use_the_pool() {
  ascendsim::kernels::PackedFloats small(100, 1.0f), large(1 << 16, 2.0f);  // 400 bytes, 256 KiB
  if (reinterpret_cast<uintptr_t>(small.data()) % 64 != 0 || reinterpret_cast<uintptr_t>(large.data()) % 64 != 0)
    return fail("PackedFloats is not cache-line aligned");
  char* probe = static_cast<char*>(map_weights(65536));  // carved right after `large` in the same chunk
  const bool adjacent = probe == reinterpret_cast<char*>(large.data()) + large.size() * sizeof(float);
  unmap_weights(probe, 65536);
  return adjacent || fail("a large PackedFloats did not come from the pool");
}

}  // namespace

int main() {
  if (carve_and_release() && freed_tops_are_carved_again() && threads_at_once() && packed_floats_use_the_pool())
    std::printf("OK\n");
  return 0;
}
