// Row loops (see row_loops.h). The sums of the normalisations run in four vectors of float partial sums per
// row (a quarter of a 768-value row in each lane chain), added in double at the end: vectorized, where one
// double accumulator was a dependent scalar chain, and still exact to ~1e-7 of the row's scale.
#include "kernels/simd/row_loops.h"

#include <cmath>

#include "kernels/simd/simd.h"
#include "kernels/vmath.h"

namespace ascendsim::kernels::ASCENDSIM_ISA_NS {
namespace {

constexpr int kChains = 4;  // independent vector accumulators of a row sum

// Sum over the row of f(x[i]) in kChains vectors, then the lanes in double.
template <class F>
ASCENDSIM_INLINE double row_sum(const float* x, int64_t len, F f) {
  vf acc[kChains] = {};
  int64_t i = 0;
  for (; i + kChains * kW <= len; i += kChains * kW)
    for (int q = 0; q < kChains; ++q) acc[q] += f(load(x + i + q * kW));
  for (; i + kW <= len; i += kW) acc[0] += f(load(x + i));
  double sum = 0;
  for (int q = 0; q < kChains; ++q)
    for (int l = 0; l < kW; ++l) sum += acc[q][l];
  for (; i < len; ++i) sum += f(vf{} + x[i])[0];
  return sum;
}

void softmax(const float* x, float* y, int64_t len, bool log) {
  float mx = -__builtin_inff();
  for (int64_t i = 0; i < len; ++i) mx = fmax_(mx, x[i]);
  float sum = 0.0f;
  if (log) {
    for (int64_t i = 0; i < len; ++i) y[i] = x[i] - mx;
    for (int64_t i = 0; i < len; ++i) sum += vexp(y[i]);
    const float lse = std::log(sum);
    for (int64_t i = 0; i < len; ++i) y[i] -= lse;
    return;
  }
  for (int64_t i = 0; i < len; ++i) y[i] = vexp(x[i] - mx);
  for (int64_t i = 0; i < len; ++i) sum += y[i];
  const float inv = 1.0f / sum;
  for (int64_t i = 0; i < len; ++i) y[i] *= inv;
}

void moments(const float* x, int64_t len, float eps, float* mean, float* inv_std) {
  const double count = static_cast<double>(imax(len, 1));
  const float m = static_cast<float>(row_sum(x, len, [](vf v) { return v; }) / count);
  const vf vm = splat(m);
  const double sq = row_sum(x, len, [vm](vf v) { return (v - vm) * (v - vm); });
  *mean = m;
  *inv_std = 1.0f / std::sqrt(static_cast<float>(sq / count) + eps);
}

void normalize(const float* x, float* y, int64_t len, float mean, float inv_std, const float* scale,
               int64_t scale_count, const float* bias, int64_t bias_count) {
  if (scale != nullptr && scale_count != 1 && bias != nullptr && bias_count != 1) {  // the usual LayerNorm
    for (int64_t i = 0; i < len; ++i) y[i] = (x[i] - mean) * inv_std * scale[i] + bias[i];
    return;
  }
  const float s0 = scale != nullptr ? scale[0] : 1.0f, b0 = bias != nullptr ? bias[0] : 0.0f;
  const bool per_scale = scale != nullptr && scale_count != 1, per_bias = bias != nullptr && bias_count != 1;
  for (int64_t i = 0; i < len; ++i)
    y[i] = (x[i] - mean) * inv_std * (per_scale ? scale[i] : s0) + (per_bias ? bias[i] : b0);
}

void affine(const float* x, float* y, int64_t len, float scale, float shift) {
  for (int64_t i = 0; i < len; ++i) y[i] = x[i] * scale + shift;
}

void add(float* row, const float* bias, int64_t n) {
  for (int64_t j = 0; j < n; ++j) row[j] += bias[j];
}

// (Stride 2, the common strided conv, with a constant stride so that it vectorizes.)
void gather(const float* src, int64_t stride, float* row, int64_t n) {
  if (stride == 1) {
    for (int64_t c = 0; c < n; ++c) row[c] = src[c];
  } else if (stride == 2) {
    for (int64_t c = 0; c < n; ++c) row[c] = src[2 * c];
  } else {
    for (int64_t c = 0; c < n; ++c) row[c] = src[c * stride];
  }
}

}  // namespace

extern const RowLoops row_loops_table;
const RowLoops row_loops_table = {softmax, moments, normalize, affine, add, gather};

}  // namespace ascendsim::kernels::ASCENDSIM_ISA_NS
