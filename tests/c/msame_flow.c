/* The flow of Ascend's msame tool in C, linked as msame links (-lascendcl -lacl_op_compiler -lacl_cblas -lacl_dvpp):
 * load an offline model, read its description, fill each input from a .bin file or with random values, run the
 * model `loop` times timing each execution, and write every output as binary (<dir>/output_<i>.bin) and as text
 * (<dir>/output_<i>.txt, one value per line, float32 outputs only).
 *   msame_flow MODEL.om OUTDIR LOOP [INPUT.bin | random] ...   (one input argument per model input) */
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c11 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"
#include "check.h"

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Reads `path` (exactly `size` bytes) into host memory, or fills it with random floats for "random". */
static int fill_input(const char* path, void* host, size_t size) {
  if (strcmp(path, "random") == 0) {
    float* v = (float*)host;
    for (size_t i = 0; i < size / sizeof(float); ++i) v[i] = (float)rand() / (float)RAND_MAX - 0.5f;
    return 0;
  }
  FILE* f = fopen(path, "rb");
  if (f == NULL) return printf("FAILED cannot open %s\n", path), 1;
  size_t got = fread(host, 1, size, f);
  fclose(f);
  if (got != size) return printf("FAILED %s holds %zu bytes, the input needs %zu\n", path, got, size), 1;
  return 0;
}

static int write_output(const char* dir, size_t i, const void* host, size_t size, aclDataType type) {
  char path[4096];
  snprintf(path, sizeof path, "%s/output_%zu.bin", dir, i);
  FILE* f = fopen(path, "wb");
  if (f == NULL || fwrite(host, 1, size, f) != size) return printf("FAILED cannot write %s\n", path), 1;
  fclose(f);
  if (type != ACL_FLOAT) return 0;
  snprintf(path, sizeof path, "%s/output_%zu.txt", dir, i);
  f = fopen(path, "w");
  if (f == NULL) return printf("FAILED cannot write %s\n", path), 1;
  for (size_t k = 0; k < size / sizeof(float); ++k) fprintf(f, "%.9g\n", ((const float*)host)[k]);
  fclose(f);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 4) return printf("usage: msame_flow MODEL.om OUTDIR LOOP [INPUT.bin|random]...\n"), 2;
  const int loop = atoi(argv[3]);
  CHECK(aclInit(NULL));
  CHECK(aclrtSetDevice(0));
  aclrtContext context;
  CHECK(aclrtCreateContext(&context, 0));
  uint32_t model_id;
  CHECK(aclmdlLoadFromFile(argv[1], &model_id));
  aclmdlDesc* desc = aclmdlCreateDesc();
  CHECK(aclmdlGetDesc(desc, model_id));
  const size_t inputs = aclmdlGetNumInputs(desc), outputs = aclmdlGetNumOutputs(desc);
  if ((size_t)(argc - 4) != inputs) return printf("FAILED the model has %zu inputs, %d given\n", inputs, argc - 4), 1;

  aclmdlDataset* in = aclmdlCreateDataset();
  aclmdlDataset* out = aclmdlCreateDataset();
  for (size_t i = 0; i < inputs; ++i) {
    size_t size = aclmdlGetInputSizeByIndex(desc, i);
    void *host = NULL, *dev = NULL;
    CHECK(aclrtMallocHost(&host, size));
    if (fill_input(argv[4 + i], host, size) != 0) return 1;
    CHECK(aclrtMalloc(&dev, size, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(dev, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtFreeHost(host));
    CHECK(aclmdlAddDatasetBuffer(in, aclCreateDataBuffer(dev, size)));
  }
  for (size_t i = 0; i < outputs; ++i) {
    size_t size = aclmdlGetOutputSizeByIndex(desc, i);
    void* dev = NULL;
    CHECK(aclrtMalloc(&dev, size, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclmdlAddDatasetBuffer(out, aclCreateDataBuffer(dev, size)));
  }

  double total = 0.0;
  for (int n = 0; n < loop; ++n) {
    const double start = now_ms();
    CHECK(aclmdlExecute(model_id, in, out));
    const double took = now_ms() - start;
    total += took;
    printf("Inference time: %.3fms\n", took);
  }
  printf("Inference average time: %.3f ms (%d loops)\n", total / loop, loop);

  for (size_t i = 0; i < outputs; ++i) {
    aclDataBuffer* buffer = aclmdlGetDatasetBuffer(out, i);
    size_t size = aclGetDataBufferSizeV2(buffer);
    void* host = NULL;
    CHECK(aclrtMallocHost(&host, size));
    CHECK(aclrtMemcpy(host, size, aclGetDataBufferAddr(buffer), size, ACL_MEMCPY_DEVICE_TO_HOST));
    if (write_output(argv[2], i, host, size, aclmdlGetOutputDataType(desc, i)) != 0) return 1;
    CHECK(aclrtFreeHost(host));
  }

  for (aclmdlDataset* set = in; set != NULL; set = set == in ? out : NULL) {
    for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(set); ++i) {
      aclDataBuffer* buffer = aclmdlGetDatasetBuffer(set, i);
      CHECK(aclrtFree(aclGetDataBufferAddr(buffer)));
      CHECK(aclDestroyDataBuffer(buffer));
    }
    CHECK(aclmdlDestroyDataset(set));
  }
  CHECK(aclmdlDestroyDesc(desc));
  CHECK(aclmdlUnload(model_id));
  CHECK(aclrtDestroyContext(context));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  printf("ok\n");
  return 0;
}
