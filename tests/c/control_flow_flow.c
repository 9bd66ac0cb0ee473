/* An If model from C (tests/model/test_control_flow.py): argv[1] the .om of control_flow_models.if_shapes (x and w
 * float32 [2,3]; the output has 2 or 4 rows depending on the sign of sum(x)), argv[2] the input file (x then w),
 * argv[3] the output file. Executes with static inputs (no tensor descriptions needed), reads the output's real
 * dims with aclmdlGetDatasetTensorDesc and writes them and the output. */
#include <stdio.h>
#include <stdlib.h>

#include "acl/acl.h"
#include "check.h"

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  const size_t in_size = 6 * sizeof(float), out_capacity = 12 * sizeof(float);
  float host[12];
  FILE* f = fopen(argv[2], "rb");
  if (f == NULL || fread(host, 1, 2 * in_size, f) != 2 * in_size) return 3;
  fclose(f);
  CHECK(aclInit(NULL));
  CHECK(aclrtSetDevice(0));
  uint32_t model_id = 0;
  CHECK(aclmdlLoadFromFile(argv[1], &model_id));
  aclmdlDataset* input = aclmdlCreateDataset();
  aclmdlDataset* output = aclmdlCreateDataset();
  void* dev[3] = {NULL, NULL, NULL};
  aclDataBuffer* bufs[3];
  for (int i = 0; i < 3; ++i) {
    const size_t size = i < 2 ? in_size : out_capacity;
    CHECK(aclrtMalloc(&dev[i], size, ACL_MEM_MALLOC_HUGE_FIRST));
    if (i < 2) CHECK(aclrtMemcpy(dev[i], size, host + 6 * i, size, ACL_MEMCPY_HOST_TO_DEVICE));
    bufs[i] = aclCreateDataBuffer(dev[i], size);
    CHECK(aclmdlAddDatasetBuffer(i < 2 ? input : output, bufs[i]));
  }
  CHECK(aclmdlExecute(model_id, input, output));
  aclTensorDesc* out_desc = aclmdlGetDatasetTensorDesc(output, 0);
  if (out_desc == NULL) return 4;
  int64_t rows = 0, cols = 0;
  CHECK(aclGetTensorDescDimV2(out_desc, 0, &rows));
  CHECK(aclGetTensorDescDimV2(out_desc, 1, &cols));
  printf("output dims %zu: %lld,%lld\n", aclGetTensorDescNumDims(out_desc), (long long)rows, (long long)cols);
  float result[12];
  const size_t count = (size_t)(rows * cols);
  if (count > 12) return 5;
  CHECK(aclrtMemcpy(result, sizeof result, dev[2], count * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST));
  f = fopen(argv[3], "wb");
  if (f == NULL || fwrite(result, sizeof(float), count, f) != count) return 6;
  fclose(f);
  for (int i = 0; i < 3; ++i) {
    aclDestroyDataBuffer(bufs[i]);
    CHECK(aclrtFree(dev[i]));
  }
  CHECK(aclmdlDestroyDataset(input));
  CHECK(aclmdlDestroyDataset(output));
  CHECK(aclmdlUnload(model_id));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  printf("ok\n");
  return 0;
}
