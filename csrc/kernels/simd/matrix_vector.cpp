// y = alpha W x + beta y as dot products of W's rows with x. W is read once and, in a network, from memory (a
// classifier's weights were pushed out of the caches by the layers before it), so the loop is paced by how fast
// one core streams memory in, and its hardware prefetchers follow one sequential stream at about half the rate of
// a few concurrent ones (Zen 4, one core: 15.6 GB/s for one stream, 28-31 GB/s for two to four). So the rows are
// taken kStreams at a time from kStreams distant parts of the matrix, rows i, i + q, i + 2q, ... (q = n /
// kStreams), each row's sum in two vector accumulators, x read from L1 by all of them; the last n % kStreams rows
// run alone. (1000 x 1280, its weights from memory: OpenBLAS's sgemv 320-350 us, this 165-190; Zen 4, one thread.)
// alpha 0 reads neither W nor x (y = beta y, as sgemv: an infinite weight times 0 would be NaN).
#include "kernels/simd/matrix_vector.h"

#include "kernels/simd/simd.h"

namespace ascendsim::kernels::ASCENDSIM_ISA_NS {
namespace {

constexpr int kStreams = 4;

// sums[s] = rows[s][0, k) . x for the S rows.
template <int S>
ASCENDSIM_TILE void dot_rows(const float* const* rows, int64_t k, const float* x, float* sums) {
  vf acc[S][2] = {};
  int64_t j = 0;
  for (; j + 2 * kW <= k; j += 2 * kW) {
    const vf x0 = load(x + j), x1 = load(x + j + kW);
    ASCENDSIM_UNROLL_TILE
    for (int s = 0; s < S; ++s) {
      acc[s][0] += load(rows[s] + j) * x0;
      acc[s][1] += load(rows[s] + j + kW) * x1;
    }
  }
  for (; j < k; j += kW) {
    const int64_t lanes = imin(kW, k - j);
    const vf xv = load_first(x + j, lanes);
    ASCENDSIM_UNROLL_TILE
    for (int s = 0; s < S; ++s) acc[s][0] += load_first(rows[s] + j, lanes) * xv;
  }
  ASCENDSIM_UNROLL_TILE
  for (int s = 0; s < S; ++s) sums[s] = reduce_lanes(acc[s][0] + acc[s][1], kSumOf);
}

void rows(const float* w, int64_t ldw, int64_t n, int64_t k, const float* x, float alpha, float beta, float* y,
          int64_t incy) {
  auto finish = [&](int64_t i, float sum) { y[i * incy] = beta == 0.0f ? alpha * sum : alpha * sum + beta * y[i * incy]; };
  if (alpha == 0.0f) {
    for (int64_t i = 0; i < n; ++i) finish(i, 0.0f);
    return;
  }
  const int64_t q = n / kStreams;
  for (int64_t i = 0; i < q; ++i) {
    const float* group[kStreams];
    float sums[kStreams];
    for (int s = 0; s < kStreams; ++s) group[s] = w + (i + s * q) * ldw;
    dot_rows<kStreams>(group, k, x, sums);
    for (int s = 0; s < kStreams; ++s) finish(i + s * q, sums[s]);
  }
  for (int64_t i = q * kStreams; i < n; ++i) {
    const float* row = w + i * ldw;
    float sum = 0;
    dot_rows<1>(&row, k, x, &sum);
    finish(i, sum);
  }
}

}  // namespace

extern const MatrixVector matrix_vector_table;
const MatrixVector matrix_vector_table = {rows};

}  // namespace ascendsim::kernels::ASCENDSIM_ISA_NS
