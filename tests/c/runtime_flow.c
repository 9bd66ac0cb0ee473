/* The runtime flow of an AscendCL sample, in C: init, device, context, stream, host and device memory,
 * asynchronous copies ordered on a stream, events with elapsed time, synchronization, release. Every
 * call is checked; error paths print the code so the test can compare it with the real runtime's. */
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"

#include "check.h"

int main(void) {
  enum { N = 1 << 20 };
  aclrtContext context = NULL;
  aclrtStream stream = NULL;
  aclrtEvent start = NULL, stop = NULL;
  void *host = NULL, *device_a = NULL, *device_b = NULL;
  unsigned char *bytes;
  float ms = 0;
  size_t free_bytes = 0, total_bytes = 0;
  int32_t device_id = -1;
  size_t i;
  aclrtStreamConfigHandle *config = NULL;
  aclrtStreamConfigHandle own_config;
  aclrtStream configured = NULL;
  uint32_t priority = 3;

  EXPECT(aclrtGetCurrentContext(&context), ACL_ERROR_RT_CONTEXT_NULL);
  CHECK(aclInit(NULL));
  EXPECT(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
  EXPECT(aclrtSetDevice(100), ACL_ERROR_RT_INVALID_DEVICEID);
  CHECK(aclrtSetDevice(0));
  CHECK(aclrtCreateContext(&context, 0));
  CHECK(aclrtGetDevice(&device_id));
  CHECK(aclrtCreateStream(&stream));
  CHECK(aclrtCreateEvent(&start));
  CHECK(aclrtCreateEvent(&stop));

  CHECK(aclrtMallocHost(&host, N));
  CHECK(aclrtMalloc(&device_a, N, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(&device_b, N, ACL_MEM_MALLOC_NORMAL_ONLY));
  CHECK(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total_bytes));
  if (free_bytes == 0 || free_bytes > total_bytes) { printf("FAILED mem info\n"); return 1; }

  bytes = (unsigned char*)host;
  for (i = 0; i < N; ++i) bytes[i] = (unsigned char)(i * 7);
  CHECK(aclrtRecordEvent(start, stream));
  CHECK(aclrtMemcpyAsync(device_a, N, host, N, ACL_MEMCPY_HOST_TO_DEVICE, stream));
  CHECK(aclrtMemcpyAsync(device_b, N, device_a, N, ACL_MEMCPY_DEVICE_TO_DEVICE, stream));
  CHECK(aclrtMemsetAsync(device_b, N, 0x5A, 16, stream));
  CHECK(aclrtMemcpyAsync(host, N, device_b, N, ACL_MEMCPY_DEVICE_TO_HOST, stream));
  CHECK(aclrtRecordEvent(stop, stream));
  CHECK(aclrtSynchronizeStream(stream));
  CHECK(aclrtEventElapsedTime(&ms, start, stop));
  for (i = 0; i < N; ++i) {
    unsigned char expected = i < 16 ? 0x5A : (unsigned char)(i * 7);
    if (bytes[i] != expected) { printf("FAILED data at %zu\n", i); return 1; }
  }
  if (ms < 0) { printf("FAILED elapsed %f\n", ms); return 1; }

  /* Misuse is answered with codes, never a crash. */
  EXPECT(aclrtMemcpy(host, 16, device_a, 32, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT(aclrtMalloc(&device_a, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT(aclrtFree(NULL), ACL_ERROR_INVALID_PARAM);
  CHECK(aclrtFree(device_b));
  if (aclrtFree(device_b) == ACL_SUCCESS) { printf("FAILED double free accepted\n"); return 1; }
  if (strlen(aclGetRecentErrMsg()) == 0) { printf("FAILED no message for double free\n"); return 1; }

  /* A destroyed stream config handle: Set and CreateV2 refuse it as Destroy does (issue 13: they wrote and
   * read freed memory); a struct of the program's own is CANN's public struct, accepted. */
  config = aclrtCreateStreamConfigHandle();
  if (config == NULL) { printf("FAILED no config handle\n"); return 1; }
  CHECK(aclrtSetStreamConfigOpt(config, ACL_RT_STREAM_PRIORITY, &priority, sizeof priority));
  CHECK(aclrtCreateStreamV2(&configured, config));
  CHECK(aclrtDestroyStream(configured));
  CHECK(aclrtDestroyStreamConfigHandle(config));
  EXPECT(aclrtSetStreamConfigOpt(config, ACL_RT_STREAM_PRIORITY, &priority, sizeof priority), ACL_ERROR_INVALID_PARAM);
  if (strstr(aclGetRecentErrMsg(), "already destroyed") == NULL) { printf("FAILED no message for Set\n"); return 1; }
  configured = NULL;
  EXPECT(aclrtCreateStreamV2(&configured, config), ACL_ERROR_INVALID_PARAM);
  if (configured != NULL) { printf("FAILED stream from a destroyed config\n"); return 1; }
  EXPECT(aclrtDestroyStreamConfigHandle(config), ACL_ERROR_INVALID_PARAM);
  memset(&own_config, 0, sizeof own_config);
  CHECK(aclrtSetStreamConfigOpt(&own_config, ACL_RT_STREAM_PRIORITY, &priority, sizeof priority));
  if (own_config.priority != priority) { printf("FAILED own config not written\n"); return 1; }
  CHECK(aclrtCreateStreamV2(&configured, &own_config));
  CHECK(aclrtDestroyStream(configured));

  CHECK(aclrtFree(device_a));
  CHECK(aclrtFreeHost(host));
  CHECK(aclrtDestroyEvent(start));
  CHECK(aclrtDestroyEvent(stop));
  CHECK(aclrtDestroyStream(stream));
  CHECK(aclrtDestroyContext(context));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  EXPECT(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
  printf("ok device=%d elapsed_ms=%f\n", device_id, ms);
  return 0;
}
