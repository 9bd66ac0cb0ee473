// Report queues: one per subscribed host thread.
//
// aclrtSubscribeReport(tid, stream) records tid in stream.report_thread and counts the stream in tid's
// queue (created on its first subscription). A stream has at most one subscribed thread; a thread may
// serve several streams of one device (the documented rules; the real limit of 1024 subscribed threads per
// process is kept too).
//
// aclrtLaunchCallback enqueues a task; when the stream reaches it, deliver() looks up the stream's thread
// *at that moment*, appends a Report to that thread's queue and wakes it. With ACL_CALLBACK_BLOCK the task
// then waits (Stream::wait_in_task) until the report is done, so the stream's later tasks wait for the
// callback; with ACL_CALLBACK_NO_BLOCK the task completes at once, so synchronizing the stream does not
// wait for non-blocking callbacks to have run.
//
// aclrtProcessReport waits for the calling thread's queue to be non-empty (or for the thread to lose its
// last subscription), then runs the reports present at that point one at a time on the calling thread,
// with no lock held while a callback runs. A thread with no subscription gets 107012 at once, a timeout
// gives 507012.
//
// Nothing can deadlock on a callback that will never run:
//   - aclrtUnSubscribeReport(tid, stream) cancels the stream's reports still waiting in tid's queue: they
//     never run; a blocking one releases its stream, whose task fails with ACL_ERROR_RT_STREAM_NO_CB_REG; for
//     cancelled non-blocking ones the same error is noted on the stream. Either way the next synchronize of
//     the stream reports 107015, so lost callbacks are never silent. A callback task reached after the
//     unsubscribe fails the same way (the callback does not run).
//   - Stream teardown (aclrtDestroyStream(Force), context destruction, device reset) detaches the stream
//     first in the same way (without noting errors), so draining the stream cannot wait for a callback.
//   - A thread that unsubscribes from its last stream while another thread sits in its aclrtProcessReport
//     wakes that call, which returns 107012.
#include "runtime/report_queue.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>

#include "core/error.h"
#include "core/spin.h"
#include "runtime/stream.h"

namespace ascendsim {
namespace {
constexpr size_t kMaxSubscribedThreads = 1024;
constexpr auto kSpin = std::chrono::microseconds(50);  // see core/spin.h
}

struct Report {
  enum State { kPending, kRunning, kDone, kCancelled };
  Report(aclrtCallback f, void* data, const Stream* s, bool b) : fn(f), user_data(data), stream(s), block(b) {}
  aclrtCallback fn;
  void* user_data;
  const Stream* stream;  // identity only
  bool block;
  std::atomic<State> state{kPending};  // written under the queue's mutex; read lock-free while spinning
};

struct ReportQueue {
  int device_id = 0;
  std::mutex mutex;
  std::condition_variable arrived;   // the processing thread waits for reports
  std::condition_variable finished;  // blocking deliveries wait for their report
  std::deque<std::shared_ptr<Report>> pending;
  std::atomic<size_t> queued{0};  // pending.size(), for lock-free polling
  std::atomic<int> streams{0};    // subscribed streams; 0 once the last one is unsubscribed

