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

// Sum over the row of f(x[i]) in kChains vectors, then their lanes in double, pairwise (halves added to halves:
// a few vector adds, where one double added lane after lane had been a chain of kChains * kW dependent adds that
// cost a 384-value LayerNorm row more than its loads).
template <class F>
ASCENDSIM_INLINE double row_sum(const float* x, int64_t len, F f) {
  vf acc[kChains];
  ASCENDSIM_UNROLL_TILE
  for (int q = 0; q < kChains; ++q) acc[q] = vf{};
  int64_t i = 0;
  for (; i + kChains * kW <= len; i += kChains * kW)
    ASCENDSIM_UNROLL_TILE
    for (int q = 0; q < kChains; ++q) acc[q] += f(load(x + i + q * kW));
  for (; i + kW <= len; i += kW) acc[0] += f(load(x + i));
  double lanes[kChains * kW];
  ASCENDSIM_UNROLL_TILE
  for (int q = 0; q < kChains; ++q)
    ASCENDSIM_UNROLL_TILE
    for (int l = 0; l < kW; ++l) lanes[q * kW + l] = acc[q][l];
  ASCENDSIM_UNROLL_TILE
  for (int width = kChains * kW / 2; width >= 1; width /= 2)
    ASCENDSIM_UNROLL_TILE
    for (int l = 0; l < width; ++l) lanes[l] += lanes[l + width];
  double sum = lanes[0];
  for (; i < len; ++i) sum += f(vf{} + x[i])[0];
  return sum;
}

