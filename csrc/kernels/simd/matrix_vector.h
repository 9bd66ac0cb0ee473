// Matrix-vector products over a matrix's rows (gemm.cpp: a product with a single row or column of C, such as a
// classifier at batch 1), one table per kernel variant (simd/matrix_vector.cpp).
#pragma once
#include <cstdint>

namespace ascendsim::kernels {

struct MatrixVector {
  // y[i * incy] = alpha * (row i of W) . x + beta * y[i * incy] for i < n; W's rows hold k floats, ldw apart, x is
  // k contiguous floats. beta 0 does not read y (it may hold NaN).
  void (*rows)(const float* w, int64_t ldw, int64_t n, int64_t k, const float* x, float alpha, float beta, float* y,
               int64_t incy);
};

const MatrixVector& matrix_vector();

}  // namespace ascendsim::kernels
