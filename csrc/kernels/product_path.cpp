// The product paths (see product_path.h).
#include "kernels/product_path.h"

#include <cblas.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

constexpr int64_t kMinClampFloats = 16384;  // clamp pass per pool chunk

bool library_forced() {
  const char* forced = std::getenv("ASCENDSIM_PRODUCTS");
  return forced != nullptr && std::strcmp(forced, "openblas") == 0;
}

}  // namespace

ProductPath constant_left_path(int64_t m, int64_t k, int64_t n) {
  (void)m, (void)k, (void)n;
  return library_forced() ? ProductPath::kLibrary : ProductPath::kPacked;
}

ProductPath constant_right_path(int64_t m, int64_t k, int64_t n) {
  (void)m, (void)k, (void)n;
  return library_forced() ? ProductPath::kLibrary : ProductPath::kPacked;
}

std::string product_path_name(ProductPath path) {
  if (path == ProductPath::kLibrary) return std::string("OpenBLAS sgemm (") + scipy_openblas_get_corename() + ")";
  return std::string("packed tiles ") + gemm_tiles().shape;
}

void sgemm_epilogue(const float* a, int64_t lda, int64_t m, int64_t k, const float* b, int64_t ldb, int64_t n,
                    const GemmEpilogue& e, float* c, int64_t ldc) {
  const bool preset = e.bias != nullptr || e.sum != nullptr;
  if (preset)
    for (int64_t r = 0; r < m; ++r)
      for (int64_t j = 0; j < n; ++j)
        c[r * ldc + j] = (e.bias != nullptr ? e.bias[r] : 0.0f) + (e.sum != nullptr ? e.sum[r * ldc + j] : 0.0f);
  sgemm(false, false, m, n, k, 1.0f, a, lda, b, ldb, preset ? 1.0f : 0.0f, c, ldc);
  if (e.lo == -__builtin_inff() && e.hi == __builtin_inff()) return;
  parallel_for(m, std::max<int64_t>(1, kMinClampFloats / std::max<int64_t>(n, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t j = 0; j < n; ++j) c[r * ldc + j] = std::min(std::max(c[r * ldc + j], e.lo), e.hi);
  });
}

ConstantMatrix::ConstantMatrix(const float* a, int64_t m, int64_t k, int64_t lda, int64_t n) : m_(m), k_(k) {
  if (constant_left_path(m, k, n) == ProductPath::kPacked) {
    packed_.emplace(a, m, k, lda);
    return;
  }
  rows_.resize(static_cast<size_t>(m * k));
  for (int64_t r = 0; r < m; ++r) std::copy(a + r * lda, a + r * lda + k, rows_.begin() + r * k);
}

void ConstantMatrix::multiply(const float* b, int64_t ldb, int64_t n, const GemmEpilogue& e, float* c,
                              int64_t ldc) const {
  if (packed_) {
    packed_->multiply(b, ldb, n, e, c, ldc);
    return;
  }
  sgemm_epilogue(rows_.data(), k_, m_, k_, b, ldb, n, e, c, ldc);
}

}  // namespace ascendsim::kernels
