// Single-precision GEMM for every kernel (Conv, ConvTranspose, MatMul, Gemm): row-major
// C = alpha * op(A) * op(B) + beta * C on OpenBLAS, threaded by the intra-op pool rather than by OpenBLAS;
// and PackedMatrix / PackedColumns, a constant operand packed once (at kernel build) for our own register tiles
// (simd/gemm_tiles.h, one set per kernel variant), where OpenBLAS's per-call packing of the constant operand
// costs more than the multiplication.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/layout.h"
#include "kernels/packed_floats.h"
#include "kernels/simd/gemm_tiles.h"

namespace ascendsim::kernels {

// ASCENDSIM_PRODUCTS (auto, the default; packed; openblas), read by a kernel when it is built: which path its
// products with a constant operand take (product_path.h); under openblas MatMul's and Gemm's matrix-vector products
// run on sgemv too (sgemm's streamed_rows).
enum class ProductsMode { kAuto, kPacked, kLibrary };
ProductsMode products_mode();
// Whether our own loops may stand in for OpenBLAS where they are the faster (a stem's direct conv, sgemm's streamed
// rows): not under ASCENDSIM_PRODUCTS=openblas, which compares our kernels with OpenBLAS.
bool own_loops_allowed();

// C (m x n, leading dim ldc) = alpha * op(A) (m x k) * op(B) (k x n) + beta * C; op transposes when the flag
// is set (A is then k x m with leading dim lda, B n x k with leading dim ldb). With streamed_rows (MatMul's and
// Gemm's, unless built under ASCENDSIM_PRODUCTS=openblas), a single row or column of C over the rows of a matrix of
// 128 Ki floats or more runs on our streamed rows (simd/matrix_vector.cpp); every other matrix-vector product on
// OpenBLAS's sgemv.
void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc, bool streamed_rows = false);
// Whether sgemm runs that product on the streamed rows when streamed_rows is true and its vector is contiguous (as
// a MatMul's or Gemm's always is): the kernels' path names say so.
bool streams_rows(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k);

// A constant m x k row-major matrix A packed into panels of kUnit rows, k-major within a panel (rows past m are
// zero), so that the register tiles (simd/gemm_tiles.h) read it sequentially. Products with at least
// kWideColumns columns read B in place (suited to a small A), but a deep product of a tall A packs B up to
// kTallNarrowColumns (see gemm.cpp).
class PackedMatrix {
 public:
  static constexpr int64_t kWideColumns = 64;
  static constexpr int64_t kTallNarrowColumns = 256;
  using Epilogue = GemmEpilogue;
  PackedMatrix(const float* a, int64_t m, int64_t k, int64_t lda);
  // C (m x n, leading dim ldc) = epilogue(A * B (k x n, leading dim ldb)).
  void multiply(const float* b, int64_t ldb, int64_t n, const Epilogue& e, float* c, int64_t ldc) const;

 private:
  bool reads_b_in_place(int64_t n, int64_t ldb) const;
  void multiply_wide(const float* b, int64_t ldb, int64_t n, const Epilogue& e, float* c, int64_t ldc) const;
  void wide_columns(const float* b, int64_t ldb, int64_t n, int64_t j0, int64_t j1, int64_t k0, int64_t k1,
                    const Epilogue& e, float* c, int64_t ldc) const;
  void multiply_by_depth(const float* b, int64_t ldb, int64_t n, const Epilogue& e, float* c, int64_t ldc) const;
  int64_t m_, k_;
  PackedFloats panels_;
};

// A constant k x n row-major matrix B packed into panels of kUnit columns, k-major within a panel (columns past n
// are zero), for products A * B whose other operand A arrives at run time: the right-hand weights of a MatMul.
class PackedColumns {
 public:
  PackedColumns(const float* b, int64_t k, int64_t n, int64_t ldb);
  // C (m x n, leading dim ldc) = A (m x k, leading dim lda) * B, then + bias[column] (when not null) and
  // clamped to [lo, hi].
  void multiply(const float* a, int64_t lda, int64_t m, const float* bias, float lo, float hi, float* c,
                int64_t ldc) const;

 private:
  int64_t k_, n_;
  PackedFloats panels_;
};

}  // namespace ascendsim::kernels
