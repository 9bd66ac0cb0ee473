// Stream execution engine.
//
// Each stream owns a worker thread, started by the first enqueue (a context's default stream that is never
// used costs no thread). Tasks get consecutive sequence numbers: `submitted` is the last one queued and
// `completed` the last one finished (run or discarded), so "every task enqueued before this call has run"
// is `completed >= submitted-at-call-time`, and idle() is `completed == submitted`.
//
// Latency: an enqueue -> run -> synchronize round trip would be dominated by futex wake-ups (several us
// each) if both sides slept. Instead the worker spins for a short while (kWorkerSpin) after running out of
// work, watching `submitted`, and a synchronizing thread spins (kSyncSpin) watching `completed`, before
// either sleeps on its condition variable. Sleepers announce themselves (`sleeping` under the mutex for the
// worker; `wake_at` = smallest awaited sequence number for synchronizers) so the other side pays for a
// notify only when someone sleeps and is due. The wake_at/completed pair is Dekker-style: each side stores
// its own variable and then loads the other's, both seq_cst, and the worker takes the mutex before
// notifying, so no wake-up is lost.
//
// Queue: a mutex-protected deque; the worker takes the whole queue in one swap and runs the batch, so the
// mutex is taken once per batch rather than once per task.
//
// Failures: a task returning non-zero (or throwing) marks the stream failed. With ACL_CONTINUE_ON_FAILURE
// the next tasks still run and the first failure since the last synchronize is reported once by the next
// synchronize. With ACL_STOP_ON_FAILURE the stream is aborted: every later task is discarded and every
// synchronize reports the failure (sticky, like the real runtime's ABORT state; destroy the stream to get
// rid of it). A discarded task's on_discard hook runs so that events and callbacks waiting on it are
// released. The exception-info callback, if set, is called on the worker thread for each failure.
//
// Injected faults: a stream_task rule (core/fault_injection.h) picks tasks by launch order at enqueue; the
// chosen task runs as usual (what it leaves behind is as undefined as after a real AI Core exception) and then
// fails with the rule's code, so events and callbacks waiting on it are released as for any finished task.
//
// Teardown: close(false) drains, close(true) discards and interrupts a blocked task. Tasks that block
// (event waits, blocking callbacks) wait through wait_in_task, which registers the mutex and condition
// variable they sleep on so that close can wake them.
#include "runtime/stream.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <deque>
#include <exception>
#include <limits>
#include <new>
#include <system_error>
#include <thread>

#include "core/error.h"
#include "core/fault_injection.h"
#include "core/spin.h"
#include "runtime/context.h"
#include "runtime/exception_info.h"
#include "runtime/report_queue.h"

namespace ascendsim {
namespace {

using Clock = std::chrono::steady_clock;
// Long enough to cover a host thread's turnaround between two API calls (a Python loop iteration), short
// enough not to matter for CPU use when a stream goes idle.
constexpr auto kWorkerSpin = std::chrono::microseconds(50);
constexpr auto kSyncSpin = std::chrono::microseconds(50);
constexpr int kMaxTrackedDevices = 64;
constexpr uint64_t kNobodyWaits = std::numeric_limits<uint64_t>::max();

uint32_t os_thread_id() {
  thread_local const uint32_t tid = static_cast<uint32_t>(::syscall(SYS_gettid));
  return tid;
}

std::atomic<aclrtExceptionInfoCallback> g_exception_callback{nullptr};
std::atomic<uint32_t> g_next_stream_id{0};
std::atomic<int> g_live_streams[kMaxTrackedDevices];

}  // namespace

struct Stream::Impl {
  struct Entry {
    Task run;
    Discard discard;
    uint64_t seq = 0;
    uint32_t tid = 0;  // the launching host thread, for the exception info
    prof::TaskLabel label;
    fault::Hit injected;  // a stream_task rule chose this task to fail (core/fault_injection.h)
  };

  uint32_t stream_id = 0;
  int device_id = 0;
  bool is_default = false;
  uint32_t prof_track = 0;  // this stream's profiler track, registered by the worker's first profiled task

  std::mutex mutex;
  std::condition_variable work_cv;  // the worker sleeps here
  std::condition_variable done_cv;  // synchronizers sleep here
  std::deque<Entry> queue;
  std::thread worker;
  bool started = false;   // worker thread created
  bool sleeping = false;  // worker is waiting on work_cv
  bool stop = false;      // close(): no more enqueues; the worker exits once the queue is empty
  std::atomic<uint64_t> submitted{0};
  std::atomic<uint64_t> completed{0};
  std::atomic<uint64_t> wake_at{kNobodyWaits};
  std::atomic<bool> discarding{false};  // close(true): discard everything left
  std::atomic<bool> cancelled{false};   // close(true): blocked tasks give up

