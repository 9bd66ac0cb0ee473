/* The topological executor: runs a graph of {func, context} nodes in an order its edges allow, by
 * dependency counts. Each node's count of unfinished predecessors starts at its in-degree; the nodes at zero
 * form the ready queue; running a node decrements the counts of its successors and appends those that reach
 * zero, except the first, which runs next (a chain then never touches the queue). Every node runs exactly once,
 * after all its predecessors. The v2 runtime's execute graph uses it
 * when the order is given by the data (csrc/model/hybrid_model.cpp); the multi-threaded variant
 * (csrc/model/parallel_executor.cpp) runs the same queue on several threads. */
#ifndef ASCENDSIM_EXECUTOR_TOPOLOGICAL_EXECUTOR_H_
#define ASCENDSIM_EXECUTOR_TOPOLOGICAL_EXECUTOR_H_
#include <stddef.h>
#include <stdint.h>

#include "executor/sequential_executor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ascendsim_exec_graph {
  const ascendsim_exec_node* nodes;
  size_t count;
  const uint32_t* in_degree;    /* [count] */
  const uint32_t* succ_begin;   /* [count + 1]: node i's successors are succ[succ_begin[i] .. succ_begin[i+1]) */
  const uint32_t* succ;
  const uint32_t* roots;        /* [root_count]: the nodes of in-degree 0, in order */
  size_t root_count;
} ascendsim_exec_graph;

/* `pending` and `queue` are scratch arrays of graph->count entries each (no allocation on the hot path). */
void ascendsim_execute_topological(const ascendsim_exec_graph* graph, uint32_t* pending, uint32_t* queue);

#ifdef __cplusplus
}
#endif
#endif
