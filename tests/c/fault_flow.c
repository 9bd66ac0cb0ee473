/* A program's error paths under injected faults (docs/fault-injection.md), run by tests/test_fault_injection.py
 * with ASCENDSIM_FAULTS="aclrtMalloc:nth=2;stream_task:nth=2;event_sync:nth=1;memory_cap:nth=4,bytes=4M":
 * the second aclrtMalloc fails, the second stream task raises an AI Core exception reported by the
 * synchronize, the first event synchronize times out, and from the fourth device allocation on the device
 * holds 4 MiB. Every failure is checked for its code and for a message naming the rule; the program then
 * carries on, cleans up, and checks that no device memory is left allocated. Prints "ok" on success. */
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "ascendsim/ascendsim_ext.h"

#include "check.h"

/* `call` must fail with `code` and leave a message that contains `text`. */
#define EXPECT_FAULT(call, code, text)                                              \
  do {                                                                              \
    aclError ret_ = (call);                                                         \
    const char *message_ = aclGetRecentErrMsg();                                    \
    if (ret_ != (code) || strstr(message_, "injected fault") == NULL ||             \
        strstr(message_, (text)) == NULL) {                                         \
      printf("FAILED %s -> %d, expected %d with '%s': %s\n", #call, ret_,           \
             (int)(code), (text), message_);                                        \
      return 1;                                                                     \
    }                                                                               \
  } while (0)

int main(void) {
  aclrtStream stream = NULL;
  aclrtEvent event = NULL;
  void *a = NULL, *b = NULL, *c = NULL, *d = NULL;
  size_t free_bytes = 0, total_bytes = 0;
  ascendsimMemoryStats stats;

  CHECK(aclInit(NULL));
  CHECK(aclrtSetDevice(0));
  CHECK(aclrtCreateStream(&stream));
  CHECK(aclrtCreateEvent(&event));

  /* aclrtMalloc:nth=2 */
  CHECK(aclrtMalloc(&a, 1024, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_FAULT(aclrtMalloc(&b, 1024, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION,
               "rule 'aclrtMalloc:nth=2,count=1,code=207001'");
  if (b != NULL) {
    printf("FAILED: a failed aclrtMalloc wrote its pointer\n");
    return 1;
  }
  CHECK(aclrtMalloc(&b, 1024, ACL_MEM_MALLOC_HUGE_FIRST)); /* the retry succeeds */

  /* stream_task:nth=2, reported by the next synchronize, once */
  CHECK(aclrtMemsetAsync(a, 1024, 0, 1024, stream));
  CHECK(aclrtMemsetAsync(b, 1024, 0, 1024, stream));
  CHECK(aclrtRecordEvent(event, stream));
  EXPECT_FAULT(aclrtSynchronizeStream(stream), ACL_ERROR_RT_AICORE_EXCEPTION, "stream_task:nth=2");
  CHECK(aclrtSynchronizeStream(stream));

  /* event_sync:nth=1 */
  EXPECT_FAULT(aclrtSynchronizeEvent(event), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, "event_sync:nth=1");
  CHECK(aclrtSynchronizeEvent(event));

  /* memory_cap:nth=4,bytes=4M: the allocator saw a, b; c is its third allocation, d the fourth */
  CHECK(aclrtMalloc(&c, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_FAULT(aclrtMalloc(&d, 8 << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION,
               "memory_cap:nth=4,bytes=4194304");
  CHECK(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total_bytes));
  if (total_bytes != (size_t)4 << 20 || free_bytes >= total_bytes) {
    printf("FAILED: a capped device reports free %zu of %zu bytes\n", free_bytes, total_bytes);
    return 1;
  }
  CHECK(ascendsimClearFaults());
  CHECK(aclrtMalloc(&d, 8 << 20, ACL_MEM_MALLOC_HUGE_FIRST));

  CHECK(aclrtFree(a));
  CHECK(aclrtFree(b));
  CHECK(aclrtFree(c));
  CHECK(aclrtFree(d));
  CHECK(ascendsimGetMemoryStats(0, &stats));
  if (stats.allocated_bytes != 0 || stats.oom_count != 1) {
    printf("FAILED: after the frees %llu bytes are allocated, %llu allocations failed\n",
           (unsigned long long)stats.allocated_bytes, (unsigned long long)stats.oom_count);
    return 1;
  }
  CHECK(aclrtDestroyEvent(event));
  CHECK(aclrtDestroyStream(stream));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  printf("ok\n");
  return 0;
}
