// Single-precision GEMM for every kernel (Conv, ConvTranspose, MatMul, Gemm): row-major
// C = alpha * op(A) * op(B) + beta * C on OpenBLAS, threaded by the intra-op pool rather than by OpenBLAS.
#pragma once
#include <cstdint>

namespace ascendsim::kernels {

// C (m x n, leading dim ldc) = alpha * op(A) (m x k) * op(B) (k x n) + beta * C; op transposes when the flag
// is set (A is then k x m with leading dim lda, B n x k with leading dim ldb).
void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

}  // namespace ascendsim::kernels