void softmax(const float* x, float* y, int64_t len, bool log) {
  // The maximum, then exp(x - max) and its sum, in two vector chains each (a max or an add waits for the one
  // before it); the last vector partial, its other lanes left out.
  vf mx0 = splat(-__builtin_inff()), mx1 = mx0;
  int64_t i = 0;
  for (; i + 2 * kW <= len; i += 2 * kW) {
    mx0 = vmax(mx0, load(x + i));
    mx1 = vmax(mx1, load(x + i + kW));
  }
  if (i + kW <= len) mx0 = vmax(mx0, load(x + i)), i += kW;
  if (i < len) mx1 = vmax(mx1, first_lanes(load_first(x + i, len - i), len - i, splat(-__builtin_inff())));
  const vf vm = splat(reduce_lanes(vmax(mx0, mx1), kMaxOf));
  vf sum0 = {}, sum1 = {};
  for (i = 0; i + 2 * kW <= len; i += 2 * kW) {
    const vf e0 = vexp(load(x + i) - vm), e1 = vexp(load(x + i + kW) - vm);
    if (!log) store(y + i, e0), store(y + i + kW, e1);
    sum0 += e0;
    sum1 += e1;
  }
  if (i + kW <= len) {
    const vf e = vexp(load(x + i) - vm);
    if (!log) store(y + i, e);
    sum0 += e;
    i += kW;
  }
  if (i < len) {
    const int64_t rest = len - i;
    const vf e = vexp(load_first(x + i, rest) - vm);
    if (!log) store_first(y + i, e, rest);
    sum1 += first_lanes(e, rest, vf{});
  }
  const float total = reduce_lanes(sum0 + sum1, kSumOf);
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

// kChains partial sums of alternate lines, each 16 doubles in registers (a single chain's adds each waited on the
// one before, and the general loop at the baseline's width converted 2 floats at a time).
void line_sums(const float* x, int64_t lines, int64_t stride, double* sums) {
  static_assert(kChains == 4, "the last loop adds the chains in pairs");
  double acc[kChains][kUnit];
  ASCENDSIM_UNROLL_TILE
  for (int q = 0; q < kChains; ++q)
    ASCENDSIM_UNROLL_TILE
    for (int j = 0; j < kUnit; ++j) acc[q][j] = 0.0;
  int64_t i = 0;
  for (; i + kChains <= lines; i += kChains)
    ASCENDSIM_UNROLL_TILE
    for (int q = 0; q < kChains; ++q)
      ASCENDSIM_UNROLL_TILE
      for (int j = 0; j < kUnit; ++j) acc[q][j] += x[(i + q) * stride + j];
  for (; i < lines; ++i)
    ASCENDSIM_UNROLL_TILE
    for (int j = 0; j < kUnit; ++j) acc[0][j] += x[i * stride + j];
  ASCENDSIM_UNROLL_TILE
  for (int j = 0; j < kUnit; ++j) sums[j] = (acc[0][j] + acc[1][j]) + (acc[2][j] + acc[3][j]);
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

// Transposes (Transpose's, TransData's NCHW <-> NC1HWC0 rows), 4 x 4 values at a time through a 4 x 4 transpose in
// registers (every variant has 4-lane vectors: ASCENDSIM_SHUFFLE4_ above), the tails one value at a time. One
// value at a time throughout, each stride-c0 store had waited on the one before: ~2 cycles per value, 144 us for
// the 16 x 112 x 112 map after the default model's stem on a Zen 3. (No <algorithm> here: simd.h's rule on library
// templates in the variants' objects.)
using lanes4 = uint32_t __attribute__((vector_size(16)));

ASCENDSIM_INLINE lanes4 load4(const uint32_t* p) {
  lanes4 v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
ASCENDSIM_INLINE void store4(uint32_t* p, lanes4 v) { __builtin_memcpy(p, &v, sizeof v); }

// Rows a, b, c, d become columns: a = (a0 b0 c0 d0), b = (a1 b1 c1 d1), ...
ASCENDSIM_INLINE void transpose4(lanes4& a, lanes4& b, lanes4& c, lanes4& d) {
  const lanes4 ab_low = ASCENDSIM_SHUFFLE4_(a, b, 0, 4, 1, 5), ab_high = ASCENDSIM_SHUFFLE4_(a, b, 2, 6, 3, 7);
  const lanes4 cd_low = ASCENDSIM_SHUFFLE4_(c, d, 0, 4, 1, 5), cd_high = ASCENDSIM_SHUFFLE4_(c, d, 2, 6, 3, 7);
  a = ASCENDSIM_SHUFFLE4_(ab_low, cd_low, 0, 1, 4, 5);
  b = ASCENDSIM_SHUFFLE4_(ab_low, cd_low, 2, 3, 6, 7);
  c = ASCENDSIM_SHUFFLE4_(ab_high, cd_high, 0, 1, 4, 5);
  d = ASCENDSIM_SHUFFLE4_(ab_high, cd_high, 2, 3, 6, 7);
}

// dst[c * dst_pitch + r] = src[r * src_pitch + c]: columns of 16 at a time (a line of each source row, 16 whole
// destination rows), 4 source rows at a time down them.
void transpose(const uint32_t* src, int64_t src_pitch, int64_t rows, int64_t cols, uint32_t* dst, int64_t dst_pitch) {
  constexpr int64_t kColumns = 16;
  for (int64_t c0 = 0; c0 < cols; c0 += kColumns) {
    const int64_t c1 = imin(cols, c0 + kColumns);
    int64_t r = 0;
    for (; r + 4 <= rows; r += 4) {
      const uint32_t* s = src + r * src_pitch;
      int64_t c = c0;
      for (; c + 4 <= c1; c += 4) {
        lanes4 a = load4(s + c), b = load4(s + src_pitch + c), e = load4(s + 2 * src_pitch + c), d = load4(s + 3 * src_pitch + c);
        transpose4(a, b, e, d);
        store4(dst + c * dst_pitch + r, a);
        store4(dst + (c + 1) * dst_pitch + r, b);
        store4(dst + (c + 2) * dst_pitch + r, e);
        store4(dst + (c + 3) * dst_pitch + r, d);
      }
      for (; c < c1; ++c)
        for (int64_t q = 0; q < 4; ++q) dst[c * dst_pitch + r + q] = s[q * src_pitch + c];
    }
    for (; r < rows; ++r)
      for (int64_t c = c0; c < c1; ++c) dst[c * dst_pitch + r] = src[r * src_pitch + c];
  }
}

void rows_to_lines(const uint32_t* rows, int64_t plane, int64_t used, int64_t c0, int64_t w, uint32_t* lines) {
  transpose(rows, plane, used, w, lines, c0);
  for (int64_t x = 0; x < w; ++x)  // the zero lanes
    for (int64_t k = used; k < c0; ++k) lines[x * c0 + k] = 0;
}

void lines_to_rows(const uint32_t* lines, int64_t used, int64_t c0, int64_t w, int64_t plane, uint32_t* rows) {
  transpose(lines, c0, w, used, rows, plane);
}

}  // namespace

extern const RowLoops row_loops_table;
const RowLoops row_loops_table = {softmax, softmax_strided, moments,       normalize,     affine,   line_sums,
                                   add,     gather,          round_fp16,    rows_to_lines, lines_to_rows, transpose};

}  // namespace ascendsim::kernels::ASCENDSIM_ISA_NS
