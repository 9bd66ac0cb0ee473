// Checks of the multi-stream runner (csrc/executor/stream_runner.cpp): events order plain (non-atomic)
// memory between streams, a reused event id, many executions in a row, the subscriber loop, and the event
// sync timeout (reported, and the execution still completes). Built with and without ThreadSanitizer, which
// would report any access the events fail to order. Prints "OK" on success.
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "executor/stream_runner.h"

using ascendsim::executor::StreamRunner;

namespace {

// Plain data handed between streams: only the events make these accesses safe.
struct Shared {
  std::vector<int> a, b, c;
  int sum = 0;
  int sleep_ms = 0;
};

Shared shared;

void produce_a(void*) {
  for (size_t i = 0; i < shared.a.size(); ++i) shared.a[i] = static_cast<int>(i);
}
void produce_b(void*) {
  if (shared.sleep_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(shared.sleep_ms));
  for (size_t i = 0; i < shared.b.size(); ++i) shared.b[i] = 2 * static_cast<int>(i);
}
void combine(void*) {
  for (size_t i = 0; i < shared.c.size(); ++i) shared.c[i] = shared.a[i] + shared.b[i];
}
void overwrite_a(void*) {  // may run only after `combine` consumed a (the second use of event 0)
  for (int& v : shared.a) v = -1;
}
void total(void*) {
  shared.sum = 0;
  for (int v : shared.c) shared.sum += v;
}

void observe(void* user, size_t, uint64_t start, uint64_t end) {
  if (end >= start) ++*static_cast<int*>(user);
}

// Streams: 0 = a, wait(b), combine, record e0 (2nd), total; 1 = b, record e1; 2 = wait(e0 #2), overwrite a.
// Event 0 is used twice: stream 0 records it after producing a (value 1, nobody waits: the global order
// of the compiler would have a wait, kept simple here), and after combine (value 2), which stream 2 waits for.
void build(StreamRunner& r) {
  r.add_node(0, {produce_a, nullptr});
  r.add_record(0, 0, 1);
  r.add_node(1, {produce_b, nullptr});
  r.add_record(1, 1, 1);
  r.add_wait(0, 1, 1);
  r.add_node(0, {combine, nullptr});
  r.add_record(0, 0, 2);
  r.add_wait(2, 0, 2);
  r.add_node(2, {overwrite_a, nullptr});
  r.add_wait(0, 2, 1);  // total after overwrite: event 2 from stream 2
  r.add_record(2, 2, 1);
  r.add_node(0, {total, nullptr});
}

bool check(int expected) {
  if (shared.sum != expected) {
    std::printf("sum %d, expected %d\n", shared.sum, expected);
    return false;
  }
  for (int v : shared.a)
    if (v != -1) return false;
  return true;
}

}  // namespace

int main() {
  const int n = 1000;
  shared.a.assign(n, 0);
  shared.b.assign(n, 0);
  shared.c.assign(n, 0);
  const int expected = 3 * (n * (n - 1) / 2);
  StreamRunner runner(3, 3);
  build(runner);
  if (runner.stream_count() != 3 || runner.nodes(0).size() != 7) return 1;
  for (int i = 0; i < 300; ++i) {
    uint32_t late = 0;
    if (!runner.run(nullptr, nullptr, -1, &late) || late != UINT32_MAX || !check(expected)) {
      std::printf("run %d failed\n", i);
      return 2;
    }
  }
  // The subscriber loop sees every node of every stream.
  int counts[3] = {0, 0, 0};
  void* users[3] = {&counts[0], &counts[1], &counts[2]};
  if (!runner.run(observe, users, -1, nullptr) || !check(expected)) return 3;
  if (counts[0] != 7 || counts[1] != 2 || counts[2] != 3) {
    std::printf("observed %d %d %d\n", counts[0], counts[1], counts[2]);
    return 4;
  }
  // Streams waiting longer than the timeout (stream 0 for event 1, stream 2 for event 0): reported with the
  // event of the first wait that expired, and the run still completes.
  shared.sleep_ms = 60;
  uint32_t late = 0;
  if (runner.run(nullptr, nullptr, 5, &late) || late > 1 || !check(expected)) {
    std::printf("timeout: late %u\n", late);
    return 5;
  }
  // Within the timeout: no report.
  shared.sleep_ms = 0;
  if (!runner.run(nullptr, nullptr, 10000, &late) || late != UINT32_MAX || !check(expected)) return 6;
  // One stream: no worker threads, the plain loop.
  StreamRunner single(1, 0);
  single.add_node(0, {produce_a, nullptr});
  single.add_node(0, {produce_b, nullptr});
  single.add_node(0, {combine, nullptr});
  single.add_node(0, {total, nullptr});
  if (!single.run(nullptr, nullptr, -1, nullptr) || shared.sum != expected) return 7;
  std::printf("OK\n");
  return 0;
}
