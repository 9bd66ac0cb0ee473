/* The single-threaded topological loop over an execute graph (see topological_executor.h). */
#include "executor/topological_executor.h"

#include <string.h>

void ascendsim_execute_topological(const ascendsim_exec_graph* graph, uint32_t* pending, uint32_t* queue) {
  size_t head = 0, tail = graph->root_count;
  memcpy(pending, graph->in_degree, graph->count * sizeof *pending);
  memcpy(queue, graph->roots, graph->root_count * sizeof *queue);
  while (head < tail) {
    uint32_t n = queue[head++];
    for (;;) {
      graph->nodes[n].func(graph->nodes[n].context);
      /* The first successor made ready runs next, without the queue (a chain's every step); the others wait. */
      uint32_t next = UINT32_MAX;
      for (uint32_t s = graph->succ_begin[n]; s < graph->succ_begin[n + 1]; ++s) {
        const uint32_t t = graph->succ[s];
        if (--pending[t] != 0) continue;
        if (next == UINT32_MAX) next = t;
        else queue[tail++] = t;
      }
      if (next == UINT32_MAX) break;
      n = next;
    }
  }
}
