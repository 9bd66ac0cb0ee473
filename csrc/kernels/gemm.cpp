// sgemm (see gemm.h): one threading system for the whole runtime.
//
// OpenBLAS is told to run single-threaded, and a GEMM large enough to share is cut into column blocks
// (or row blocks when C is taller than wide) that the intra-op pool's threads multiply concurrently, each
// with its own single-threaded OpenBLAS call. Before, OpenBLAS ran its own thread pool beside ours: two
// sets of spinning workers on the same CPUs, which on a busy machine made two-thread runs several times
// slower than one-thread runs. Blocks are multiples of 16 columns/rows (the micro-kernels' widths) holding
// at least kMinFlops multiply-adds, so a small GEMM stays one call on its caller, and there are at most two
// per thread, since each block packs the shared operand again.
#include "kernels/gemm.h"

#include <cblas.h>

#include <algorithm>

#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

constexpr int64_t kMinFlops = int64_t{1} << 18;  // multiply-adds per block
constexpr int64_t kAlign = 16;

void blas_single_threaded() {
  static const bool done = [] {
    scipy_openblas_set_num_threads(1);
    return true;
  }();
  (void)done;
}

void call(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* b,
          int64_t ldb, float beta, float* c, int64_t ldc) {
  scipy_cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, static_cast<int>(m),
                    static_cast<int>(n), static_cast<int>(k), alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb),
                    beta, c, static_cast<int>(ldc));
}

}  // namespace

void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  blas_single_threaded();
  if (m <= 0 || n <= 0) return;
  bool by_columns = n >= m;
  int64_t extent = by_columns ? n : m, other = by_columns ? m : n;
  // Smallest block (in units of kAlign) holding kMinFlops.
  int64_t per_unit = kAlign * other * std::max<int64_t>(k, 1);
  int64_t units = (extent + kAlign - 1) / kAlign;
  // At most two blocks per thread: every block packs the operand it shares (all of B for row blocks).
  int64_t grain = std::max<int64_t>((kMinFlops + per_unit - 1) / per_unit, (units + 2 * num_threads() - 1) / (2 * num_threads()));
  parallel_for(units, grain, [&](int64_t u0, int64_t u1) {
    int64_t lo = u0 * kAlign, hi = std::min(extent, u1 * kAlign);
    if (by_columns) {  // C[:, lo:hi] = op(A) * op(B)[:, lo:hi]
      const float* bb = trans_b ? b + lo * ldb : b + lo;
      call(trans_a, trans_b, m, hi - lo, k, alpha, a, lda, bb, ldb, beta, c + lo, ldc);
    } else {  // C[lo:hi, :] = op(A)[lo:hi, :] * op(B)
      const float* aa = trans_a ? a + lo : a + lo * lda;
      call(trans_a, trans_b, hi - lo, n, k, alpha, aa, lda, b, ldb, beta, c + lo * ldc, ldc);
    }
  });
}

}  // namespace ascendsim::kernels
