// Event state machine.
//
// aclrtRecordEvent numbers each record on the host (issued_ = 1, 2, ...) and enqueues a task that, when the
// stream reaches it, completes record n: done_ = max(done_, n), stamped with the steady clock. Everything
// that waits for the event captures a record number at call time as its target and waits for done_ >=
// target, i.e. for the latest record made before the call (with no record yet the target is 0 and the wait
// passes at once, as the real runtime does for aclrtSynchronizeEvent on a never-recorded event). A newer
// record that completes before an older one (records on two streams) supersedes it.
// A stream wait targets the latest record already *queued* (published_), not merely numbered (issued_): a
// record numbered by one thread but not yet queued when another thread queues a wait for it on the same
// stream would land behind that wait, and the stream would wait for itself forever. Records queued before
// the wait can only depend on earlier queued work, so waits never form a cycle. The host (synchronize,
// query) may target issued_: it is no stream and the record is queued (or discarded) momentarily.
//   - aclrtSynchronizeEvent: the host thread spins briefly, then sleeps on the condition variable.
//   - aclrtStreamWaitEvent: a task on the waiting stream does the same wait on that stream's worker, through
//     Stream::wait_in_task so that force-destroying the waiting stream interrupts it. The host never blocks.
//   - aclrtQueryEvent: COMPLETE unless the latest record is still pending (never recorded: COMPLETE).
//   - aclrtQueryEventStatus: COMPLETE only once the latest record has run (not discarded) and no reset ran
//     after it; never recorded: NOT_READY.
//   - aclrtQueryEventWaitStatus: COMPLETE once every aclrtStreamWaitEvent issued on the event so far has
//     been satisfied (none issued: COMPLETE).
//   - aclrtResetEvent: a task that returns the event to "not recorded" for QueryEventStatus and ElapsedTime;
//     waits and synchronizes are unaffected (they compare record numbers).
// A record discarded by its stream (ACL_STOP_ON_FAILURE abort, force destroy) completes with the reason:
// synchronize returns it, waiting streams are released, and the event has no timestamp.
#include "runtime/event.h"

#include <chrono>

#include "core/error.h"
#include "core/spin.h"
#include "prof/profiler.h"
#include "runtime/stream.h"

namespace ascendsim {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kHostSpin = std::chrono::microseconds(50);

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

}  // namespace

Event::Event(uint32_t flags) : flags_(flags) {}

void Event::complete(uint64_t seq, int64_t stamp_ns, aclError error) {
  bool notify = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (seq > done_.load(std::memory_order_relaxed)) {
      stamp_ns_ = stamp_ns;
      done_error_ = error;
      reset_ = false;
      done_.store(seq, std::memory_order_seq_cst);
    }
    notify = waiters_ > 0;
  }
  if (notify) completed_cv_.notify_all();
}

bool Event::wait_done(uint64_t target, int32_t timeout_ms, bool in_task) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms > 0 ? timeout_ms : 0);
  const auto done = [&] { return done_.load(std::memory_order_seq_cst) >= target; };
  if (spin_until(done, kHostSpin)) return true;
  std::unique_lock<std::mutex> lock(mutex_);
  ++waiters_;
  bool ok = true;
  if (in_task)
    ok = Stream::wait_in_task(lock, completed_cv_, done);
  else if (timeout_ms < 0)
    completed_cv_.wait(lock, done);
  else
    ok = completed_cv_.wait_until(lock, deadline, done);
  --waiters_;
  return ok;
}

aclError Event::record(Stream& stream) {
  uint64_t seq = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    seq = ++issued_;
  }
  auto self = shared_from_this();
  const aclError ret = stream.enqueue(
      [self, seq] {
        prof::task_completes_now();  // the record's span ends before a waiter can see it
        self->complete(seq, now_ns(), ACL_SUCCESS);
        return ACL_SUCCESS;
      },
      [self, seq](aclError reason) { self->complete(seq, 0, reason); },
      prof::TaskLabel{"EventRecord", {"event", reinterpret_cast<uintptr_t>(this)}, {"seq", seq}});
  // Queued (or already completed as discarded): from now on stream waits may target it.
  std::lock_guard<std::mutex> lock(mutex_);
  if (seq > published_) published_ = seq;
  return ret;
}

