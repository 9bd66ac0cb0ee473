// The intra-op thread pool (see thread_pool.h).
//
// A region publishes its job (callable, item count, chunk size) and then one atomic state word
// {generation, closed, active workers}. Workers spin on that word for a short while after each region
// (regions of a model follow each other within microseconds; a condition variable wake-up costs several
// microseconds per region) and only then sleep on a condition variable; the caller notifies only when a
// worker sleeps. A worker joins the job by incrementing the active count with a compare-exchange that also
// checks the generation and that the job is still open, then claims chunks: first from its own share (the
// chunks are cut into one run per thread, the caller's first, worker i's the (i+1)-th), then from the others'
// shares, each through that share's atomic cursor. So a thread that keeps up computes the same part of every
// region: the same part of each layer's output, which it then reads in the next layer from its own cache (with
// one cursor for all, which thread took which chunk changed from layer to layer, and half of every layer's
// input came from the other core's cache). The caller, once every share is exhausted, waits (spinning: the
// remaining chunks are being run) until no worker is active and closes the job in the same compare-exchange,
// so a late worker can never join a finished job or see the next job's fields half written. Only one region
// runs at a time (try_lock): a concurrent caller runs its loop itself, which keeps two executing models from
// oversubscribing the CPUs and makes nested calls safe.
#include "kernels/thread_pool.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "core/spin.h"  // cpu_relax: the spin-wait hint of each architecture, in one place

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

// How long an idle worker spins before it sleeps.
constexpr auto kSpin = std::chrono::microseconds(200);

// The state word: generation in the high bits, then the closed flag, then the active worker count.
constexpr uint64_t kActiveBits = 16;
constexpr uint64_t kClosed = uint64_t{1} << kActiveBits;
constexpr uint64_t kActiveMask = kClosed - 1;
constexpr uint64_t kGenerationOne = kClosed << 1;
inline uint64_t generation_of(uint64_t state) { return state >> (kActiveBits + 1); }

class Pool {
 public:
  explicit Pool(int threads) : threads_(threads), shares_(static_cast<size_t>(threads)) {
    for (int i = 1; i < threads_; ++i) {
      workers_.emplace_back([this, i] { work(i); });
      // Named here: a new thread would otherwise inherit the name of whichever thread first ran a region.
      pthread_setname_np(workers_.back().native_handle(), "ascendsim-pool");
    }
  }
  // Never destroyed (a static pointer): workers may still sleep at process exit, which is harmless.

  int threads() const { return threads_; }

