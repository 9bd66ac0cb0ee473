// Event: a marker recorded into a stream. It completes when the stream reaches it, with a timestamp.
// Another stream can wait for it (a device-side dependency: the waiting stream's worker blocks, the host
// does not), the host can query or synchronize on it, and two completed events give the elapsed time
// between them. The state machine is described at the top of event.cpp.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>

#include "acl/acl_rt.h"

namespace ascendsim {

class Stream;

class Event : public std::enable_shared_from_this<Event> {
 public:
  // Flags accepted by aclrtCreateEvent(Ex)WithFlag; anything else (and 0) is ACL_ERROR_RT_PARAM_INVALID.
  static constexpr uint32_t kValidFlags = ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE;
  static constexpr uint32_t kDefaultFlags = ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE;  // aclrtCreateEvent

  explicit Event(uint32_t flags);
  uint32_t flags() const { return flags_; }

  // Each enqueues one task on `stream` and returns the enqueue result. The event must be owned by a
  // shared_ptr (the tasks keep it alive, so destroying the handle meanwhile is safe).
  aclError record(Stream& stream);    // aclrtRecordEvent
  aclError reset(Stream& stream);     // aclrtResetEvent
  aclError wait_on(Stream& stream);   // aclrtStreamWaitEvent: `stream` waits for the latest record so far

  aclrtEventStatus query() const;                  // aclrtQueryEvent
  aclrtEventRecordedStatus recorded_status() const;  // aclrtQueryEventStatus
  aclrtEventWaitStatus wait_status() const;        // aclrtQueryEventWaitStatus
  // aclrtSynchronizeEvent(WithTimeout): waits for the latest record made before the call. timeout_ms -1:
  // forever, > 0: milliseconds. ACL_ERROR_RT_EVENT_SYNC_TIMEOUT on timeout; if that record was discarded
  // (its stream stopped on a failure or was force-destroyed), the reason.
  aclError synchronize(int32_t timeout_ms);
  // aclrtEventElapsedTime: end - start in ms, from the completion timestamps of both events' latest
  // records. Records a message and returns the error if either has none (507000) or it is not complete /
  // was discarded (107006).
  static aclError elapsed_ms(const Event& start, const Event& end, float* ms, const char* api);

 private:
  void complete(uint64_t seq, int64_t stamp_ns, aclError error);
  bool wait_done(uint64_t target, int32_t timeout_ms, bool in_task);

  const uint32_t flags_;
  mutable std::mutex mutex_;
  std::condition_variable completed_cv_;
  uint64_t issued_ = 0;                // records issued (aclrtRecordEvent calls so far)
  uint64_t published_ = 0;             // the highest record number whose task is queued: stream waits' target
  std::atomic<uint64_t> done_{0};      // the highest record sequence number completed (run or discarded)
  int64_t stamp_ns_ = 0;               // steady-clock time the record `done_` ran
  aclError done_error_ = ACL_SUCCESS;  // non-zero if the record `done_` was discarded, with the reason
  bool reset_ = false;                 // a reset ran after the latest completed record
  int waiters_ = 0;                    // threads sleeping on completed_cv_
  std::atomic<uint64_t> waits_issued_{0};
  std::atomic<uint64_t> waits_done_{0};
};

}  // namespace ascendsim
