// Checks of the intra-op thread pool (csrc/kernels/thread_pool.cpp): every index covered exactly once,
// chunks respect the grain, nested regions run inline, several threads starting regions at once, regions
// that wake sleeping workers; chunk sizes that share equal items evenly.
// Prints "OK" on success.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "kernels/thread_pool.h"

using ascendsim::kernels::parallel_for;

static bool cover(int64_t n, int64_t grain) {
  std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
  std::atomic<bool> ok{true};
  parallel_for(n, grain, [&](int64_t b, int64_t e) {
    if (b < 0 || e > n || b >= e) ok = false;
    for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)]++;
  });
  for (auto& h : hits) ok = ok && h.load() == 1;
  return ok;
}

// A thread's worst case under dynamic claiming is ceil(chunks / threads) chunks: within 1/16 of n / threads
// (or the chunk is the grain, the finest allowed), and never below the grain.
static bool even_shares(int64_t n, int64_t grain, int threads) {
  const int64_t chunk = ascendsim::kernels::chunk_size(n, grain, threads);
  const int64_t per_thread = ((n + chunk - 1) / chunk + threads - 1) / threads;
  return chunk >= grain && (chunk == grain || 16 * per_thread * chunk * threads <= 17 * n);
}

int main() {
  if (ascendsim::kernels::num_threads() < 1) return 1;
  // 14 equal conv blocks on 2 threads: 7 each (chunks of 2 gave 8 and 6); 50 blocks in chunks of 5, not 7.
  if (ascendsim::kernels::chunk_size(14, 1, 2) != 1 || ascendsim::kernels::chunk_size(50, 1, 2) != 5) return 5;
  if (ascendsim::kernels::chunk_size(1000, 1, 2) != 125 || ascendsim::kernels::chunk_size(16, 1, 2) != 2) return 5;
  for (int threads : {2, 3, 8})
    for (int64_t n = 2; n < 3000; n += 7)
      for (int64_t grain : {1, 5, 64})
        if (!even_shares(n, grain, threads)) {
          std::printf("uneven chunks n=%lld grain=%lld threads=%d\n", static_cast<long long>(n), static_cast<long long>(grain), threads);
          return 5;
        }
  for (int64_t n : {0, 1, 7, 100, 4096, 100003})
    for (int64_t grain : {1, 3, 64, 100000})
      if (!cover(n, grain)) {
        std::printf("coverage failed n=%lld grain=%lld\n", static_cast<long long>(n), static_cast<long long>(grain));
        return 1;
      }
  // Nested regions run inline and still cover everything.
  std::atomic<int64_t> total{0};
  parallel_for(64, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) parallel_for(100, 1, [&](int64_t b2, int64_t e2) { total += e2 - b2; });
  });
  if (total != 6400) return 2;
  // Concurrent regions from several threads.
  std::vector<std::thread> threads;
  std::atomic<bool> ok{true};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int r = 0; r < 200; ++r) ok = ok && cover(1000 + r, 7);
    });
  for (auto& th : threads) th.join();
  if (!ok) return 3;
  // Regions after the workers went to sleep (past their spin) wake them and still cover everything.
  for (int r = 0; r < 5; ++r) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (!cover(10000, 16)) return 4;
  }
  std::printf("OK\n");
  return 0;
}
