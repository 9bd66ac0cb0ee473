// Single-precision GEMM for every kernel (Conv, ConvTranspose, MatMul, Gemm): row-major
// C = alpha * op(A) * op(B) + beta * C on OpenBLAS, threaded by the intra-op pool rather than by OpenBLAS;
// and PackedMatrix, a constant left operand packed once (at kernel build) for our own register-blocked
// micro-kernel, for products whose other operand is narrow (there OpenBLAS's per-call packing of the
// constant operand costs more than the multiplication).
#pragma once
#include <cstdint>
#include <vector>

namespace ascendsim::kernels {

// C (m x n, leading dim ldc) = alpha * op(A) (m x k) * op(B) (k x n) + beta * C; op transposes when the flag
// is set (A is then k x m with leading dim lda, B n x k with leading dim ldb).
void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

// A constant m x k row-major matrix A packed into panels of kPanelRows rows, k-major within a panel (rows past
// m are zero), so that the micro-kernel reads it sequentially.
class PackedMatrix {
 public:
  static constexpr int64_t kPanelRows = 16;
  PackedMatrix(const float* a, int64_t m, int64_t k, int64_t lda);
  // C (m x n, leading dim ldc) = A * B (k x n, leading dim ldb) + (accumulate ? C : 0).
  void multiply(const float* b, int64_t ldb, int64_t n, bool accumulate, float* c, int64_t ldc) const;

 private:
  int64_t m_, k_;
  std::vector<float> panels_;
};

}  // namespace ascendsim::kernels