aclError Event::reset(Stream& stream) {
  auto self = shared_from_this();
  return stream.enqueue(
      [self] {
        std::lock_guard<std::mutex> lock(self->mutex_);
        self->reset_ = true;
        return ACL_SUCCESS;
      },
      nullptr, prof::TaskLabel{"EventReset", {"event", reinterpret_cast<uintptr_t>(this)}, {}});
}

aclError Event::wait_on(Stream& stream) {
  uint64_t target = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    target = published_;  // not issued_: see the top of this file
  }
  waits_issued_.fetch_add(1);
  auto self = shared_from_this();
  return stream.enqueue(
      [self, target] {
        self->wait_done(target, -1, true);  // false only when the waiting stream is being force-destroyed
        self->waits_done_.fetch_add(1);
        return ACL_SUCCESS;
      },
      [self](aclError) { self->waits_done_.fetch_add(1); },
      prof::TaskLabel{"EventWait", {"event", reinterpret_cast<uintptr_t>(this)}, {"seq", target}});
}

aclrtEventStatus Event::query() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_.load(std::memory_order_relaxed) >= issued_ ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
}

aclrtEventRecordedStatus Event::recorded_status() const {
  std::lock_guard<std::mutex> lock(mutex_);
  const bool complete = issued_ > 0 && done_.load(std::memory_order_relaxed) >= issued_ &&
                        done_error_ == ACL_SUCCESS && !reset_;
  return complete ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
}

aclrtEventWaitStatus Event::wait_status() const {
  const uint64_t done = waits_done_.load();
  return done >= waits_issued_.load() ? ACL_EVENT_WAIT_STATUS_COMPLETE : ACL_EVENT_WAIT_STATUS_NOT_READY;
}

aclError Event::synchronize(int32_t timeout_ms) {
  uint64_t target = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    target = issued_;
  }
  if (!wait_done(target, timeout_ms, false)) return ACL_ERROR_RT_EVENT_SYNC_TIMEOUT;
  std::lock_guard<std::mutex> lock(mutex_);
  return done_error_;
}

aclError Event::elapsed_ms(const Event& start, const Event& end, float* ms, const char* api) {
  struct Snapshot {
    uint64_t issued, done;
    int64_t stamp;
    aclError error;
    bool reset;
  };
  const auto snapshot = [](const Event& e) {
    std::lock_guard<std::mutex> lock(e.mutex_);
    return Snapshot{e.issued_, e.done_.load(std::memory_order_relaxed), e.stamp_ns_, e.done_error_, e.reset_};
  };
  const Snapshot s = snapshot(start);
  const Snapshot e = snapshot(end);
  const Snapshot* both[2] = {&s, &e};
  const char* names[2] = {"startEvent", "endEvent"};
  const void* handles[2] = {&start, &end};
  for (int i = 0; i < 2; ++i) {
    const Snapshot& x = *both[i];
    if (x.issued == 0 || (x.reset && x.done >= x.issued))
      return fail(ACL_ERROR_RT_INTERNAL_ERROR, "%s: %s %p has no record (never recorded, or reset since)", api,
                  names[i], handles[i]);
    if (x.done < x.issued)
      return fail(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
                  "%s: %s %p: its latest record has not completed yet (synchronize the event first)", api, names[i],
                  handles[i]);
    if (x.error != ACL_SUCCESS)
      return fail(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
                  "%s: %s %p: its latest record was discarded (error %d) and has no timestamp", api, names[i],
                  handles[i], x.error);
  }
  *ms = static_cast<float>(static_cast<double>(e.stamp - s.stamp) / 1e6);
  return ACL_SUCCESS;
}

}  // namespace ascendsim
