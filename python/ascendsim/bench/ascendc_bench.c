/* The `ascendc` benchmark group from C, printed as JSON lines (measure.h):
 *   ascendc_bench SCALE BYTES KERNELS.so
 * loads the kernels (ascendc_kernels.asc, built by the package's bisheng) with aclrtBinaryLoadFromFile and times
 * an empty kernel's aclrtLaunchKernel + aclrtSynchronizeStream (1 block) in turns with the launch group's empty
 * task (a 64-byte aclrtMemsetAsync + synchronize), and the float vector add of BYTES per operand on all the SoC's
 * vector cores in turns with a C memcpy of BYTES between the same device buffers. The sum is checked first.
 * Built and run by ascendsim.bench.ascendc, which names the rows. */
#include "measure.h" /* first: it sets _POSIX_C_SOURCE */

#include <stdint.h>
#include <string.h>

#include "acl/acl.h"
#include "ascendsim/ascendc_abi.h"

static void* volatile sink;

/* Any failure ends the run: the suite reports the output. */
static void check(aclError ret, const char* what) {
  if (ret == ACL_SUCCESS) return;
  fprintf(stderr, "ascendc_bench: %s failed: %d %s\n", what, ret, aclGetRecentErrMsg());
  exit(1);
}
#define CHECK(call) check((call), #call)

struct AddArgs { void *x, *y, *z; uint32_t totalLength, tileLength; }; /* vector_add's parameters */

static long scaled(double iterations, double scale) {
  long n = (long)(iterations * scale);
  return n < 2 ? 2 : n;
}

int main(int argc, char** argv) {
  aclrtStream stream;
  aclrtBinHandle binary;
  aclrtFuncHandle empty, add;
  ascendsimSocInfo soc;
  double scale;
  size_t bytes, count, i;
  float *host;
  void* task_target;
  struct AddArgs args;
  if (argc < 4) {
    fprintf(stderr, "usage: %s SCALE BYTES KERNELS.so\n", argv[0]);
    return 2;
  }
  bench_setup();
  scale = atof(argv[1]);
  bytes = (size_t)atoll(argv[2]);
  count = bytes / sizeof(float);
  CHECK(aclInit(NULL));
  CHECK(aclrtSetDevice(0));
  CHECK(aclrtCreateStream(&stream));
  CHECK(aclrtBinaryLoadFromFile(argv[3], NULL, &binary));
  CHECK(aclrtBinaryGetFunction(binary, "empty_kernel", &empty));
  CHECK(aclrtBinaryGetFunction(binary, "vector_add", &add));
  CHECK(ascendsimGetSocInfo(NULL, &soc));
  CHECK(aclrtMalloc(&task_target, 64, ACL_MEM_MALLOC_HUGE_FIRST));

  MEASURE_VS("c.ascendc.empty_kernel", {
    aclrtLaunchKernel(empty, 1, &task_target, sizeof task_target, stream);
    aclrtSynchronizeStream(stream);
  }, "c.ascendc.empty_task", (void)0, {
    aclrtMemsetAsync(task_target, 64, 0, 1, stream);
    aclrtSynchronizeStream(stream);
  }, (void)0, scaled(20000, scale));

  /* 3 tiles of 2 buffers x 16 KiB in the unified buffer: 96 KiB of the smallest SoC's 192 KiB. */
  args.totalLength = (uint32_t)count;
  args.tileLength = 4096;
  CHECK(aclrtMalloc(&args.x, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(&args.y, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(&args.z, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  host = malloc(bytes);
  for (i = 0; i < count; ++i) host[i] = (float)(i % 1000);
  CHECK(aclrtMemcpy(args.x, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  for (i = 0; i < count; ++i) host[i] = 0.5f * (float)(i % 7);
  CHECK(aclrtMemcpy(args.y, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK(aclrtLaunchKernel(add, soc.vector_cores, &args, sizeof args, stream));
  CHECK(aclrtSynchronizeStream(stream));
  CHECK(aclrtMemcpy(host, bytes, args.z, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
  for (i = 0; i < count; ++i)
    if (host[i] != (float)(i % 1000) + 0.5f * (float)(i % 7)) {
      fprintf(stderr, "vector_add: z[%zu] = %g, expected %g\n", i, host[i], (float)(i % 1000) + 0.5f * (float)(i % 7));
      return 1;
    }
  MEASURE_VS("c.ascendc.vector_add", {
    aclrtLaunchKernel(add, soc.vector_cores, &args, sizeof args, stream);
    aclrtSynchronizeStream(stream);
  }, "c.ascendc.memcpy", (void)0, { memcpy(args.z, args.x, bytes); sink = args.z; }, (void)0,
     scaled((double)(256 << 20) / (double)(3 * bytes) < 8 ? 8 : (double)(256 << 20) / (double)(3 * bytes), scale));

  free(host);
  CHECK(aclrtFree(args.x));
  CHECK(aclrtFree(args.y));
  CHECK(aclrtFree(args.z));
  CHECK(aclrtFree(task_target));
  CHECK(aclrtBinaryUnLoad(binary));
  CHECK(aclrtDestroyStream(stream));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  return 0;
}
