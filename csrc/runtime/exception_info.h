// The task-failure record handed to the aclrtSetExceptionInfoCallback callback. acl_rt.h only declares
// `typedef struct rtExceptionInfo aclrtExceptionInfo;`; the fields (named as in the CANN runtime's
// rtExceptionInfo, whose leading members they are) are read back by the aclrtGet*FromExceptionInfo getters.
//
// The struct is opaque to users, so the only valid pointers are the ones the runtime hands to the callback,
// and only while the callback runs. Those are registered for that time so that the getters can answer a
// stale or made-up pointer (from Python it is just an int) with an error instead of reading through it.
#pragma once
#include <cstdint>

struct rtExceptionInfo {
  uint32_t taskid;    // the failed task's sequence number in its stream (1-based)
  uint32_t streamid;  // Stream::id()
  uint32_t tid;       // OS thread id (gettid) of the host thread that launched the task
  uint32_t deviceid;
  uint32_t retcode;   // the error code the task returned
};

namespace ascendsim {

// Marks `info` valid while a callback receives it (constructor to destructor).
class LiveExceptionInfo {
 public:
  explicit LiveExceptionInfo(const rtExceptionInfo* info);
  ~LiveExceptionInfo();
  LiveExceptionInfo(const LiveExceptionInfo&) = delete;
  LiveExceptionInfo& operator=(const LiveExceptionInfo&) = delete;

 private:
  const rtExceptionInfo* info_;
};

// Whether `info` is being delivered to a callback right now.
bool is_live_exception_info(const void* info);

}  // namespace ascendsim