  void sync_queued() { queued.store(pending.size(), std::memory_order_release); }
};

ReportHub& ReportHub::instance() {
  static ReportHub* hub = new ReportHub();  // never destroyed: stream destructors may run at exit
  return *hub;
}

uint64_t ReportHub::current_thread_id() { return static_cast<uint64_t>(pthread_self()); }

aclError ReportHub::subscribe(uint64_t thread_id, Stream& stream, const char* api) {
  if (thread_id == 0) return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: threadId 0 is not a thread id", api);
  const auto tid = static_cast<unsigned long long>(thread_id);
  std::lock_guard<std::mutex> hub(mutex_);
  const uint64_t current = stream.report_thread.load();
  if (current == thread_id)
    return fail(ACL_ERROR_RT_STREAM_SUBSCRIBE, "%s: stream %u is already subscribed by thread %llu", api, stream.id(),
                tid);
  if (current != 0)
    return fail(ACL_ERROR_RT_STREAM_SUBSCRIBE,
                "%s: stream %u is already subscribed by thread %llu; a stream can have only one callback thread "
                "(aclrtUnSubscribeReport it first)",
                api, stream.id(), static_cast<unsigned long long>(current));
  auto& queue = queues_[thread_id];
  if (!queue) {
    if (queues_.size() > kMaxSubscribedThreads) {
      queues_.erase(thread_id);
      return fail(ACL_ERROR_RT_THREAD_SUBSCRIBE, "%s: %zu threads are already subscribed, the limit is %zu", api,
                  kMaxSubscribedThreads, kMaxSubscribedThreads);
    }
    queue = std::make_shared<ReportQueue>();
    queue->device_id = stream.device_id();
  } else if (queue->device_id != stream.device_id()) {
    return fail(ACL_ERROR_RT_THREAD_SUBSCRIBE,
                "%s: thread %llu already serves streams of device %d; stream %u is on device %d (one thread serves "
                "one device)",
                api, tid, queue->device_id, stream.id(), stream.device_id());
  }
  {
    std::lock_guard<std::mutex> lock(queue->mutex);
    ++queue->streams;
  }
  stream.report_thread.store(thread_id);
  return ACL_SUCCESS;
}

size_t ReportHub::remove_stream(uint64_t thread_id, Stream& stream) {
  stream.report_thread.store(0);
  auto it = queues_.find(thread_id);
  if (it == queues_.end()) return 0;
  std::shared_ptr<ReportQueue> queue = it->second;
  size_t cancelled_no_block = 0;
  {
    std::lock_guard<std::mutex> lock(queue->mutex);
    auto& pending = queue->pending;
    for (auto& report : pending) {
      if (report->stream != &stream) continue;
      report->state = Report::kCancelled;
      if (!report->block) ++cancelled_no_block;
    }
    pending.erase(std::remove_if(pending.begin(), pending.end(),
                                 [](const std::shared_ptr<Report>& r) { return r->state == Report::kCancelled; }),
                  pending.end());
    queue->sync_queued();
    if (--queue->streams == 0) queues_.erase(it);
  }
  queue->finished.notify_all();  // blocking deliveries of cancelled reports
  queue->arrived.notify_all();   // a ProcessReport that has just lost its last stream
  return cancelled_no_block;
}

aclError ReportHub::unsubscribe(uint64_t thread_id, Stream& stream, const char* api) {
  size_t cancelled = 0;
  {
    std::lock_guard<std::mutex> hub(mutex_);
    const uint64_t current = stream.report_thread.load();
    if (current == 0)
      return fail(ACL_ERROR_RT_STREAM_SUBSCRIBE, "%s: stream %u has no subscribed thread", api, stream.id());
    if (current != thread_id)
      return fail(ACL_ERROR_RT_STREAM_SUBSCRIBE, "%s: stream %u is subscribed by thread %llu, not by thread %llu", api,
                  stream.id(), static_cast<unsigned long long>(current), static_cast<unsigned long long>(thread_id));
    cancelled = remove_stream(thread_id, stream);
  }
  if (cancelled > 0) {
    char message[200];
    std::snprintf(message, sizeof message,
                  "%zu non-blocking callback(s) of stream %u were cancelled by aclrtUnSubscribeReport before thread "
                  "%llu ran them",
                  cancelled, stream.id(), static_cast<unsigned long long>(thread_id));
    stream.note_error(ACL_ERROR_RT_STREAM_NO_CB_REG, message);
  }
  return ACL_SUCCESS;
}

void ReportHub::detach(Stream& stream) {
  std::lock_guard<std::mutex> hub(mutex_);
  const uint64_t current = stream.report_thread.load();
  if (current != 0) remove_stream(current, stream);
}

aclError ReportHub::deliver(Stream& stream, aclrtCallback fn, void* user_data, bool block) {
  auto report = std::make_shared<Report>(fn, user_data, &stream, block);
  std::shared_ptr<ReportQueue> queue;
  uint64_t thread_id = 0;
  {
    std::lock_guard<std::mutex> hub(mutex_);
    thread_id = stream.report_thread.load();
    auto it = thread_id != 0 ? queues_.find(thread_id) : queues_.end();
    if (it == queues_.end())
      return fail(ACL_ERROR_RT_STREAM_NO_CB_REG,
                  "aclrtLaunchCallback: stream %u reached callback %p after its thread was unsubscribed; the callback "
                  "did not run",
                  stream.id(), reinterpret_cast<void*>(fn));
    queue = it->second;
    std::lock_guard<std::mutex> lock(queue->mutex);
    queue->pending.push_back(report);
    queue->sync_queued();
  }
  queue->arrived.notify_all();
  if (!block) return ACL_SUCCESS;
  const auto settled_now = [&] {
    const Report::State state = report->state.load(std::memory_order_acquire);
    return state == Report::kDone || state == Report::kCancelled;
  };
  spin_until(settled_now, kSpin);  // a quick callback is done before a futex sleep would be
  std::unique_lock<std::mutex> lock(queue->mutex);
  const bool settled = Stream::wait_in_task(lock, queue->finished, [&] {
    return report->state == Report::kDone || report->state == Report::kCancelled;
  });
  if (!settled) {  // the stream is being force-destroyed: take the report back unless it is already running
    if (report->state == Report::kPending) {
      report->state = Report::kCancelled;
      auto& pending = queue->pending;
      pending.erase(std::remove(pending.begin(), pending.end(), report), pending.end());
      queue->sync_queued();
    }
    return ACL_ERROR_RT_DEVICE_TASK_ABORT;
  }
  if (report->state == Report::kCancelled)
    return fail(ACL_ERROR_RT_STREAM_NO_CB_REG,
                "aclrtLaunchCallback: blocking callback %p on stream %u was cancelled before thread %llu ran it "
                "(the stream was unsubscribed or destroyed)",
                reinterpret_cast<void*>(fn), stream.id(), static_cast<unsigned long long>(thread_id));
  return ACL_SUCCESS;
}

aclError ReportHub::process(int32_t timeout_ms, const char* api) {
  const uint64_t self = current_thread_id();
  std::shared_ptr<ReportQueue> queue;
  {
    std::lock_guard<std::mutex> hub(mutex_);
    auto it = queues_.find(self);
    if (it != queues_.end()) queue = it->second;
  }
  if (!queue)
    return fail(ACL_ERROR_RT_THREAD_SUBSCRIBE,
                "%s: the calling thread %llu is not subscribed to any stream (aclrtSubscribeReport)", api,
                static_cast<unsigned long long>(self));
  const auto ready = [&] { return queue->queued.load(std::memory_order_acquire) > 0 || queue->streams.load() == 0; };
  const auto spin = timeout_ms < 0 ? kSpin : std::min<std::chrono::steady_clock::duration>(
                                                 kSpin, std::chrono::milliseconds(timeout_ms));
  spin_until(ready, spin);
  std::unique_lock<std::mutex> lock(queue->mutex);
  if (timeout_ms < 0) {
    queue->arrived.wait(lock, ready);
  } else if (!queue->arrived.wait_for(lock, std::chrono::milliseconds(timeout_ms), ready)) {
    return fail(ACL_ERROR_RT_REPORT_TIMEOUT, "%s: no callback arrived within %d ms", api, timeout_ms);
  }
  if (queue->pending.empty())
    return fail(ACL_ERROR_RT_THREAD_SUBSCRIBE, "%s: thread %llu was unsubscribed from its last stream while waiting",
                api, static_cast<unsigned long long>(self));
  // Run what is there now, not what callbacks keep adding, so that the call returns.
  for (size_t budget = queue->pending.size(); budget > 0 && !queue->pending.empty(); --budget) {
    std::shared_ptr<Report> report = std::move(queue->pending.front());
    queue->pending.pop_front();
    queue->sync_queued();
    report->state = Report::kRunning;
    lock.unlock();
    report->fn(report->user_data);
    lock.lock();
    report->state = Report::kDone;
    if (report->block) queue->finished.notify_all();
  }
  return ACL_SUCCESS;
}

}  // namespace ascendsim