  std::atomic<uint64_t> mode{ACL_CONTINUE_ON_FAILURE};
  std::atomic<bool> aborted{false};
  std::atomic<aclError> abort_code{ACL_SUCCESS};
  std::mutex failure_mutex;
  Failure pending;  // CONTINUE: the first failure not reported yet
  Failure abort;    // STOP: the failure that aborted the stream

  // The mutex / condition variable a task of this stream is blocked on (wait_in_task), for close(true).
  std::mutex blocker_mutex;
  std::mutex* blocker_lock = nullptr;
  std::condition_variable* blocker_cv = nullptr;

  static void main(std::shared_ptr<Impl> self);
  bool next_batch(std::deque<Entry>* batch, uint64_t* taken);
  void execute(Entry* entry);
  aclError run_profiled(Entry* entry);
  void finish(uint64_t seq);
  void record_failure(const Entry& entry, aclError code);
  aclError take_failure(Failure* out);
  void interrupt();
};

namespace {
thread_local Stream::Impl* t_worker = nullptr;  // the stream whose worker is the calling thread
}

void Stream::Impl::main(std::shared_ptr<Impl> self) {
  t_worker = self.get();
  std::deque<Entry> batch;
  uint64_t taken = 0;
  while (self->next_batch(&batch, &taken)) {
    while (!batch.empty()) {
      Entry entry = std::move(batch.front());
      batch.pop_front();
      self->execute(&entry);
      const uint64_t seq = entry.seq;
      entry = Entry{};  // release what the task captured before anyone learns it has completed
      self->finish(seq);
    }
  }
  t_worker = nullptr;
}

bool Stream::Impl::next_batch(std::deque<Entry>* batch, uint64_t* taken) {
  spin_until([&] { return submitted.load(std::memory_order_acquire) > *taken; }, kWorkerSpin);
  std::unique_lock<std::mutex> lock(mutex);
  while (queue.empty() && !stop) {
    sleeping = true;
    work_cv.wait(lock);
    sleeping = false;
  }
  if (queue.empty()) return false;  // stopped and drained
  batch->swap(queue);
  *taken = batch->back().seq;
  return true;
}

void Stream::Impl::execute(Entry* entry) {
  if (discarding.load(std::memory_order_acquire) || aborted.load(std::memory_order_acquire)) {
    const aclError reason = discarding.load(std::memory_order_acquire) ? ACL_ERROR_RT_DEVICE_TASK_ABORT
                                                                      : abort_code.load(std::memory_order_acquire);
    if (entry->discard) {
      try {
        entry->discard(reason);
      } catch (...) {  // a discard hook only releases waiters; nothing to report to
      }
    }
    return;
  }
  aclError code = ACL_SUCCESS;
  const auto seq = static_cast<unsigned long long>(entry->seq);
  try {
    if (prof::on(prof::kTaskTime) && prof::device_on(device_id))
      code = run_profiled(entry);
    else if (entry->run)
      code = entry->run();
  } catch (const std::bad_alloc&) {
    code = fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "task %llu on stream %u: out of host memory", seq, stream_id);
  } catch (const std::exception& e) {
    code = fail(ACL_ERROR_RT_INTERNAL_ERROR, "task %llu on stream %u threw: %s", seq, stream_id, e.what());
  } catch (...) {
    code = fail(ACL_ERROR_RT_INTERNAL_ERROR, "task %llu on stream %u threw an exception", seq, stream_id);
  }
  if (code == ACL_SUCCESS && entry->injected) {
    char what[64];
    std::snprintf(what, sizeof what, "task %llu on stream %u", seq, stream_id);
    code = fault::report(entry->injected, "AI Core exception", what);
  }
  if (code != ACL_SUCCESS) record_failure(*entry, code);
}

// The task as a span on this stream's track; work it does on other tracks (a model's nodes) learns the
// track from prof::current_track().
aclError Stream::Impl::run_profiled(Entry* entry) {
  if (prof_track == 0) prof_track = prof::stream_track(device_id, stream_id, is_default);
  const prof::TrackScope track(prof_track);
  const uint64_t start = prof::now_ns();
  const aclError code = entry->run ? entry->run() : ACL_SUCCESS;
  const uint64_t published = prof::take_task_end();
  const prof::TaskLabel& label = entry->label;
  prof::span(track.id(), label.name != nullptr ? label.name : "Task", "task", start,
             published != 0 ? published : prof::now_ns(), label.arg0, label.arg1);
  return code;
}

