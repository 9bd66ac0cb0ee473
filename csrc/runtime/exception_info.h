// The task-failure record handed to the aclrtSetExceptionInfoCallback callback. acl_rt.h only declares
// `typedef struct rtExceptionInfo aclrtExceptionInfo;`; the fields (named as in the CANN runtime's
// rtExceptionInfo, whose leading members they are) are read back by the aclrtGet*FromExceptionInfo getters.
#pragma once
#include <cstdint>

struct rtExceptionInfo {
  uint32_t taskid;    // the failed task's sequence number in its stream (1-based)
  uint32_t streamid;  // Stream::id()
  uint32_t tid;       // OS thread id (gettid) of the host thread that launched the task
  uint32_t deviceid;
  uint32_t retcode;   // the error code the task returned
};
