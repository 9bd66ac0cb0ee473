/* The official cblas sample's flow (samples/cplusplus/level1_single_api/1_acl/4_blas/gemm) in C, linked as msame
 * links: -lascendcl -lacl_op_compiler -lacl_cblas -lacl_dvpp. argv[1] holds the GEMM models atc --singleop wrote
 * for float16 [M, K] x [K, N] -> [M, N], int8 -> int32 with transpose_b, and the float16 [M, K] x [K, 1] of Hgemv.
 * aclblasHgemm (alpha, beta in device memory, C updated in place) and aclblasS8gemm are checked against a reference
 * computed here; a GemmEx handle runs through aclopExecWithHandle; then the refusals: a shape with no compiled
 * model (ACL_ERROR_OP_NOT_FOUND), lda != -1, a NULL matrix. One function of each other header is called so that
 * every library name is used: aclSetCompileopt (acl_op_compiler.h), acldvppMalloc / acldvppFree and an
 * unsupported acldvpp function (acl_dvpp.h). Prints "ok" on success. */
#define ENABLE_DVPP_INTERFACE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_op_compiler.h"
#include "acl/ops/acl_cblas.h"
#include "acl/ops/acl_dvpp.h"

#include "../../c/check.h"

#define EXPECT(call, code)                                                          \
  do {                                                                              \
    aclError ret_ = (call);                                                         \
    if (ret_ != (code)) {                                                           \
      printf("FAILED %s -> %d, expected %d: %s\n", #call, ret_, (int)(code), aclGetRecentErrMsg()); \
      return 1;                                                                     \
    }                                                                               \
  } while (0)

enum { M = 16, N = 8, K = 24 };

static void* to_device(const void* host, size_t size) {
  void* dev = NULL;
  if (aclrtMalloc(&dev, size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return NULL;
  if (aclrtMemcpy(dev, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS) return NULL;
  return dev;
}

int main(int argc, char** argv) {
  aclrtStream stream = NULL;
  aclFloat16 a16[M * K], b16[K * N], c16[M * N], alpha16, beta16, x16[K], y16[M];
  int8_t a8[M * K], b8t[N * K];
  int32_t c32[M * N], alpha32 = 3, beta32 = -2;
  float want[M * N];
  void *da, *db, *dc, *dalpha, *dbeta, *dx, *dy, *dvpp = NULL;
  aclopHandle* handle = NULL;
  int i, j, p;
  if (argc < 2) return 2;

  CHECK(aclInit(NULL));
  CHECK(aclrtSetDevice(0));
  CHECK(aclrtCreateStream(&stream));
  CHECK(aclopSetModelDir(argv[1]));
  CHECK(aclSetCompileopt(ACL_OP_JIT_COMPILE, "disable"));  /* libacl_op_compiler.so's header */

  /* Hgemm: C = 0.5 * A B + 2 * C, in place. */
  for (i = 0; i < M * K; ++i) a16[i] = aclFloatToFloat16((float)((i * 7) % 11 - 5) / 4.0f);
  for (i = 0; i < K * N; ++i) b16[i] = aclFloatToFloat16((float)((i * 5) % 9 - 4) / 2.0f);
  for (i = 0; i < M * N; ++i) c16[i] = aclFloatToFloat16((float)(i % 5) - 2.0f);
  alpha16 = aclFloatToFloat16(0.5f);
  beta16 = aclFloatToFloat16(2.0f);
  for (i = 0; i < M; ++i)
    for (j = 0; j < N; ++j) {
      double sum = 0;
      for (p = 0; p < K; ++p) sum += (double)aclFloat16ToFloat(a16[i * K + p]) * aclFloat16ToFloat(b16[p * N + j]);
      want[i * N + j] = (float)(0.5 * sum + 2.0 * aclFloat16ToFloat(c16[i * N + j]));
    }
  da = to_device(a16, sizeof a16);
  db = to_device(b16, sizeof b16);
  dc = to_device(c16, sizeof c16);
  dalpha = to_device(&alpha16, sizeof alpha16);
  dbeta = to_device(&beta16, sizeof beta16);
  if (!da || !db || !dc || !dalpha || !dbeta) return 1;
  CHECK(aclblasHgemm(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, M, N, K, (aclFloat16*)dalpha, (aclFloat16*)da, -1,
                     (aclFloat16*)db, -1, (aclFloat16*)dbeta, (aclFloat16*)dc, -1, ACL_COMPUTE_HIGH_PRECISION, stream));
  CHECK(aclrtSynchronizeStream(stream));
  CHECK(aclrtMemcpy(c16, sizeof c16, dc, sizeof c16, ACL_MEMCPY_DEVICE_TO_HOST));
  for (i = 0; i < M * N; ++i)
    if (fabsf(aclFloat16ToFloat(c16[i]) - want[i]) > 0.02f + 0.002f * fabsf(want[i])) {
      printf("FAILED hgemm element %d: %f, expected %f\n", i, aclFloat16ToFloat(c16[i]), want[i]);
      return 1;
    }

  /* The same product through a handle (GemmEx, C = A B + 0 * C): the model compiled above matches it. */
  alpha16 = aclFloatToFloat16(1.0f);
  beta16 = aclFloatToFloat16(0.0f);
  CHECK(aclrtMemcpy(dalpha, sizeof alpha16, &alpha16, sizeof alpha16, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK(aclrtMemcpy(dbeta, sizeof beta16, &beta16, sizeof beta16, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK(aclblasCreateHandleForGemmEx(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, M, N, K, ACL_FLOAT16, ACL_FLOAT16,
                                     ACL_FLOAT16, ACL_COMPUTE_HIGH_PRECISION, &handle));
  {
    aclDataBuffer* in[5] = {aclCreateDataBuffer(da, sizeof a16), aclCreateDataBuffer(db, sizeof b16),
                            aclCreateDataBuffer(dc, sizeof c16), aclCreateDataBuffer(dalpha, 2),
                            aclCreateDataBuffer(dbeta, 2)};
    aclDataBuffer* out[1] = {in[2]};
    CHECK(aclopExecWithHandle(handle, 5, (const aclDataBuffer* const*)in, 1, out, stream));
    CHECK(aclrtSynchronizeStream(stream));
    for (i = 0; i < 5; ++i) CHECK(aclDestroyDataBuffer(in[i]));
  }
  aclopDestroyHandle(handle);
  CHECK(aclrtMemcpy(c16, sizeof c16, dc, sizeof c16, ACL_MEMCPY_DEVICE_TO_HOST));
  for (i = 0; i < M; ++i)
    for (j = 0; j < N; ++j) {
      double sum = 0;
      for (p = 0; p < K; ++p) sum += (double)aclFloat16ToFloat(a16[i * K + p]) * aclFloat16ToFloat(b16[p * N + j]);
      if (fabs(aclFloat16ToFloat(c16[i * N + j]) - sum) > 0.02 + 0.002 * fabs(sum)) {
        printf("FAILED handle element %d: %f, expected %f\n", i * N + j, aclFloat16ToFloat(c16[i * N + j]), sum);
        return 1;
      }
    }

  /* Hgemv: y = A x (A [M, K], x [K]); beta 0, so y's contents do not matter. */
  for (i = 0; i < K; ++i) x16[i] = aclFloatToFloat16((float)(i % 3) - 1.0f);
  dx = to_device(x16, sizeof x16);
  dy = to_device(y16, sizeof y16);
  if (!dx || !dy) return 1;
  CHECK(aclblasHgemv(ACL_TRANS_N, M, K, (aclFloat16*)dalpha, (aclFloat16*)da, -1, (aclFloat16*)dx, -1,
                     (aclFloat16*)dbeta, (aclFloat16*)dy, -1, ACL_COMPUTE_HIGH_PRECISION, stream));
  CHECK(aclrtSynchronizeStream(stream));
  CHECK(aclrtMemcpy(y16, sizeof y16, dy, sizeof y16, ACL_MEMCPY_DEVICE_TO_HOST));
  for (i = 0; i < M; ++i) {
    double sum = 0;
    for (p = 0; p < K; ++p) sum += (double)aclFloat16ToFloat(a16[i * K + p]) * aclFloat16ToFloat(x16[p]);
    if (fabs(aclFloat16ToFloat(y16[i]) - sum) > 0.02 + 0.002 * fabs(sum)) {
      printf("FAILED hgemv element %d: %f, expected %f\n", i, aclFloat16ToFloat(y16[i]), sum);
      return 1;
    }
  }

  /* S8gemm with B transposed: exact int32 results. */
  for (i = 0; i < M * K; ++i) a8[i] = (int8_t)((i * 37) % 255 - 127);
  for (i = 0; i < N * K; ++i) b8t[i] = (int8_t)((i * 53) % 251 - 125);
  for (i = 0; i < M * N; ++i) c32[i] = i * 1000 - 7;
  CHECK(aclrtFree(da));
  CHECK(aclrtFree(db));
  CHECK(aclrtFree(dc));
  da = to_device(a8, sizeof a8);
  db = to_device(b8t, sizeof b8t);
  dc = to_device(c32, sizeof c32);
  if (!da || !db || !dc) return 1;
  CHECK(aclrtFree(dalpha));
  CHECK(aclrtFree(dbeta));
  dalpha = to_device(&alpha32, sizeof alpha32);
  dbeta = to_device(&beta32, sizeof beta32);
  if (!dalpha || !dbeta) return 1;
  CHECK(aclblasS8gemm(ACL_TRANS_N, ACL_TRANS_T, ACL_TRANS_N, M, N, K, (int32_t*)dalpha, (int8_t*)da, -1,
                      (int8_t*)db, -1, (int32_t*)dbeta, (int32_t*)dc, -1, ACL_COMPUTE_HIGH_PRECISION, stream));
  CHECK(aclrtSynchronizeStream(stream));
  {
    int32_t got[M * N];
    CHECK(aclrtMemcpy(got, sizeof got, dc, sizeof got, ACL_MEMCPY_DEVICE_TO_HOST));
    for (i = 0; i < M; ++i)
      for (j = 0; j < N; ++j) {
        int32_t sum = 0;
        for (p = 0; p < K; ++p) sum += (int32_t)a8[i * K + p] * b8t[j * K + p];
        if (got[i * N + j] != alpha32 * sum + beta32 * c32[i * N + j]) {
          printf("FAILED s8gemm element %d: %d, expected %d\n", i * N + j, got[i * N + j],
                 alpha32 * sum + beta32 * c32[i * N + j]);
          return 1;
        }
      }
  }

  /* Refusals: a shape no model was compiled for, a leading dimension, a NULL matrix. */
  EXPECT(aclblasS8gemm(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, M, N, K, (int32_t*)dalpha, (int8_t*)da, -1,
                       (int8_t*)db, -1, (int32_t*)dbeta, (int32_t*)dc, -1, ACL_COMPUTE_HIGH_PRECISION, stream),
         ACL_ERROR_OP_NOT_FOUND);
  EXPECT(aclblasS8gemm(ACL_TRANS_N, ACL_TRANS_T, ACL_TRANS_N, M, N, K, (int32_t*)dalpha, (int8_t*)da, K,
                       (int8_t*)db, -1, (int32_t*)dbeta, (int32_t*)dc, -1, ACL_COMPUTE_HIGH_PRECISION, stream),
         ACL_ERROR_INVALID_PARAM);
  EXPECT(aclblasGemmEx(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, M, N, K, dalpha, NULL, -1, ACL_FLOAT16, db, -1,
                       ACL_FLOAT16, dbeta, dc, -1, ACL_FLOAT16, ACL_COMPUTE_HIGH_PRECISION, stream),
         ACL_ERROR_INVALID_PARAM);

  /* libacl_dvpp.so's header: media memory works, the media engine does not exist. */
  CHECK(acldvppMalloc(&dvpp, 1000));
  if (((size_t)dvpp) % 128 != 0) {
    printf("FAILED acldvppMalloc address %p is not 128-byte aligned\n", dvpp);
    return 1;
  }
  CHECK(aclrtMemset(dvpp, 1000, 0, 1000));
  CHECK(acldvppFree(dvpp));
  if (acldvppCreatePicDesc() != NULL || strstr(aclGetRecentErrMsg(), "acldvppCreatePicDesc") == NULL) {
    printf("FAILED acldvppCreatePicDesc: %s\n", aclGetRecentErrMsg());
    return 1;
  }
  EXPECT(acldvppCreateChannel(NULL), ACL_ERROR_API_NOT_SUPPORT);

  CHECK(aclrtFree(da));
  CHECK(aclrtFree(db));
  CHECK(aclrtFree(dc));
  CHECK(aclrtFree(dx));
  CHECK(aclrtFree(dy));
  CHECK(aclrtFree(dalpha));
  CHECK(aclrtFree(dbeta));
  CHECK(aclrtDestroyStream(stream));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  printf("ok\n");
  return 0;
}
