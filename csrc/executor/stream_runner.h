// Running a plan whose nodes the compiler assigned to several streams (docs/om-format.md §6), the way the
// device runs a sunk model: every stream is its own sequential loop over {func, context} nodes (the pure-C
// loop of sequential_executor.c), and the compiler's EVENT_RECORD / EVENT_WAIT tasks become nodes of those
// loops, so the loops synchronise exactly where the compiler said and nowhere else.
//
// Events: the compiler may reuse an event id, but only after the previous wait on it is ordered before the
// new record. So the k-th RECORD of event e (in the plan's global task order) simply publishes the value k
// in e's counter, and a WAIT that follows the k-th record waits until the counter reaches k. The counters
// are reset before every execution. A waiter polls briefly (the other stream is usually about to record)
// and then sleeps on a condition variable that a record signals only when someone sleeps.
//
// Threads: stream 0 runs on the thread that executes the model (the user's stream worker, or the caller of
// aclmdlExecute); every other stream has a worker thread owned by the runner, parked between executions.
// The kernels of concurrent streams share the intra-op thread pool, which serves one parallel region at a
// time and runs any other on its caller (one thread beside the pool's: model/loaded_model.cpp therefore runs a
// plan's streams in task order on one loop when the pool has several threads).
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "executor/sequential_executor.h"

namespace ascendsim::executor {

class StreamRunner {
 public:
  StreamRunner(uint32_t stream_count, uint32_t event_count);
  ~StreamRunner();
  StreamRunner(const StreamRunner&) = delete;
  StreamRunner& operator=(const StreamRunner&) = delete;

  uint32_t stream_count() const { return static_cast<uint32_t>(streams_.size()); }

  // Building a stream's program, in its order: a kernel (or any) node, a record, a wait. `value` is the
  // ordinal described at the top of this file. The runner owns the contexts of event nodes.
  void add_node(uint32_t stream, ascendsim_exec_node node) { streams_[stream].push_back(node); }
  void add_record(uint32_t stream, uint32_t event, uint32_t value);
  void add_wait(uint32_t stream, uint32_t event, uint32_t value);

  const std::vector<ascendsim_exec_node>& nodes(uint32_t stream) const { return streams_[stream]; }

  // Runs every stream to its end; returns when all have finished. With an observer, every stream runs the
  // subscriber loop with users[stream]. `event_timeout_ms` > 0: a wait that lasts longer is reported (the
  // return value is false and *late_event names its event), and still completes, since the streams' memory
  // must stay consistent; -1: no limit.
  bool run(ascendsim_node_observer observer, void* const* users, int32_t event_timeout_ms, uint32_t* late_event);

 private:
  struct EventNode;
  void worker(uint32_t stream);
  void run_stream(uint32_t stream);
  static void record(void* context);
  static void wait(void* context);

  std::vector<std::vector<ascendsim_exec_node>> streams_;
  std::deque<EventNode> event_nodes_;  // stable addresses: nodes point at them
  std::unique_ptr<std::atomic<uint32_t>[]> counters_;
  uint32_t event_count_ = 0;

  // Cross-stream sleeping waits.
  std::mutex event_mutex_;
  std::condition_variable event_cv_;
  std::atomic<int> sleepers_{0};

  // The current execution, published to the workers under start_mutex_.
  std::mutex start_mutex_;
  std::condition_variable start_cv_, done_cv_;
  uint64_t generation_ = 0;
  uint32_t running_ = 0;
  bool stopping_ = false;
  ascendsim_node_observer observer_ = nullptr;
  void* const* users_ = nullptr;
  int32_t event_timeout_ms_ = -1;
  std::atomic<uint32_t> late_event_{UINT32_MAX};
  std::vector<std::thread> workers_;
};

}  // namespace ascendsim::executor
