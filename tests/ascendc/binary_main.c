/* The runtime's kernel-binary API from C: load the kernel shared object bisheng made (-shared) in the way argv[2]
 * names (binary: aclrtCreateBinary + aclrtBinaryLoad, file: aclrtBinaryLoadFromFile, data:
 * aclrtBinaryLoadFromData, both with options), look the kernels up by name and launch them with
 * aclrtLaunchKernel, the arguments packed as a C struct of the parameters. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"

#define CHECK(call)                                                                    \
  do {                                                                                 \
    aclError ret_ = (call);                                                            \
    if (ret_ != ACL_SUCCESS) {                                                         \
      fprintf(stderr, "%s failed: %d %s\n", #call, ret_, aclGetRecentErrMsg());        \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

#define EXPECT(call, code)                                                             \
  do {                                                                                 \
    aclError ret_ = (call);                                                            \
    if (ret_ != (code)) {                                                              \
      fprintf(stderr, "%s returned %d, not %d: %s\n", #call, ret_, (code), aclGetRecentErrMsg()); \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

static void* read_all(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) exit(2);
  fseek(f, 0, SEEK_END);
  *size = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  void* data = malloc(*size);
  if (fread(data, 1, *size, f) != *size) exit(2);
  fclose(f);
  return data;
}

static void* to_device(const char* dir, const char* name, size_t* size) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  void* host = read_all(path, size);
  void* dev = NULL;
  CHECK(aclrtMalloc(&dev, *size, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMemcpy(dev, *size, host, *size, ACL_MEMCPY_HOST_TO_DEVICE));
  free(host);
  return dev;
}

static void to_file(const char* dir, const char* name, const void* dev, size_t size) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  void* host = malloc(size);
  CHECK(aclrtMemcpy(host, size, dev, size, ACL_MEMCPY_DEVICE_TO_HOST));
  FILE* f = fopen(path, "wb");
  if (f == NULL || fwrite(host, 1, size, f) != size) exit(2);
  fclose(f);
  free(host);
}

/* The kernels' parameters, in order, as the emulator packs them (include/ascendsim/ascendc_abi.h). */
struct AddArgs { void* x; void* y; void* z; uint32_t totalLength; uint32_t tileLength; };
struct StatArgs { void* x; void* sums; void* maxes; uint32_t rows; uint32_t cols; };
struct SoftmaxArgs { void* x; void* y; uint32_t rows; uint32_t cols; };

int main(int argc, char** argv) {
  if (argc < 4) return 2; /* binary_main kernels.so binary|file|data dir */
  const char* how = argv[2];
  const char* dir = argv[3];
  CHECK(aclInit(NULL));
  CHECK(aclrtSetDevice(0));
  aclrtStream stream = NULL;
  CHECK(aclrtCreateStream(&stream));
  size_t image_size;
  void* image = read_all(argv[1], &image_size);
  aclrtBinary binary = NULL;
  aclrtBinHandle handle = NULL;
  aclrtBinaryLoadOption option = {ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD, {.isLazyLoad = 1}};
  aclrtBinaryLoadOptions options = {&option, 1};
  if (strcmp(how, "file") == 0) {
    EXPECT(aclrtBinaryLoadFromFile(NULL, NULL, &handle), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtBinaryLoadFromFile(dir, NULL, &handle), ACL_ERROR_RT_PARAM_INVALID); /* a directory */
    CHECK(aclrtBinaryLoadFromFile(argv[1], &options, &handle));
  } else if (strcmp(how, "data") == 0) {
    EXPECT(aclrtBinaryLoadFromData(image, 0, NULL, &handle), ACL_ERROR_RT_PARAM_INVALID);
    option.type = ACL_RT_BINARY_LOAD_OPT_MAGIC;
    option.value.magic = ACL_RT_BINARY_MAGIC_ELF_VECTOR_CORE;
    CHECK(aclrtBinaryLoadFromData(image, image_size, &options, &handle));
    memset(image, 0, image_size); /* the loaded binary does not keep the caller's data */
  } else {
    binary = aclrtCreateBinary(image, image_size);
    if (binary == NULL) return 1;
    CHECK(aclrtBinaryLoad(binary, &handle));
  }
  aclrtFuncHandle add = NULL, stats = NULL, softmax = NULL;
  CHECK(aclrtBinaryGetFunction(handle, "add_custom", &add));
  CHECK(aclrtBinaryGetFunction(handle, "row_stats", &stats));
  CHECK(aclrtBinaryGetFunction(handle, "softmax_rows", &softmax));

  size_t nx, ny, ns, nh;
  struct AddArgs a = {to_device(dir, "add_x.bin", &nx), to_device(dir, "add_y.bin", &ny), NULL, 4099, 256};
  CHECK(aclrtMalloc(&a.z, nx, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtLaunchKernel(add, 8, &a, sizeof a, stream));
  struct StatArgs s = {to_device(dir, "stats_x.bin", &ns), NULL, NULL, 37, 64};
  CHECK(aclrtMalloc(&s.sums, 37 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(&s.maxes, 37 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtLaunchKernel(stats, 4, &s, sizeof s, stream));
  /* The arguments may also live in device memory: read when the task runs. */
  struct SoftmaxArgs m = {to_device(dir, "softmax_x.bin", &nh), NULL, 13, 128};
  CHECK(aclrtMalloc(&m.y, nh, ACL_MEM_MALLOC_HUGE_FIRST));
  void* device_args = NULL;
  CHECK(aclrtMalloc(&device_args, sizeof m, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMemcpyAsync(device_args, sizeof m, &m, sizeof m, ACL_MEMCPY_HOST_TO_DEVICE, stream));
  CHECK(aclrtLaunchKernel(softmax, 5, device_args, sizeof m, stream));
  CHECK(aclrtSynchronizeStream(stream));

  to_file(dir, "add_z.bin", a.z, nx);
  to_file(dir, "stats_sum.bin", s.sums, 37 * sizeof(float));
  to_file(dir, "stats_max.bin", s.maxes, 37 * sizeof(float));
  to_file(dir, "softmax_y.bin", m.y, nh);
  void* buffers[] = {a.x, a.y, a.z, s.x, s.sums, s.maxes, m.x, m.y, device_args};
  for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; ++i) CHECK(aclrtFree(buffers[i]));
  CHECK(aclrtBinaryUnLoad(handle));
  if (binary != NULL) CHECK(aclrtDestroyBinary(binary));
  free(image);
  CHECK(aclrtDestroyStream(stream));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  printf("ok %s\n", how);
  return 0;
}
