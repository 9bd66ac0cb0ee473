/* Tensor descriptions from C, as the single-operator samples and msame use them: create, read back,
 * origin and storage formats/shapes, ranges, name, const data, placement, format translation, the copy a
 * dataset keeps, and the error answers (NULL, out-of-range index, negative numDims). Prints "ok". */
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"

/* aclGetTensorDescDim and the Storage setters are deprecated but still used by old samples. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define EXPECT(expr, value)                                                                   \
  do {                                                                                        \
    long long got_ = (long long)(expr);                                                       \
    if (got_ != (long long)(value)) {                                                         \
      printf("FAILED line %d: %s -> %lld, expected %lld (%s)\n", __LINE__, #expr, got_,       \
             (long long)(value), aclGetRecentErrMsg());                                       \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)

int main(void) {
  const int64_t dims[4] = {2, 3, 5, 7};
  int64_t ranges[2][ACL_TENSOR_SHAPE_RANGE_NUM] = {{1, 4}, {3, -1}};
  int64_t range[2] = {0, 0};
  int64_t dim = 0;
  const int64_t storage[5] = {2, 1, 5, 7, 16};
  const int64_t dynamic[2] = {-1, 8};
  const int64_t unknown_rank[1] = {-2};
  float weights[3] = {1.0f, 2.0f, 3.0f};
  aclTensorDesc *desc, *scalar, *nhwc = NULL, *none = NULL;
  aclDataBuffer* buffer;
  aclmdlDataset* dataset;
  aclTensorDesc* copy;

  desc = aclCreateTensorDesc(ACL_FLOAT16, 4, dims, ACL_FORMAT_NCHW);
  if (desc == NULL) return printf("FAILED create: %s\n", aclGetRecentErrMsg()), 1;
  EXPECT(aclGetTensorDescType(desc), ACL_FLOAT16);
  EXPECT(aclGetTensorDescFormat(desc), ACL_FORMAT_NCHW);
  EXPECT(aclGetTensorDescNumDims(desc), 4);
  EXPECT(aclGetTensorDescElementCount(desc), 210);
  EXPECT(aclGetTensorDescSize(desc), 420);
  EXPECT(aclGetTensorDescDim(desc, 3), 7);
  EXPECT(aclGetTensorDescDim(desc, 4), -1);
  EXPECT(aclGetTensorDescDimV2(desc, 1, &dim), ACL_SUCCESS);
  EXPECT(dim, 3);
  EXPECT(aclGetTensorDescDimV2(desc, 4, &dim), ACL_ERROR_INVALID_PARAM);
  EXPECT(aclGetTensorDescDimV2(NULL, 0, &dim), ACL_ERROR_INVALID_PARAM);

  /* storage layout: the getters keep reporting the origin */
  EXPECT(aclSetTensorFormat(desc, ACL_FORMAT_NC1HWC0), ACL_SUCCESS);
  EXPECT(aclSetTensorShape(desc, 5, storage), ACL_SUCCESS);
  EXPECT(aclSetTensorStorageFormat(desc, ACL_FORMAT_NC1HWC0), ACL_SUCCESS);
  EXPECT(aclSetTensorStorageShape(desc, 5, storage), ACL_SUCCESS);
  EXPECT(aclGetTensorDescFormat(desc), ACL_FORMAT_NCHW);
  EXPECT(aclGetTensorDescNumDims(desc), 4);
  EXPECT(aclSetTensorFormat(NULL, ACL_FORMAT_ND), ACL_SUCCESS); /* CANN ignores a NULL desc here */
  EXPECT(aclSetTensorShape(desc, 1, NULL), ACL_ERROR_INVALID_PARAM);

  EXPECT(aclSetTensorShapeRange(desc, 2, ranges), ACL_SUCCESS);
  EXPECT(aclGetTensorDescDimRange(desc, 1, 2, range), ACL_SUCCESS);
  EXPECT(range[0], 3);
  EXPECT(range[1], -1);
  EXPECT(aclGetTensorDescDimRange(desc, 2, 2, range), ACL_ERROR_INVALID_PARAM);
  EXPECT(aclGetTensorDescDimRange(desc, 0, 1, range), ACL_ERROR_INVALID_PARAM);
  EXPECT(aclSetTensorValueRange(desc, 2, ranges), ACL_SUCCESS);

  aclSetTensorDescName(desc, "x");
  EXPECT(strcmp(aclGetTensorDescName(desc), "x"), 0);
  EXPECT(strcmp(aclGetTensorDescName(NULL), ""), 0);
  EXPECT(aclSetTensorDynamicInput(desc, "x"), ACL_SUCCESS);
  EXPECT(aclSetTensorConst(desc, weights, sizeof weights), ACL_SUCCESS);
  EXPECT(aclSetTensorConst(desc, weights, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT(aclSetTensorPlaceMent(desc, ACL_MEMTYPE_HOST), ACL_SUCCESS);
  EXPECT(aclGetTensorDescByIndex(desc, 0) == desc, 1);
  EXPECT(aclGetTensorDescByIndex(desc, 1) == NULL, 1);
  EXPECT(aclGetTensorDescAddress(desc) == NULL, 1);

  EXPECT(aclTransTensorDescFormat(desc, ACL_FORMAT_NHWC, &nhwc), ACL_SUCCESS);
  EXPECT(aclGetTensorDescDim(nhwc, 1), 5);
  EXPECT(aclGetTensorDescDim(nhwc, 3), 3);
  EXPECT(aclTransTensorDescFormat(desc, ACL_FORMAT_NCHW, &none), ACL_ERROR_GE_FORMAT_INVALID);
  EXPECT(none == NULL, 1);
  aclDestroyTensorDesc(nhwc);

  /* dynamic dims and unknown rank */
  EXPECT(aclSetTensorOriginShape(desc, 2, dynamic), ACL_SUCCESS);
  EXPECT(aclGetTensorDescDim(desc, 0), -1);
  EXPECT(aclGetTensorDescElementCount(desc), 0);
  EXPECT(aclSetTensorOriginShape(desc, 1, unknown_rank), ACL_SUCCESS);
  EXPECT(aclGetTensorDescNumDims(desc), ACL_UNKNOWN_RANK);
  EXPECT(aclGetTensorDescSize(desc), 0);

  scalar = aclCreateTensorDesc(ACL_INT64, 0, NULL, ACL_FORMAT_ND);
  EXPECT(aclGetTensorDescElementCount(scalar), 1);
  EXPECT(aclGetTensorDescSize(scalar), 8);
  EXPECT(aclCreateTensorDesc(ACL_FLOAT, -1, dims, ACL_FORMAT_ND) == NULL, 1);
  EXPECT(aclCreateTensorDesc(ACL_FLOAT, 2, NULL, ACL_FORMAT_ND) == NULL, 1);

  /* the dataset keeps its own copy per buffer */
  dataset = aclmdlCreateDataset();
  buffer = aclCreateDataBuffer(NULL, 0);
  EXPECT(aclmdlAddDatasetBuffer(dataset, buffer), ACL_SUCCESS);
  EXPECT(aclmdlGetDatasetTensorDesc(dataset, 0) == NULL, 1);
  EXPECT(aclmdlSetDatasetTensorDesc(dataset, scalar, 0), ACL_SUCCESS);
  EXPECT(aclmdlSetDatasetTensorDesc(dataset, scalar, 1), ACL_ERROR_INVALID_PARAM);
  copy = aclmdlGetDatasetTensorDesc(dataset, 0);
  EXPECT(copy != NULL && copy != scalar, 1);
  aclDestroyTensorDesc(scalar);
  EXPECT(aclGetTensorDescType(copy), ACL_INT64);
  EXPECT(aclmdlSetDatasetTensorDesc(dataset, NULL, 0), ACL_SUCCESS);
  EXPECT(aclmdlGetDatasetTensorDesc(dataset, 0) == NULL, 1);
  EXPECT(aclmdlDestroyDataset(dataset), ACL_SUCCESS);
  EXPECT(aclDestroyDataBuffer(buffer), ACL_SUCCESS);

  aclDestroyTensorDesc(desc);
  EXPECT(aclGetTensorDescType(desc), ACL_DT_UNDEFINED); /* destroyed: refused, not a crash */
  printf("ok\n");
  return 0;
}
