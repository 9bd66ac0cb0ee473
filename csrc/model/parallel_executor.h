// The multi-threaded topological executor: the ready queue of executor/topological_executor.h shared by the
// threads of the intra-op pool, so that independent branches of an execute graph run at once. Each thread
// takes a ready node, runs it, and releases the successors whose count reaches zero; a thread that finds the
// queue empty waits until a node becomes ready or every node has run. (A kernel run by one of these threads
// finds the pool busy and runs its own parallel loops serially: the parallelism moves from inside the ops
// to across them.) When the pool is busy with another region, the calling thread runs the whole graph; with
// a pool of one thread, the single-threaded queue runs it (in `pending` and `queue`, graph.count entries each,
// as ascendsim_execute_topological takes them).
#pragma once
#include <cstdint>

#include "executor/topological_executor.h"

namespace ascendsim::model {

void execute_parallel_topological(const ascendsim_exec_graph& graph, uint32_t* pending, uint32_t* queue);

}  // namespace ascendsim::model
