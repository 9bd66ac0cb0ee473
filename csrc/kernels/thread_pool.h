// The intra-op thread pool: parallel_for splits [0, n) into chunks run by the calling thread and the
// pool's workers. One pool per process, sized by ASCENDSIM_NUM_THREADS (default: the CPUs this process may
// use). A parallel region started while another one runs (a second model executing on another thread, or a
// kernel called from inside a chunk) runs serially on its caller: never a deadlock, never oversubscription.
#pragma once
#include <cstdint>
#include <functional>

namespace ascendsim::kernels {

// Threads a parallel region may use (the pool's workers + the caller), >= 1.
int num_threads();

// Calls fn(begin, end) on disjoint chunks covering [0, n); a chunk holds at least `grain` items (the last
// may hold fewer). Runs inline when n <= grain or the pool is busy.
void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

}  // namespace ascendsim::kernels