void Stream::Impl::finish(uint64_t seq) {
  completed.store(seq, std::memory_order_seq_cst);
  if (seq >= wake_at.load(std::memory_order_seq_cst)) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      wake_at.store(kNobodyWaits, std::memory_order_relaxed);  // waiters not yet satisfied re-register
    }
    done_cv.notify_all();
  }
}

void Stream::Impl::record_failure(const Entry& entry, aclError code) {
  std::string message = take_recent_error();  // what the task said with fail() on this thread
  {
    std::lock_guard<std::mutex> lock(failure_mutex);
    if (mode.load(std::memory_order_relaxed) == ACL_STOP_ON_FAILURE) {
      if (!aborted.load(std::memory_order_relaxed)) {
        abort = Failure{code, entry.seq, std::move(message)};
        abort_code.store(code, std::memory_order_release);
        aborted.store(true, std::memory_order_release);
      }
    } else if (pending.code == ACL_SUCCESS) {
      pending = Failure{code, entry.seq, std::move(message)};
    }
  }
  if (aclrtExceptionInfoCallback callback = g_exception_callback.load(std::memory_order_acquire)) {
    rtExceptionInfo info{static_cast<uint32_t>(entry.seq), stream_id, entry.tid, static_cast<uint32_t>(device_id),
                         static_cast<uint32_t>(code)};
    const LiveExceptionInfo live(&info);  // the getters accept it only during the call
    callback(&info);
  }
}

aclError Stream::Impl::take_failure(Failure* out) {
  std::lock_guard<std::mutex> lock(failure_mutex);
  if (aborted.load(std::memory_order_relaxed)) {
    if (out != nullptr) *out = abort;
    return abort.code;
  }
  const aclError code = pending.code;
  if (code != ACL_SUCCESS) {
    if (out != nullptr) *out = std::move(pending);
    pending = Failure{};
  }
  return code;
}

void Stream::Impl::interrupt() {
  cancelled.store(true, std::memory_order_release);
  std::lock_guard<std::mutex> guard(blocker_mutex);
  if (blocker_lock != nullptr) {
    std::lock_guard<std::mutex> lock(*blocker_lock);  // the task checks `cancelled` under this mutex
    blocker_cv->notify_all();
  }
}

Stream::Stream(Context* context, bool is_default, uint32_t priority, uint32_t flags)
    : context_(context),
      device_id_(context != nullptr ? context->device_id() : 0),
      is_default_(is_default),
      id_(g_next_stream_id.fetch_add(1, std::memory_order_relaxed)),
      priority_(priority),
      flags_(flags),
      impl_(std::make_shared<Impl>()) {
  impl_->stream_id = id_;
  impl_->device_id = device_id_;
  impl_->is_default = is_default_;
  if (device_id_ >= 0 && device_id_ < kMaxTrackedDevices) g_live_streams[device_id_].fetch_add(1);
}

Stream::~Stream() {
  close(true);
  if (device_id_ >= 0 && device_id_ < kMaxTrackedDevices) g_live_streams[device_id_].fetch_sub(1);
}

aclError Stream::enqueue(Task task, Discard on_discard, prof::TaskLabel label) {
  Impl& s = *impl_;
  const uint32_t tid = os_thread_id();
  std::unique_lock<std::mutex> lock(s.mutex);
  aclError refused = ACL_SUCCESS;
  if (s.stop) {
    refused = ACL_ERROR_RT_INVALID_HANDLE;
  } else if (!s.started) {
    try {
      s.worker = std::thread(&Impl::main, impl_);
      s.started = true;
    } catch (const std::system_error&) {
      refused = ACL_ERROR_RT_NO_STREAM_RESOURCE;
    }
  }
  if (refused != ACL_SUCCESS) {
    lock.unlock();
    if (on_discard) on_discard(refused);
    if (refused == ACL_ERROR_RT_INVALID_HANDLE)
      return fail(refused, "stream %u was destroyed: the task was not queued", id_);
    note_error(refused, "no thread could be started to run the stream");
    return fail(refused, "stream %u: no thread could be started to run the stream: the task was not queued", id_);
  }
  const uint64_t seq = s.submitted.load(std::memory_order_relaxed) + 1;
  s.queue.push_back(Impl::Entry{std::move(task), std::move(on_discard), seq, tid, label,
                                fault::check(fault::Site::kStreamTask)});
  s.submitted.store(seq, std::memory_order_release);
  const bool wake = s.sleeping;
  lock.unlock();
  if (wake) s.work_cv.notify_one();
  return ACL_SUCCESS;
}

