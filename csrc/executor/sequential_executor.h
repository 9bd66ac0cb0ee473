/* The sequential executor: GE's runtime idea kept small. A plan is an array of {func, context} nodes; running
 * it is a loop that calls each func with its context, in order. Everything a node needs (its kernel, the
 * addresses of its tensors) was resolved at load time into its context, so the loop does no lookups, no
 * allocation and no branching beyond the call. Pure C so that the hot loop is exactly what it looks like.
 * The subscriber variant calls an observer around every node (per-node timing); it is a separate loop, so
 * the plain loop pays nothing when profiling is off. */
#ifndef ASCENDSIM_EXECUTOR_SEQUENTIAL_EXECUTOR_H_
#define ASCENDSIM_EXECUTOR_SEQUENTIAL_EXECUTOR_H_
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*ascendsim_node_func)(void* context);

typedef struct ascendsim_exec_node {
  ascendsim_node_func func;
  void* context;
} ascendsim_exec_node;

/* Called after each node with its index and its start and end times (CLOCK_MONOTONIC nanoseconds). */
typedef void (*ascendsim_node_observer)(void* user, size_t index, uint64_t start_ns, uint64_t end_ns);

void ascendsim_execute_nodes(const ascendsim_exec_node* nodes, size_t count);
void ascendsim_execute_nodes_subscribed(const ascendsim_exec_node* nodes, size_t count,
                                        ascendsim_node_observer observer, void* user);

#ifdef __cplusplus
}
#endif
#endif