  void run(int64_t n, int64_t chunk, ChunkFn fn) {
    if (in_region_) {  // nested (checked first: try_lock on a mutex this thread owns is undefined)
      fn.call(fn.object, 0, n);
      return;
    }
    std::unique_lock<std::mutex> region(region_mutex_, std::try_to_lock);
    if (!region.owns_lock()) {  // another region runs: this one runs on its caller
      fn.call(fn.object, 0, n);
      return;
    }
    // The previous job is closed with no worker active: nobody reads these fields now.
    fn_ = fn;
    n_ = n;
    chunk_ = chunk;
    const int64_t chunks = (n + chunk - 1) / chunk;
    for (int i = 0; i < threads_; ++i) {
      Share& share = shares_[static_cast<size_t>(i)];
      share.next.store(chunks * i / threads_, std::memory_order_relaxed);
      share.end = chunks * (i + 1) / threads_;
    }
    uint64_t next = (state_.load(std::memory_order_relaxed) & ~(kClosed | kActiveMask)) + kGenerationOne;
    state_.store(next, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) > 0) {
      std::lock_guard<std::mutex> lock(sleep_mutex_);
      wake_.notify_all();
    }
    in_region_ = true;
    drain(0);
    in_region_ = false;
    // Close: wait until the workers that joined have finished their chunks.
    uint64_t state = state_.load(std::memory_order_acquire);
    for (;;) {
      if ((state & kActiveMask) == 0 &&
          state_.compare_exchange_weak(state, state | kClosed, std::memory_order_acq_rel, std::memory_order_acquire))
        break;
      cpu_relax();
      state = state_.load(std::memory_order_acquire);
    }
  }

 private:
  // Runs chunks of participant `self`'s share, then of the others' (the caller is participant 0).
  void drain(int self) {
    for (int k = 0; k < threads_; ++k) {
      Share& share = shares_[static_cast<size_t>((self + k) % threads_)];
      for (;;) {
        const int64_t c = share.next.fetch_add(1, std::memory_order_relaxed);
        if (c >= share.end) break;
        fn_.call(fn_.object, c * chunk_, std::min(n_, (c + 1) * chunk_));
      }
    }
  }

  // Joins the open job of a generation newer than `*seen`; false when there is none (marks a closed
  // job as seen).
  bool try_join(uint64_t* seen) {
    uint64_t state = state_.load(std::memory_order_acquire);
    while (generation_of(state) != *seen) {
      if (state & kClosed) {
        *seen = generation_of(state);
        return false;
      }
      if (state_.compare_exchange_weak(state, state + 1, std::memory_order_acq_rel, std::memory_order_acquire)) {
        *seen = generation_of(state);
        return true;
      }
    }
    return false;
  }

  void work(int self) {
    in_region_ = true;  // a parallel_for inside a chunk runs inline
    uint64_t seen = 0;
    for (;;) {
      bool joined = try_join(&seen);
      if (!joined) {
        auto until = std::chrono::steady_clock::now() + kSpin;
        for (int i = 1; !(joined = try_join(&seen)); ++i) {
          cpu_relax();
          if ((i & 255) == 0 && std::chrono::steady_clock::now() > until) break;
        }
      }
      if (!joined) {
        std::unique_lock<std::mutex> lock(sleep_mutex_);
        sleepers_.fetch_add(1, std::memory_order_seq_cst);
        wake_.wait(lock, [&] { return generation_of(state_.load(std::memory_order_seq_cst)) != seen; });
        sleepers_.fetch_sub(1, std::memory_order_relaxed);
        continue;
      }
      drain(self);
      state_.fetch_sub(1, std::memory_order_release);
    }
  }

  // A participant's run of chunks: the next to claim, and the end (one cache line each: claimed concurrently).
  struct alignas(64) Share {
    std::atomic<int64_t> next{0};
    int64_t end = 0;
  };

  const int threads_;
  std::vector<Share> shares_;
  std::vector<std::thread> workers_;
  std::mutex region_mutex_;
  ChunkFn fn_{nullptr, nullptr};
  int64_t n_ = 0, chunk_ = 1;
  std::atomic<uint64_t> state_{kClosed};  // generation 0, closed: workers wait for generation 1
  std::atomic<int> sleepers_{0};
  std::mutex sleep_mutex_;
  std::condition_variable wake_;
  static thread_local bool in_region_;
};

thread_local bool Pool::in_region_ = false;

Pool& pool() {
  static Pool* instance = new Pool(configured_threads());
  return *instance;
}

}  // namespace

int64_t chunk_size(int64_t n, int64_t grain, int threads) {
  // Claimed dynamically, chunks leave one thread at most about one chunk behind the other: at n / 4T items that
  // can be a quarter of a share (14 conv blocks in chunks of 2 ran 8 on one thread, 6 on the other). With q
  // chunks per thread of ceil(n / qT) items, a thread runs at most ceil(chunks / T) of them; q rises from 4 (few
  // claims) until that is within 1/16 of the even share n / T, which every n >= 64T meets at q = 4, or until
  // the chunk is the grain.
  const int64_t t = std::max(threads, 1);
  for (int64_t q = 4;; ++q) {
    const int64_t chunk = std::max(grain, (n + q * t - 1) / (q * t));
    const int64_t per_thread = ((n + chunk - 1) / chunk + t - 1) / t;
    if (chunk == grain || 16 * per_thread * chunk * t <= 17 * n) return chunk;
  }
}

int num_threads() {
  static const int threads = pool().threads();
  return threads;
}

namespace detail {

void run_parallel(int64_t n, int64_t grain, ChunkFn fn) { pool().run(n, chunk_size(n, grain, num_threads()), fn); }

}  // namespace detail

}  // namespace ascendsim::kernels
