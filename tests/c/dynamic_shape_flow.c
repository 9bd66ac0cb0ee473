/* A dynamic-shape model from C (tests/model/test_dynamic_shape_c.py): argv[1] the .om of the conv net compiled
 * with image:1~4,3,8~32,8~32, argv[2] an input file of float32 [N,3,H,W] with N H W in argv[3..5], argv[6]
 * the output file. Checks the description (-1 dims, the ranges, output size 0), sets the input's real dims
 * with aclmdlSetDatasetTensorDesc, executes, reads the output's dims with aclmdlGetDatasetTensorDesc and
 * writes the output; then an input dim outside its range is ACL_ERROR_GE_PARAM_INVALID. */
#include <stdio.h>
#include <stdlib.h>

#include "acl/acl.h"
#include "check.h"

int main(int argc, char** argv) {
  if (argc != 7) return 2;
  const int64_t dims[4] = {atoll(argv[3]), 3, atoll(argv[4]), atoll(argv[5])};
  const size_t in_size = (size_t)(dims[0] * dims[2] * dims[3] * 3) * sizeof(float);
  CHECK(aclInit(NULL));
  CHECK(aclrtSetDevice(0));
  uint32_t model_id = 0;
  CHECK(aclmdlLoadFromFile(argv[1], &model_id));
  aclmdlDesc* desc = aclmdlCreateDesc();
  CHECK(aclmdlGetDesc(desc, model_id));
  aclmdlIODims io;
  CHECK(aclmdlGetInputDims(desc, 0, &io));
  aclmdlIODimsRange range;
  CHECK(aclmdlGetInputDimsRange(desc, 0, &range));
  printf("input dims %lld,%lld,%lld,%lld range %lld~%lld output size %zu\n", (long long)io.dims[0],
         (long long)io.dims[1], (long long)io.dims[2], (long long)io.dims[3], (long long)range.range[2][0],
         (long long)range.range[2][1], aclmdlGetOutputSizeByIndex(desc, 0));

  void* host = malloc(in_size);
  FILE* f = fopen(argv[2], "rb");
  if (f == NULL || fread(host, 1, in_size, f) != in_size) return 3;
  fclose(f);
  void *in_dev = NULL, *out_dev = NULL;
  const size_t out_capacity = 4 * 5 * sizeof(float);  /* the range's largest batch */
  CHECK(aclrtMalloc(&in_dev, in_size, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(&out_dev, out_capacity, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMemcpy(in_dev, in_size, host, in_size, ACL_MEMCPY_HOST_TO_DEVICE));
  aclmdlDataset* input = aclmdlCreateDataset();
  aclmdlDataset* output = aclmdlCreateDataset();
  aclDataBuffer* in_buf = aclCreateDataBuffer(in_dev, in_size);
  aclDataBuffer* out_buf = aclCreateDataBuffer(out_dev, out_capacity);
  CHECK(aclmdlAddDatasetBuffer(input, in_buf));
  CHECK(aclmdlAddDatasetBuffer(output, out_buf));
  aclTensorDesc* real = aclCreateTensorDesc(ACL_FLOAT, 4, dims, ACL_FORMAT_NCHW);
  CHECK(aclmdlSetDatasetTensorDesc(input, real, 0));
  CHECK(aclmdlExecute(model_id, input, output));
  aclTensorDesc* out_desc = aclmdlGetDatasetTensorDesc(output, 0);
  if (out_desc == NULL) return 4;
  int64_t n = 0, c = 0;
  CHECK(aclGetTensorDescDimV2(out_desc, 0, &n));
  CHECK(aclGetTensorDescDimV2(out_desc, 1, &c));
  printf("output dims %zu: %lld,%lld\n", aclGetTensorDescNumDims(out_desc), (long long)n, (long long)c);
  float result[20];
  CHECK(aclrtMemcpy(result, sizeof result, out_dev, (size_t)(n * c) * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST));
  f = fopen(argv[6], "wb");
  if (f == NULL || fwrite(result, sizeof(float), (size_t)(n * c), f) != (size_t)(n * c)) return 5;
  fclose(f);

  const int64_t too_wide[4] = {1, 3, 16, 40};
  aclTensorDesc* bad = aclCreateTensorDesc(ACL_FLOAT, 4, too_wide, ACL_FORMAT_NCHW);
  CHECK(aclmdlSetDatasetTensorDesc(input, bad, 0));
  EXPECT(aclmdlExecute(model_id, input, output), (aclError)ACL_ERROR_GE_PARAM_INVALID);
  printf("out of range: %s\n", aclGetRecentErrMsg());

  aclDestroyTensorDesc(real);
  aclDestroyTensorDesc(bad);
  aclDestroyDataBuffer(in_buf);
  aclDestroyDataBuffer(out_buf);
  CHECK(aclmdlDestroyDataset(input));
  CHECK(aclmdlDestroyDataset(output));
  CHECK(aclrtFree(in_dev));
  CHECK(aclrtFree(out_dev));
  CHECK(aclmdlDestroyDesc(desc));
  CHECK(aclmdlUnload(model_id));
  free(host);
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  printf("ok\n");
  return 0;
}
