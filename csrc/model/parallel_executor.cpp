// The multi-threaded topological executor (see parallel_executor.h).
#include "model/parallel_executor.h"

#include <condition_variable>
#include <mutex>
#include <vector>

#include "kernels/thread_pool.h"

namespace ascendsim::model {

void execute_parallel_topological(const ascendsim_exec_graph& graph, uint32_t* pending_scratch,
                                  uint32_t* queue_scratch) {
  const int threads = kernels::num_threads();
  if (threads == 1) {  // nothing to share: the single-threaded queue, without the lock
    ascendsim_execute_topological(&graph, pending_scratch, queue_scratch);
    return;
  }
  constexpr uint32_t kNoNode = UINT32_MAX;
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<uint32_t> pending(graph.in_degree, graph.in_degree + graph.count);
  std::vector<uint32_t> ready(graph.roots, graph.roots + graph.root_count);
  ready.reserve(graph.count);
  size_t done = 0;
  // A thread keeps the first successor its node releases (no queue round trip and no wake-up: a chain of steps
  // stays on one thread) and queues the others, waking the waiting threads only for those.
  auto worker = [&](int64_t, int64_t) {
    std::unique_lock<std::mutex> lock(mutex);
    uint32_t next = kNoNode;
    while (true) {
      if (next == kNoNode) {
        changed.wait(lock, [&] { return !ready.empty() || done == graph.count; });
        if (ready.empty()) return;  // every node has run
        next = ready.back();
        ready.pop_back();
      }
      const uint32_t n = next;
      lock.unlock();
      graph.nodes[n].func(graph.nodes[n].context);
      lock.lock();
      ++done;
      next = kNoNode;
      bool queued = false;
      for (uint32_t s = graph.succ_begin[n]; s < graph.succ_begin[n + 1]; ++s) {
        if (--pending[graph.succ[s]] != 0) continue;
        if (next == kNoNode) {
          next = graph.succ[s];
        } else {
          ready.push_back(graph.succ[s]);
          queued = true;
        }
      }
      if (queued || done == graph.count) changed.notify_all();
    }
  };
  // One chunk per thread: each chunk is a worker loop over the shared queue.
  kernels::parallel_for(threads, 1, worker);
}

}  // namespace ascendsim::model
