// The multi-threaded topological executor (see parallel_executor.h).
#include "model/parallel_executor.h"

#include <condition_variable>
#include <mutex>
#include <vector>

#include "kernels/thread_pool.h"

namespace ascendsim::model {

void execute_parallel_topological(const ascendsim_exec_graph& graph) {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<uint32_t> pending(graph.in_degree, graph.in_degree + graph.count);
  std::vector<uint32_t> ready;
  ready.reserve(graph.count);
  for (size_t i = 0; i < graph.count; ++i)
    if (pending[i] == 0) ready.push_back(static_cast<uint32_t>(i));
  size_t done = 0;
  auto worker = [&](int64_t, int64_t) {
    std::unique_lock<std::mutex> lock(mutex);
    while (true) {
      changed.wait(lock, [&] { return !ready.empty() || done == graph.count; });
      if (ready.empty()) return;  // every node has run
      const uint32_t n = ready.back();
      ready.pop_back();
      lock.unlock();
      graph.nodes[n].func(graph.nodes[n].context);
      lock.lock();
      ++done;
      for (uint32_t s = graph.succ_begin[n]; s < graph.succ_begin[n + 1]; ++s)
        if (--pending[graph.succ[s]] == 0) ready.push_back(graph.succ[s]);
      changed.notify_all();
    }
  };
  // One chunk per thread: each chunk is a worker loop over the shared queue.
  const int threads = kernels::num_threads();
  kernels::parallel_for(threads, 1, worker);
}

}  // namespace ascendsim::model
