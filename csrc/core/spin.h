// Bounded spinning for the low-latency waits of the stream engine: a thread about to sleep on a condition
// variable first polls for a few tens of microseconds, because a futex sleep/wake pair costs more than the
// whole operation it waits for when the other side is already running.
#pragma once
#include <algorithm>
#include <chrono>
#include <thread>

namespace ascendsim {

// The spin-wait hint of this CPU (x86 pause, aarch64 yield), which lets a sibling hardware thread run; on other
// architectures nothing (the loop works without it). The one place for it: the thread pool spins through it too.
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// Polls pred() until it holds or `budget` has passed; returns pred(). The first kPureSpin is a plain pause
// loop (the common case: the other thread runs on another core and answers within a microsecond or two);
// after that each poll also yields, in case the thread being waited for shares this core (sched_yield
// costs about a microsecond on a VM, so it is not used from the start).
template <typename Pred>
bool spin_until(const Pred& pred, std::chrono::steady_clock::duration budget) {
  if (pred()) return true;
  constexpr auto kPureSpin = std::chrono::microseconds(1);
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + budget;
  const auto yield_from = start + std::min<std::chrono::steady_clock::duration>(kPureSpin, budget);
  bool yielding = false;
  for (unsigned i = 1;; ++i) {
    if (yielding)
      std::this_thread::yield();
    else
      cpu_relax();
    if (pred()) return true;
    if (yielding || (i & 31U) == 0) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline) return pred();
      yielding = now >= yield_from;
    }
  }
}

}  // namespace ascendsim
