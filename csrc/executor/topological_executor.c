/* The single-threaded topological loop over an execute graph (see topological_executor.h). */
#include "executor/topological_executor.h"

void ascendsim_execute_topological(const ascendsim_exec_graph* graph, uint32_t* pending, uint32_t* queue) {
  size_t head = 0, tail = 0;
  for (size_t i = 0; i < graph->count; ++i) {
    pending[i] = graph->in_degree[i];
    if (pending[i] == 0) queue[tail++] = (uint32_t)i;
  }
  while (head < tail) {
    const uint32_t n = queue[head++];
    graph->nodes[n].func(graph->nodes[n].context);
    for (uint32_t s = graph->succ_begin[n]; s < graph->succ_begin[n + 1]; ++s)
      if (--pending[graph->succ[s]] == 0) queue[tail++] = graph->succ[s];
  }
}