aclError Stream::synchronize(int32_t timeout_ms, Failure* failure) {
  Impl& s = *impl_;
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms > 0 ? timeout_ms : 0);
  const uint64_t target = s.submitted.load(std::memory_order_acquire);
  const auto done = [&] { return s.completed.load(std::memory_order_seq_cst) >= target; };
  if (!done()) {
    if (timeout_ms == 0) return ACL_ERROR_RT_STREAM_SYNC_TIMEOUT;
    if (!spin_until(done, kSyncSpin)) {
      std::unique_lock<std::mutex> lock(s.mutex);
      while (!done()) {
        if (target < s.wake_at.load(std::memory_order_relaxed)) s.wake_at.store(target, std::memory_order_seq_cst);
        if (done()) break;
        if (timeout_ms < 0) {
          s.done_cv.wait(lock);
        } else if (s.done_cv.wait_until(lock, deadline) == std::cv_status::timeout && !done()) {
          return ACL_ERROR_RT_STREAM_SYNC_TIMEOUT;
        }
      }
    }
  }
  return s.take_failure(failure);
}

bool Stream::idle() const {
  // completed first: a task finishing in between makes the answer conservative (not idle), never wrong.
  const uint64_t completed = impl_->completed.load(std::memory_order_acquire);
  return completed >= impl_->submitted.load(std::memory_order_acquire);
}

aclError Stream::set_failure_mode(uint64_t mode) {
  if (mode != ACL_CONTINUE_ON_FAILURE && mode != ACL_STOP_ON_FAILURE) return ACL_ERROR_RT_PARAM_INVALID;
  std::lock_guard<std::mutex> lock(impl_->failure_mutex);
  impl_->mode.store(mode, std::memory_order_relaxed);
  return ACL_SUCCESS;
}

uint64_t Stream::failure_mode() const { return impl_->mode.load(std::memory_order_relaxed); }

void Stream::note_error(aclError code, const char* message) {
  std::lock_guard<std::mutex> lock(impl_->failure_mutex);
  if (impl_->aborted.load(std::memory_order_relaxed) || impl_->pending.code != ACL_SUCCESS) return;
  impl_->pending = Failure{code, 0, message != nullptr ? message : ""};
}

aclError Stream::close(bool discard, Failure* failure) {
  if (closing_.exchange(true)) return ACL_SUCCESS;
  Impl& s = *impl_;
  aclError result = ACL_SUCCESS;
  if (discard) {
    // Discard first: a blocking callback released by the detach must not let the next task run.
    s.discarding.store(true, std::memory_order_release);
    s.interrupt();
    ReportHub::instance().detach(*this);
  } else {
    ReportHub::instance().detach(*this);
    result = synchronize(-1, failure);
  }
  std::thread worker;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.stop = true;
    worker = std::move(s.worker);
  }
  s.work_cv.notify_one();
  if (worker.joinable()) {
    // The last reference to a stream can be dropped by one of its own tasks; a thread cannot join itself.
    if (worker.get_id() == std::this_thread::get_id())
      worker.detach();
    else
      worker.join();
  }
  return result;
}

bool Stream::closed() const { return closing_.load(std::memory_order_acquire); }

void Stream::close_all(const std::vector<std::shared_ptr<Stream>>& streams) {
  for (const auto& stream : streams)
    if (!stream->closed()) ReportHub::instance().detach(*stream);
  for (const auto& stream : streams) stream->close(false);
}

bool Stream::wait_in_task(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                          const std::function<bool()>& ready) {
  Impl* worker = t_worker;
  if (worker == nullptr) {
    cv.wait(lock, ready);
    return true;
  }
  if (ready()) return true;
  // Register without holding `lock`: interrupt() takes blocker_mutex before the task's mutex.
  lock.unlock();
  {
    std::lock_guard<std::mutex> guard(worker->blocker_mutex);
    worker->blocker_lock = lock.mutex();
    worker->blocker_cv = &cv;
  }
  lock.lock();
  cv.wait(lock, [&] { return ready() || worker->cancelled.load(std::memory_order_acquire); });
  const bool ok = ready();
  lock.unlock();
  {
    std::lock_guard<std::mutex> guard(worker->blocker_mutex);
    worker->blocker_lock = nullptr;
    worker->blocker_cv = nullptr;
  }
  lock.lock();
  return ok;
}

void Stream::set_exception_callback(aclrtExceptionInfoCallback callback) {
  g_exception_callback.store(callback, std::memory_order_release);
}

int Stream::live_count(int device_id) {
  return device_id >= 0 && device_id < kMaxTrackedDevices ? g_live_streams[device_id].load() : 0;
}

}  // namespace ascendsim
