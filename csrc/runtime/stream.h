// Stream: a FIFO of tasks executed in order by the stream's own worker thread, off the caller's thread.
// Independent streams run concurrently. A task returns ACL_SUCCESS or an error code: a failed task is
// reported by the next synchronize of the stream (and of the device), and with ACL_STOP_ON_FAILURE the
// tasks queued after it are discarded. The algorithm is described at the top of stream.cpp.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "acl/acl_rt.h"
#include "prof/profiler.h"

namespace ascendsim {

class Context;

class Stream {
 public:
  using Task = std::function<aclError()>;
  // Called instead of a task that will never run (the stream stopped on a failure, or was force-destroyed),
  // with the reason; lets the task release what waits on it (an event record, a blocking callback).
  using Discard = std::function<void(aclError reason)>;

  // The failure a synchronize reports: the error code, the task's sequence number in this stream (1-based)
  // and the message the task recorded with fail() on the worker thread, if any.
  struct Failure {
    aclError code = ACL_SUCCESS;
    uint64_t task = 0;
    std::string message;
  };

  // `context` is kept only as an identity (context()); the device id is read from it here, once.
  Stream(Context* context, bool is_default, uint32_t priority, uint32_t flags);
  ~Stream();  // discards what is still queued (see close), then joins the worker
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // Appends a task. Returns ACL_SUCCESS, or an error when the task cannot be queued (the stream was closed:
  // ACL_ERROR_RT_INVALID_HANDLE; no thread could be started: ACL_ERROR_RT_NO_STREAM_RESOURCE); the task is
  // then discarded (on_discard is called) and the error is also reported by the next synchronize.
  // `label` names the task on the profiler's timeline (prof/profiler.h).
  aclError enqueue(Task task, Discard on_discard = nullptr, prof::TaskLabel label = {});

  // Waits until every task enqueued before the call has run. timeout_ms: -1 forever, > 0 milliseconds,
  // 0 just polls. Returns ACL_ERROR_RT_STREAM_SYNC_TIMEOUT on timeout, else the stream's failure: with
  // ACL_CONTINUE_ON_FAILURE the first failure since the previous synchronize (reported once); with
  // ACL_STOP_ON_FAILURE the failure that stopped the stream (sticky: every later synchronize reports it).
  aclError synchronize(int32_t timeout_ms, Failure* failure = nullptr);
  bool idle() const;  // every task enqueued so far has run
  aclError set_failure_mode(uint64_t mode);  // ACL_CONTINUE_ON_FAILURE or ACL_STOP_ON_FAILURE, else 107000
  uint64_t failure_mode() const;
  // Records an error found outside the tasks (e.g. callbacks cancelled by an unsubscribe): reported by the
  // next synchronize like a task failure, without discarding anything.
  void note_error(aclError code, const char* message);

  // Teardown for aclrtDestroyStream(Force), context destruction and device reset: ends the stream's callback
  // subscription (callbacks not yet run are cancelled, a blocking one releases the stream), then either waits
  // for the queued tasks (discard = false) or discards them and interrupts a task blocked on an event or a
  // callback (discard = true), and stops the worker. Later enqueues are discarded. Returns the stream's
  // failure (discard = false). Idempotent; safe from any thread.
  aclError close(bool discard, Failure* failure = nullptr);
  bool closed() const;
  // close(false) for several streams (context destruction, device reset): every callback subscription ends
  // first, so that draining one stream never waits for a callback of another that nobody will run.
  static void close_all(const std::vector<std::shared_ptr<Stream>>& streams);

  Context* context() const { return context_; }  // identity only: the context may be gone
  int device_id() const { return device_id_; }
  bool is_default() const { return is_default_; }
  uint32_t id() const { return id_; }
  uint32_t priority() const { return priority_; }
  uint32_t flags() const { return flags_; }

  // The thread subscribed for this stream's callbacks (0: none); written by report_queue.cpp.
  std::atomic<uint64_t> report_thread{0};
  // aclrtSetStreamOverflowSwitch: stored, not acted upon (no overflow detection in the emulator).
  std::atomic<uint32_t> overflow_switch{0};

  // For a task that must block its stream's worker (an event wait, a blocking callback): waits on `cv`
  // (`lock` held on its mutex) until `ready()`, or until the stream running the task is force-closed.
  // Returns ready(). Outside a stream worker it simply waits.
  static bool wait_in_task(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                           const std::function<bool()>& ready);

  // aclrtSetExceptionInfoCallback: called on the worker thread for every failed task (null: none).
  static void set_exception_callback(aclrtExceptionInfoCallback callback);

  // Live streams on a device (the default streams included), for the per-device stream limit.
  static int live_count(int device_id);

  struct Impl;  // stream.cpp

 private:
  Context* context_;
  int device_id_;
  bool is_default_;
  uint32_t id_;
  uint32_t priority_;
  uint32_t flags_;
  std::atomic<bool> closing_{false};
  std::shared_ptr<Impl> impl_;  // shared with the worker thread
};

}  // namespace ascendsim
