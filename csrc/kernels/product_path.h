// Products with a constant operand (a layer's weights) run on whichever path the active kernel variant runs
// faster at their shape: our register tiles over the operand packed once at build (gemm.h's PackedMatrix and
// PackedColumns), or OpenBLAS. The rules are the kernels benchmark's findings per variant (docs/kernels.md,
// `ascendsim bench kernels`). ASCENDSIM_PRODUCTS=openblas, read when a kernel is built, sends every product to
// OpenBLAS instead, to compare the two.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernels/gemm.h"

namespace ascendsim::kernels {

enum class ProductPath { kPacked, kLibrary };

// C (m x n) = A * B with A the constant (m x k): a convolution's weights, Winograd's transformed weights.
ProductPath constant_left_path(int64_t m, int64_t k, int64_t n);
// C (m x n) = A * B with B the constant (k x n): a MatMul's weights.
ProductPath constant_right_path(int64_t m, int64_t k, int64_t n);
// For the kernel-variant log: "packed tiles 16x6 / 6x16 (AVX2)" or "OpenBLAS sgemm (Haswell)".
std::string product_path_name(ProductPath path);

// C (m x n) = epilogue(A (m x k) * B (k x n)) on OpenBLAS, all row-major: C preset to the bias and sum, one
// sgemm adding the product (beta 1: OpenBLAS then skips its zeroing pass), then the clamp.
void sgemm_epilogue(const float* a, int64_t lda, int64_t m, int64_t k, const float* b, int64_t ldb, int64_t n,
                    const GemmEpilogue& e, float* c, int64_t ldc);

// A constant m x k left operand on its path (constant_left_path, for products about `n` columns wide).
class ConstantMatrix {
 public:
  ConstantMatrix(const float* a, int64_t m, int64_t k, int64_t lda, int64_t n);
  // C (m x n, leading dim ldc) = epilogue(A * B (k x n, leading dim ldb)).
  void multiply(const float* b, int64_t ldb, int64_t n, const GemmEpilogue& e, float* c, int64_t ldc) const;
  ProductPath path() const { return packed_ ? ProductPath::kPacked : ProductPath::kLibrary; }

 private:
  int64_t m_, k_;
  std::optional<PackedMatrix> packed_;
  std::vector<float> rows_;  // the library path's copy, row-major
};

}  // namespace ascendsim::kernels
