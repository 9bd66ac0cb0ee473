/*
 * ascendsim: AscendCL BLAS (matrix-matrix and matrix-vector products on the device). Not included by acl.h:
 * include it explicitly and link -lacl_cblas (CANN's library name; in ascendsim libacl_cblas.so only forwards to
 * libascendcl.so, which implements these functions).
 * Written for ascendsim from the published names, values and signatures of the AscendCL C API; not derived from
 * CANN header text.
 *
 * Every function runs the single operator "GEMM" (C = alpha * op(A) op(B) + beta * C, in place on C), which must
 * have been compiled first (atc --singleop, then aclopSetModelDir / aclopLoad), as on the device. Matrices are
 * row-major and dense: lda, ldb, ldc, incx and incy must be -1; alpha and beta point to device memory holding
 * one value of C's data type. The Gemv functions are GEMM with n = 1 (A is m x n, x has n elements, y has m).
 */
#ifndef INC_EXTERNAL_ACL_OPS_ACL_CBLAS_H_
#define INC_EXTERNAL_ACL_OPS_ACL_CBLAS_H_

#include "../acl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a matrix is stored: as is, transposed, or in the fractal NZ layout (plain or transposed). */
typedef enum aclTransType {
    ACL_TRANS_N = 0,
    ACL_TRANS_T = 1,
    ACL_TRANS_NZ = 2,
    ACL_TRANS_NZ_T = 3
} aclTransType;

/* Requested precision; only ACL_COMPUTE_HIGH_PRECISION is accepted. */
typedef enum aclComputeType {
    ACL_COMPUTE_HIGH_PRECISION = 0,
    ACL_COMPUTE_LOW_PRECISION = 1
} aclComputeType;

/* ---- matrix-vector: y = alpha * op(A) x + beta * y ---- */
ACL_FUNC_VISIBILITY aclError aclblasGemvEx(aclTransType transA, int m, int n, const void *alpha, const void *a,
                                           int lda, aclDataType dataTypeA, const void *x, int incx,
                                           aclDataType dataTypeX, const void *beta, void *y, int incy,
                                           aclDataType dataTypeY, aclComputeType type, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForGemvEx(aclTransType transA, int m, int n, aclDataType dataTypeA,
                                                          aclDataType dataTypeX, aclDataType dataTypeY,
                                                          aclComputeType type, aclopHandle **handle);
/* float16 in and out */
ACL_FUNC_VISIBILITY aclError aclblasHgemv(aclTransType transA, int m, int n, const aclFloat16 *alpha,
                                          const aclFloat16 *a, int lda, const aclFloat16 *x, int incx,
                                          const aclFloat16 *beta, aclFloat16 *y, int incy, aclComputeType type,
                                          aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForHgemv(aclTransType transA, int m, int n, aclComputeType type,
                                                         aclopHandle **handle);
/* int8 in, int32 out */
ACL_FUNC_VISIBILITY aclError aclblasS8gemv(aclTransType transA, int m, int n, const int32_t *alpha, const int8_t *a,
                                           int lda, const int8_t *x, int incx, const int32_t *beta, int32_t *y,
                                           int incy, aclComputeType type, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForS8gemv(aclTransType transA, int m, int n, aclComputeType type,
                                                          aclopHandle **handle);

/* ---- matrix-matrix: C = alpha * op(A) op(B) + beta * C, A m x k, B k x n, C m x n ---- */
ACL_FUNC_VISIBILITY aclError aclblasGemmEx(aclTransType transA, aclTransType transB, aclTransType transC, int m,
                                           int n, int k, const void *alpha, const void *matrixA, int lda,
                                           aclDataType dataTypeA, const void *matrixB, int ldb,
                                           aclDataType dataTypeB, const void *beta, void *matrixC, int ldc,
                                           aclDataType dataTypeC, aclComputeType type, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForGemmEx(aclTransType transA, aclTransType transB,
                                                          aclTransType transC, int m, int n, int k,
                                                          aclDataType dataTypeA, aclDataType dataTypeB,
                                                          aclDataType dataTypeC, aclComputeType type,
                                                          aclopHandle **handle);
/* float16 in and out */
ACL_FUNC_VISIBILITY aclError aclblasHgemm(aclTransType transA, aclTransType transB, aclTransType transC, int m,
                                          int n, int k, const aclFloat16 *alpha, const aclFloat16 *matrixA, int lda,
                                          const aclFloat16 *matrixB, int ldb, const aclFloat16 *beta,
                                          aclFloat16 *matrixC, int ldc, aclComputeType type, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForHgemm(aclTransType transA, aclTransType transB,
                                                         aclTransType transC, int m, int n, int k,
                                                         aclComputeType type, aclopHandle **handle);
/* int8 in, int32 out */
ACL_FUNC_VISIBILITY aclError aclblasS8gemm(aclTransType transA, aclTransType transB, aclTransType transC, int m,
                                           int n, int k, const int32_t *alpha, const int8_t *matrixA, int lda,
                                           const int8_t *matrixB, int ldb, const int32_t *beta, int32_t *matrixC,
                                           int ldc, aclComputeType type, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForS8gemm(aclTransType transA, aclTransType transB,
                                                          aclTransType transC, int m, int n, int k,
                                                          aclComputeType type, aclopHandle **handle);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_OPS_ACL_CBLAS_H_ */
