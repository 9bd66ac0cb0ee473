/* The sequential loop over a plan's {func, context} nodes (see sequential_executor.h). */
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c11 */
#include "executor/sequential_executor.h"

#include <time.h>

void ascendsim_execute_nodes(const ascendsim_exec_node* nodes, size_t count) {
  const ascendsim_exec_node* end = nodes + count;
  for (const ascendsim_exec_node* node = nodes; node != end; ++node) node->func(node->context);
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void ascendsim_execute_nodes_subscribed(const ascendsim_exec_node* nodes, size_t count,
                                        ascendsim_node_observer observer, void* user) {
  for (size_t i = 0; i < count; ++i) {
    const uint64_t start = now_ns();
    nodes[i].func(nodes[i].context);
    observer(user, i, start, now_ns());
  }
}
