// Row loops (see row_loops.h). The sums of the normalisations run in four vectors of float partial sums per
// row (a quarter of a 768-value row in each lane chain), added in double at the end: vectorized, where one
// double accumulator was a dependent scalar chain, and still exact to ~1e-7 of the row's scale.
#include "kernels/simd/row_loops.h"

#include <cmath>

#include "kernels/dtype_convert.h"
#include "kernels/simd/simd.h"
#include "kernels/simd/vmath.h"

namespace ascendsim::kernels::ASCENDSIM_ISA_NS {
namespace {

constexpr int kChains = 4;  // independent vector accumulators of a row sum

// Sum over the row of f(x[i]) in kChains vectors, then the lanes in double.
template <class F>
ASCENDSIM_INLINE double row_sum(const float* x, int64_t len, F f) {
  vf acc[kChains];
  for (int q = 0; q < kChains; ++q) acc[q] = vf{};
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

// The lanes of v reduced by op (kW lanes).
template <class Op>
ASCENDSIM_INLINE float reduce_lanes(vf v, Op op) {
  float r = v[0];
  for (int l = 1; l < kW; ++l) r = op(r, v[l]);
  return r;
}

void softmax(const float* x, float* y, int64_t len, bool log) {
  // The maximum, then exp(x - max) and its sum in vectors; the last vector partial (its other lanes excluded).
  vf mx = splat(-__builtin_inff());
  int64_t i = 0;
  for (; i + kW <= len; i += kW) mx = vmax(mx, load(x + i));
  float m = reduce_lanes(mx, [](float a, float b) { return fmax_(a, b); });
  for (; i < len; ++i) m = fmax_(m, x[i]);
  const vf vm = splat(m);
  vf sum = {};
  for (i = 0; i + kW <= len; i += kW) {
    const vf e = vexp(load(x + i) - vm);
    if (!log) store(y + i, e);
    sum += e;
  }
  float total = reduce_lanes(sum, [](float a, float b) { return a + b; });
  if (i < len) {
    const int64_t rest = len - i;
    const vf e = vexp(load_first(x + i, rest) - vm);
    if (!log) store_first(y + i, e, rest);
    for (int64_t l = 0; l < rest; ++l) total += e[l];
  }
  if (log) {  // (x - max) - log(sum): adding log(sum) to a large max first would round it away
    const vf lse = splat(std::log(total));
    for (i = 0; i + kW <= len; i += kW) store(y + i, (load(x + i) - vm) - lse);
    if (i < len) store_first(y + i, (load_first(x + i, len - i) - vm) - lse, len - i);
    return;
  }
  const vf inv = splat(1.0f / total);
  for (i = 0; i + kW <= len; i += kW) store(y + i, load(y + i) * inv);
  if (i < len) store_first(y + i, load_first(y + i, len - i) * inv, len - i);
}

// Softmax over an axis of `len` values `inner` apart, for `cols` adjacent positions of the inner dims at once:
// the vectors run across the inner dims, which are contiguous.
void softmax_strided(const float* x, float* y, int64_t len, int64_t inner, int64_t cols, bool log) {
  for (int64_t j = 0; j < cols; j += kW) {
    const int64_t lanes = imin(kW, cols - j);
    vf mx = splat(-__builtin_inff());
    for (int64_t i = 0; i < len; ++i) mx = vmax(mx, load_first(x + i * inner + j, lanes));
    vf sum = {};
    for (int64_t i = 0; i < len; ++i) {
      const vf e = vexp(load_first(x + i * inner + j, lanes) - mx);
      if (!log) store_first(y + i * inner + j, e, lanes);
      sum += e;
    }
    if (log) {
      vf lse = {};
      for (int l = 0; l < kW; ++l) lse[l] = std::log(sum[l]);
      for (int64_t i = 0; i < len; ++i)
        store_first(y + i * inner + j, (load_first(x + i * inner + j, lanes) - mx) - lse, lanes);
      continue;
    }
    const vf inv = 1.0f / sum;
    for (int64_t i = 0; i < len; ++i)
      store_first(y + i * inner + j, load_first(y + i * inner + j, lanes) * inv, lanes);
  }
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

void affine(const float* x, float* y, int64_t len, float scale, float shift, float lo, float hi) {
  for (int64_t i = 0; i < len; ++i) y[i] = fmin_(fmax_(x[i] * scale + shift, lo), hi);
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

// round_fp16 (dtype_convert.h) on whole vectors, with selects for its branches: the same value for every input.
// Normal range: the 13 bits below float16's mantissa rounded off to nearest even in the bit pattern; below
// 2^-14 (float16's subnormals, multiples of 2^-24): (v + 0.5) - 0.5, whose sum has exactly that spacing; from
// 65520 on: inf; NaN: the quiet NaN of its sign. (The scalar form's branches kept its loop scalar: ~4 ns a value.)
using vu = uint32_t __attribute__((vector_size(sizeof(vf))));
ASCENDSIM_INLINE vf round_to_fp16(vf f) {
  vu x;
  __builtin_memcpy(&x, &f, sizeof x);
  const vu sign = x & 0x80000000u, a = x & 0x7fffffffu;
  vf v;
  __builtin_memcpy(&v, &a, sizeof v);
  const vf tiny = (v + 0.5f) - 0.5f;
  vu r;
  __builtin_memcpy(&r, &tiny, sizeof r);
  r = a < 0x38800000u ? r : (a + 0xfffu + ((a >> 13) & 1u)) & 0xffffe000u;
  r = a >= 0x477ff000u ? vu{} + 0x7f800000u : r;
  r = a > 0x7f800000u ? vu{} + 0x7fc00000u : r;
  r |= sign;
  vf out;
  __builtin_memcpy(&out, &r, sizeof out);
  return out;
}

void round_fp16(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + kW <= n; i += kW) store(y + i, round_to_fp16(load(x + i)));
  if (i < n) store_first(y + i, round_to_fp16(load_first(x + i, n - i)), n - i);
}

}  // namespace

extern const RowLoops row_loops_table;
const RowLoops row_loops_table = {softmax, softmax_strided, moments, normalize, affine, add, gather, round_fp16};

}  // namespace ascendsim::kernels::ASCENDSIM_ISA_NS
