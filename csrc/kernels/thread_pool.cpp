// The intra-op thread pool (see thread_pool.h). Workers sleep on a condition variable; a region publishes
// a job (function, item count, chunk size) under a generation counter, every participant claims chunks
// from an atomic cursor, and the caller waits until all claimed chunks are done. Only one region runs at a
// time (try_lock): a concurrent caller runs its loop itself, which keeps two executing models from
// oversubscribing the CPUs and makes nested calls safe.
#include "kernels/thread_pool.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace ascendsim::kernels {
namespace {

int configured_threads() {
  if (const char* env = std::getenv("ASCENDSIM_NUM_THREADS")) {
    int value = std::atoi(env);
    if (value >= 1) return std::min(value, 256);
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    int count = CPU_COUNT(&set);
    if (count >= 1) return count;
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

class Pool {
 public:
  explicit Pool(int threads) : threads_(threads) {
    for (int i = 1; i < threads_; ++i) workers_.emplace_back([this] { work(); });
  }
  // Never destroyed (a static pointer): workers may still sleep at process exit, which is harmless.

  int threads() const { return threads_; }

  void run(int64_t n, int64_t chunk, const std::function<void(int64_t, int64_t)>& fn) {
    if (in_region_) {  // nested (checked first: try_lock on a mutex this thread owns is undefined)
      fn(0, n);
      return;
    }
    std::unique_lock<std::mutex> region(region_mutex_, std::try_to_lock);
    if (!region.owns_lock()) {  // another region runs: this one runs on its caller
      fn(0, n);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      fn_ = &fn;
      n_ = n;
      chunk_ = chunk;
      cursor_.store(0, std::memory_order_relaxed);
      pending_ = (n + chunk - 1) / chunk;
      ++generation_;
    }
    wake_.notify_all();
    in_region_ = true;
    drain();
    in_region_ = false;
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0 && active_ == 0; });
    fn_ = nullptr;  // under the lock, with no worker inside: a late worker cannot join this job
  }

 private:
  void drain() {
    for (;;) {
      int64_t begin = cursor_.fetch_add(chunk_, std::memory_order_relaxed);
      if (begin >= n_) return;
      (*fn_)(begin, std::min(n_, begin + chunk_));
      std::lock_guard<std::mutex> lock(mutex_);
      if (--pending_ == 0) done_.notify_all();
    }
  }

  void work() {
    in_region_ = true;  // a parallel_for inside a chunk runs inline
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return generation_ != seen && fn_ != nullptr; });
        seen = generation_;
        ++active_;
      }
      drain();
      std::lock_guard<std::mutex> lock(mutex_);
      if (--active_ == 0 && pending_ == 0) done_.notify_all();
    }
  }

  const int threads_;
  std::vector<std::thread> workers_;
  std::mutex region_mutex_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(int64_t, int64_t)>* fn_ = nullptr;
  int64_t n_ = 0, chunk_ = 1, pending_ = 0;
  int active_ = 0;  // workers inside drain() of the current job
  std::atomic<int64_t> cursor_{0};
  uint64_t generation_ = 0;
  static thread_local bool in_region_;
};

thread_local bool Pool::in_region_ = false;

Pool& pool() {
  static Pool* instance = new Pool(configured_threads());
  return *instance;
}

}  // namespace

int num_threads() { return pool().threads(); }

void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  Pool& p = pool();
  if (n <= grain || p.threads() == 1) {
    fn(0, n);
    return;
  }
  // About 4 chunks per thread balance uneven chunks without much claiming overhead.
  int64_t chunk = std::max(grain, (n + 4 * p.threads() - 1) / (4 * p.threads()));
  p.run(n, chunk, fn);
}

}  // namespace ascendsim::kernels
