// White-box checks of the device memory (csrc/device) that the C API cannot reach: stream-aware reuse,
// segment sizes, the out-of-memory retry, a randomized run against a shadow model, and concurrent use.
// Built by tests/test_allocator.py from the sources; prints "OK" and exits 0 on success.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "core/error.h"
#include "device/device_memory.h"

using ascendsim::Allocation;
using ascendsim::DeviceMemory;

#define CHECK(cond)                                                         \
  do {                                                                      \
    if (!(cond)) {                                                          \
      std::printf("FAILED line %d: %s\n", __LINE__, #cond);                 \
      return 1;                                                             \
    }                                                                       \
  } while (0)

constexpr size_t kMiB = size_t{1} << 20;

static int stream_aware_reuse() {
  DeviceMemory memory(0, 64 * kMiB, nullptr);
  void* on_s1 = memory.allocate(4096, 1);
  CHECK(on_s1 != nullptr && memory.release(on_s1) == 0);
  void* on_s2 = memory.allocate(4096, 2);  // not the block stream 1 freed: a segment of its own
  CHECK(on_s2 != nullptr && on_s2 != on_s1);
  void* untied = memory.allocate(4096, 0);
  CHECK(untied != on_s1 && untied != on_s2);
  void* again_s1 = memory.allocate(4096, 1);
  CHECK(again_s1 == on_s1);
  CHECK(memory.stats().segment_count == 3);
  for (void* p : {on_s2, untied, again_s1}) CHECK(memory.release(p) == 0);
  memory.empty_cache();
  CHECK(memory.stats().reserved_bytes == 0);
  return 0;
}

static int segment_sizes() {
  DeviceMemory memory(0, 1024 * kMiB, nullptr);
  struct Case {
    size_t request, reserved;
  } cases[] = {{1, 2 * kMiB}, {kMiB, 2 * kMiB}, {kMiB + 1, 20 * kMiB}, {10 * kMiB - 512, 20 * kMiB},
               {10 * kMiB, 10 * kMiB}, {11 * kMiB + 1, 12 * kMiB}};
  for (const Case& c : cases) {
    void* p = memory.allocate(c.request);
    CHECK(p != nullptr);
    CHECK(memory.stats().reserved_bytes == c.reserved);
    CHECK(reinterpret_cast<uintptr_t>(p) % (2 * kMiB) == 0);  // the start of a fresh segment
    CHECK(memory.release(p) == 0);
    memory.empty_cache();
  }
  // Large-pool splitting keeps only remainders above 1 MiB: 19.5 MiB takes the whole 20 MiB segment.
  void* a = memory.allocate(19 * kMiB + kMiB / 2);
  CHECK(memory.stats().allocated_bytes == 20 * kMiB);
  void* b = memory.allocate(2 * kMiB);  // 2 MiB from a 20 MiB segment leaves 18 MiB: split
  CHECK(memory.stats().allocated_bytes == 22 * kMiB);
  CHECK(memory.release(a) == 0 && memory.release(b) == 0);
  return 0;
}

static int out_of_memory_retry() {
  int synchronizations = 0;
  DeviceMemory memory(3, 24 * kMiB, [&] { ++synchronizations; });
  void* a = memory.allocate(12 * kMiB);  // [0, 12 MiB)
  CHECK(a != nullptr);
  std::vector<void*> small;
  for (int i = 0; i < 4; ++i) small.push_back(memory.allocate(kMiB));  // two small segments: [12, 16 MiB)
  for (void* p : small) CHECK(memory.release(p) == 0);
  CHECK(memory.stats().reserved_bytes == 16 * kMiB && synchronizations == 0);
  // 10 MiB does not fit in the 8 MiB left: synchronize, release the cached small segments, retry.
  void* b = memory.allocate(10 * kMiB);
  CHECK(b != nullptr && synchronizations == 1 && memory.stats().alloc_retries == 1);
  CHECK(memory.stats().reserved_bytes == 22 * kMiB);
  // 3 MiB prefers a 20 MiB segment; near the capacity the smallest one that holds it (4 MiB) is taken...
  void* c = memory.allocate(3 * kMiB);
  CHECK(c == nullptr);  // ...but only 2 MiB are left
  const char* message = ascendsim::take_recent_error();
  CHECK(std::strstr(message, "EE207001: allocate: device 3 out of memory: tried to allocate 3.00 MiB") != nullptr);
  CHECK(std::strstr(message, "largest free block 2.00 MiB") != nullptr);
  CHECK(memory.stats().oom_count == 1 && synchronizations == 2);
  void* d = memory.allocate(kMiB + 1);  // a 2 MiB segment instead of 20 MiB: fits
  CHECK(d != nullptr && memory.stats().reserved_bytes == 24 * kMiB);
  // Larger than the device: fails at once, without synchronizing.
  CHECK(memory.allocate(24 * kMiB + 1) == nullptr && memory.allocate(SIZE_MAX) == nullptr);
  CHECK(synchronizations == 2);
  ascendsim::take_recent_error();
  CHECK(memory.release(a) == 0 && memory.release(b) == 0 && memory.release(d) == 0);
  return 0;
}

static int randomized_against_shadow() {
  DeviceMemory memory(0, 256 * kMiB, [] {});
  std::mt19937_64 rng(12345);
  std::vector<std::pair<char*, size_t>> live;
  for (int step = 0; step < 100000; ++step) {
    if (live.size() < 60 && (live.empty() || rng() % 2 == 0)) {
      const size_t size = rng() % 4 == 0 ? 1 + rng() % (12 * kMiB) : 1 + rng() % 8192;
      char* p = static_cast<char*>(memory.allocate(size, rng() % 3, size));
      if (p == nullptr) {
        ascendsim::take_recent_error();
        continue;
      }
      for (const auto& other : live) CHECK(p + size <= other.first || other.first + other.second <= p);
      p[0] = 1;
      p[size - 1] = 2;
      live.emplace_back(p, size);
    } else {
      const size_t k = rng() % live.size();
      Allocation found{};
      CHECK(memory.find(live[k].first + live[k].second - 1, &found));
      CHECK(found.base == live[k].first && found.size == live[k].second);
      // Past the requested size but inside the block's rounding: still this allocation, so a caller can
      // report "out of bounds" rather than "not allocated".
      if (memory.find(live[k].first + live[k].second, &found) && found.base == live[k].first)
        CHECK(found.size == live[k].second);
      if (live[k].second > 1) CHECK(memory.release(live[k].first + 1) != 0);
      CHECK(memory.release(live[k].first) == 0);
      CHECK(memory.release(live[k].first) != 0);  // double free
      CHECK(!memory.find(live[k].first, &found) || found.base != live[k].first);
      live[k] = live.back();
      live.pop_back();
    }
    if (step % 9973 == 0) {
      const auto stats = memory.stats();
      size_t requested = 0;
      for (const auto& l : live) requested += l.second;
      CHECK(stats.requested_bytes == requested);
      CHECK(stats.allocated_bytes >= requested && stats.reserved_bytes >= stats.allocated_bytes);
    }
  }
  ascendsim::take_recent_error();
  for (const auto& l : live) CHECK(memory.release(l.first) == 0);
  const auto stats = memory.stats();
  CHECK(stats.allocated_bytes == 0 && stats.requested_bytes == 0);
  memory.empty_cache();  // every segment coalesced back into one block, so every one is released
  CHECK(memory.stats().reserved_bytes == 0 && memory.stats().segment_count == 0);
  CHECK(memory.stats().largest_free_block == 256 * kMiB);
  return 0;
}

static int concurrent() {
  DeviceMemory memory(0, 512 * kMiB, [] {});
  std::atomic<int> errors{0};
  auto work = [&](int seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::pair<unsigned char*, size_t>> live;
    for (int i = 0; i < 20000; ++i) {
      if (live.size() < 30 && (live.empty() || rng() % 2 == 0)) {
        const size_t size = rng() % 8 == 0 ? 1 + rng() % (3 * kMiB) : 1 + rng() % 5000;
        auto* p = static_cast<unsigned char*>(memory.allocate(size, rng() % 2 ? 0 : seed));
        if (p == nullptr) {
          ascendsim::take_recent_error();
          continue;
        }
        std::memset(p, seed, size);
        live.emplace_back(p, size);
      } else {
        const size_t k = rng() % live.size();
        auto [p, size] = live[k];
        Allocation found{};
        if (p[0] != seed || p[size - 1] != seed) ++errors;  // nobody else wrote into our block
        if (!memory.find(p + size / 2, &found) || found.base != p) ++errors;
        if (memory.release(p) != 0) ++errors;
        live[k] = live.back();
        live.pop_back();
      }
      if (i % 5000 == 0) memory.stats();
      if (seed == 1 && i % 7000 == 0) memory.empty_cache();
    }
    for (const auto& l : live)
      if (memory.release(l.first) != 0) ++errors;
  };
  std::vector<std::thread> threads;
  for (int t = 1; t <= 4; ++t) threads.emplace_back(work, t);
  for (auto& t : threads) t.join();
  CHECK(errors.load() == 0);
  CHECK(memory.stats().allocated_bytes == 0);
  return 0;
}

int main() {
  if (int failed = stream_aware_reuse()) return failed;
  if (int failed = segment_sizes()) return failed;
  if (int failed = out_of_memory_retry()) return failed;
  if (int failed = randomized_against_shadow()) return failed;
  if (int failed = concurrent()) return failed;
  std::printf("OK\n");
  return 0;
}
