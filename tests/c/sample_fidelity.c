/* What official samples do that the real stack allows (issue 12): memset on aclrtMallocHost memory, a copy kind
 * that does not match the pointers (a reserved parameter since CANN 7.0), and a model input buffer up to 64 bytes
 * smaller than the model's input (GE's allowance). argv[1]: a model whose one input and output are 1x64 float32.
 * Errors it provokes on purpose are also checked for their codes; the test reads the plog file they leave. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"

#include "check.h"

enum { N = 4096, INPUT = 256 };

static int all(const unsigned char* p, size_t n, unsigned char value) {
  size_t i;
  for (i = 0; i < n; ++i)
    if (p[i] != value) return 0;
  return 1;
}

/* Runs the model on an input buffer that says `size` bytes (its allocation holds the whole input). */
static aclError execute(uint32_t model, void* input, size_t size, void* output) {
  aclmdlDataset* ins = aclmdlCreateDataset();
  aclmdlDataset* outs = aclmdlCreateDataset();
  aclDataBuffer* in = aclCreateDataBuffer(input, size);
  aclDataBuffer* out = aclCreateDataBuffer(output, INPUT);
  aclError ret;
  aclmdlAddDatasetBuffer(ins, in);
  aclmdlAddDatasetBuffer(outs, out);
  ret = aclmdlExecute(model, ins, outs);
  aclDestroyDataBuffer(in);
  aclDestroyDataBuffer(out);
  aclmdlDestroyDataset(ins);
  aclmdlDestroyDataset(outs);
  return ret;
}

int main(int argc, char** argv) {
  aclrtStream stream = NULL;
  void *host = NULL, *device = NULL, *input = NULL, *output = NULL;
  unsigned char* bytes;
  unsigned char* pageable = malloc(N);
  float x[INPUT / 4], full[INPUT / 4], lenient[INPUT / 4];
  uint32_t model = 0;
  size_t i;
  if (argc < 2 || pageable == NULL) return 2;

  CHECK(aclInit(NULL));
  CHECK(aclrtSetDevice(0));
  CHECK(aclrtCreateStream(&stream));
  CHECK(aclrtMallocHost(&host, N));
  CHECK(aclrtMalloc(&device, N, ACL_MEM_MALLOC_HUGE_FIRST));
  bytes = (unsigned char*)host;

  /* 1. memset on host memory allocated through the ACL, synchronously and on a stream */
  CHECK(aclrtMemset(host, N, 0xA5, N));
  if (!all(bytes, N, 0xA5)) { printf("FAILED memset on aclrtMallocHost memory\n"); return 1; }
  CHECK(aclrtMemsetAsync(host, N, 0x3C, N / 2, stream));
  CHECK(aclrtSynchronizeStream(stream));
  if (!all(bytes, N / 2, 0x3C) || !all(bytes + N / 2, N / 2, 0xA5)) { printf("FAILED memset async\n"); return 1; }
  EXPECT(aclrtMemset(host, N, 0, N + 1), ACL_ERROR_RT_PARAM_INVALID);  /* count > maxCount */
  EXPECT(aclrtMemset(pageable, N, 0, N), ACL_ERROR_RT_PARAM_INVALID);  /* host memory the ACL did not allocate */

  /* 2. the kind is a hint: the pointers decide the direction */
  CHECK(aclrtMemcpy(device, N, host, N, ACL_MEMCPY_DEVICE_TO_HOST));
  memset(pageable, 0, N);
  CHECK(aclrtMemcpy(pageable, N, device, N, ACL_MEMCPY_HOST_TO_DEVICE));
  if (memcmp(pageable, host, N) != 0) { printf("FAILED memcpy with a hint kind\n"); return 1; }
  CHECK(aclrtMemset(host, N, 0, N));
  CHECK(aclrtMemcpyAsync(host, N, device, N, ACL_MEMCPY_HOST_TO_DEVICE, stream));  /* corrected to D2H */
  CHECK(aclrtSynchronizeStream(stream));
  if (memcmp(pageable, host, N) != 0) { printf("FAILED memcpy async with a hint kind\n"); return 1; }
  EXPECT(aclrtMemcpy(device, N, host, N + 1, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID);

  /* 3. GE's input allowance: a buffer up to 64 bytes smaller than the input runs; one byte less is E13025 */
  CHECK(aclmdlLoadFromFile(argv[1], &model));
  CHECK(aclrtMalloc(&input, INPUT, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(&output, INPUT, ACL_MEM_MALLOC_HUGE_FIRST));
  for (i = 0; i < INPUT / 4; ++i) x[i] = (float)i / 8 - 3;
  CHECK(aclrtMemcpy(input, INPUT, x, INPUT, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK(execute(model, input, INPUT, output));
  CHECK(aclrtMemcpy(full, INPUT, output, INPUT, ACL_MEMCPY_DEVICE_TO_HOST));
  CHECK(execute(model, input, INPUT - 64, output));
  CHECK(aclrtMemcpy(lenient, INPUT, output, INPUT, ACL_MEMCPY_DEVICE_TO_HOST));
  if (memcmp(full, lenient, INPUT) != 0) { printf("FAILED the lenient input read other bytes\n"); return 1; }
  CHECK(execute(model, input, INPUT + 64, output));  /* larger: a warning */
  EXPECT(execute(model, input, INPUT - 65, output), ACL_ERROR_GE_FAILURE);
  if (strncmp(aclGetRecentErrMsg(), "E13025", 6) != 0) { printf("FAILED not E13025\n"); return 1; }

  CHECK(aclmdlUnload(model));
  CHECK(aclrtFree(input));
  CHECK(aclrtFree(output));
  CHECK(aclrtFree(device));
  CHECK(aclrtFreeHost(host));
  CHECK(aclrtDestroyStream(stream));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  free(pageable);
  printf("ok\n");
  return 0;
}
