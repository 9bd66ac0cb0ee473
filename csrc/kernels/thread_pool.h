// The intra-op thread pool: parallel_for splits [0, n) into chunks run by the calling thread and the
// pool's workers. One pool per process, sized by ASCENDSIM_NUM_THREADS (default: the CPUs this process may
// use). A parallel region started while another one runs (a second model executing on another thread, or a
// kernel called from inside a chunk) runs serially on its caller: never a deadlock, never oversubscription.
//
// parallel_for is a template so that a small region (n <= grain, or a pool of one thread) is a direct call
// of the caller's lambda: no std::function, no allocation, no pool. Only a region worth splitting passes
// through the pool, as a non-owning (object, trampoline) pair.
#pragma once
#include <cstdint>
#include <type_traits>

namespace ascendsim::kernels {

// Threads a parallel region may use (the pool's workers + the caller), >= 1.
int num_threads();

// Jobs per thread that a kernel cutting its work into jobs of equal cost aims for, at least: enough to even out
// the threads' shares when one runs late.
constexpr int64_t kMinJobsPerThread = 4;

// A non-owning reference to a callable fn(begin, end), valid while the region runs.
struct ChunkFn {
  void* object;
  void (*call)(void* object, int64_t begin, int64_t end);
};

// The chunk run_parallel claims at a time: at least `grain` items, few claims, and an even share per thread
// when the items cost the same (exposed for its test).
int64_t chunk_size(int64_t n, int64_t grain, int threads);

namespace detail {
// Splits [0, n) over the pool (n > grain >= 1, more than one thread).
void run_parallel(int64_t n, int64_t grain, ChunkFn fn);
}  // namespace detail

// Calls fn(begin, end) on disjoint chunks covering [0, n); a chunk holds at least `grain` items (the last
// may hold fewer). Runs inline when n <= grain, with one thread, or when the pool is busy.
template <class Fn>
inline void parallel_for(int64_t n, int64_t grain, Fn&& fn) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  if (n <= grain || num_threads() == 1) {
    fn(int64_t{0}, n);
    return;
  }
  using F = std::remove_reference_t<Fn>;
  detail::run_parallel(n, grain, ChunkFn{const_cast<void*>(static_cast<const void*>(&fn)), [](void* f, int64_t b, int64_t e) {
                                           (*static_cast<F*>(f))(b, e);
                                         }});
}

}  // namespace ascendsim::kernels
