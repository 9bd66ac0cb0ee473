// The per-plane depthwise loops (see depthwise.cpp for the three paths). Every loop keeps several independent
// multiply-add chains in registers (one vector's taps are a dependent chain, and fewer chains leave the FMA
// units waiting on their latency): four vectors per step in the same and polyphase loops, four output rows of
// kStride2Cols columns in the stride-2 loop, which is 16 columns where the accumulators fit in half the
// register file (AVX-512, AVX2, NEON) and 8 with SSE2's sixteen 4-float registers.
#include "kernels/simd/depthwise_planes.h"

#include "kernels/simd/simd.h"

namespace ascendsim::kernels::ASCENDSIM_ISA_NS {
namespace {

// Same / polyphase: vectors per step (2 measured 10-20% slower with AVX-512), 2 where the products need registers
// of their own (SSE2: 4 accumulators, 4 partial sums and their products spilled its 16 registers).
constexpr int kStepVectors = kFma || kRegisters >= 32 ? 4 : 2;
static_assert(kStepVectors * kW <= kDepthwiseStep, "a step overruns the buffers' padding");
constexpr int kStride2Vectors = kStride2Rows * kU <= kRegisters / 2 ? kU : kRegisters / 2 / kStride2Rows;
constexpr int64_t kStride2Cols = kStride2Vectors * kW;
constexpr int64_t kRegisterTaps = 64;  // polyphase kernels up to 8x8 keep their sums in registers over all taps

void same(const ConvGeometry& g, const SameShape& s, const float* in, const float* k, float bias, float* frame,
          const float* masks, float* out) {
  float* plane = frame + s.lead;
  for (int64_t i = 0; i < s.hw; ++i) plane[i] = in[i];
  const vf lo = splat(s.lo), hi = splat(s.hi);
  for (int64_t i = 0; i < s.padded; i += kStepVectors * kW) {
    vf acc[kStepVectors];
    for (int q = 0; q < kStepVectors; ++q) acc[q] = splat(bias);
    for (int64_t kj = 0; kj < g.kw; ++kj) {
      const float* column = plane + i + kj - g.pw - g.ph * g.w;
      vf part[kStepVectors] = {};
      for (int64_t ki = 0; ki < g.kh; ++ki) {
        const float wt = k[ki * g.kw + kj];
        for (int q = 0; q < kStepVectors; ++q) part[q] += wt * load(column + ki * g.w + q * kW);
      }
      for (int q = 0; q < kStepVectors; ++q) {
        if (kj != g.pw) part[q] *= load(masks + kj * s.padded + i + q * kW);
        acc[q] += part[q];
      }
    }
    for (int q = 0; q < kStepVectors; ++q) {
      const int64_t at = i + q * kW;
      if (at < s.hw) store_first(out + at, clamp(acc[q], lo, hi), imin(kW, s.hw - at));
    }
  }
}

// A plane whose working buffer is larger than L1 streams that buffer from L2 anyway: then the next plane (the
// same distance on in memory) is fetched while this one is computed, a slice per step (MobileNetV2's 112x112
// stride-2 layer, whose input comes from memory inside the network: 380 -> 345 us). With a buffer that fits L1
// the fetch only evicted it.
class NextPlane {
 public:
  NextPlane(const ConvGeometry& g, const float* in, int64_t buffer_floats, int64_t steps)
      : next_(in + g.h * g.w),
        lines_per_step_(buffer_floats > kL1Floats ? ((g.h * g.w + kUnit - 1) / kUnit + steps - 1) / steps : 0) {}
  void fetch(int64_t step) const {
    for (int64_t l = 0; l < lines_per_step_; ++l) __builtin_prefetch(next_ + (step * lines_per_step_ + l) * kUnit, 0, 2);
  }

 private:
  const float* next_;
  int64_t lines_per_step_;
};

// Rows or columns i in [0, count) of a phase whose source index i * stride + offset lies in [0, size).
ASCENDSIM_INLINE void valid_range(int64_t offset, int64_t stride, int64_t size, int64_t count, int64_t* lo, int64_t* hi) {
  *lo = imin(imax((-offset + stride - 1) / stride, 0), count);
  *hi = imin(imax((size - offset + stride - 1) / stride, *lo), count);
}

// acc[0, n) = bias + sum over the taps t of k[t] * taps[t][0, n), in whole steps of kStepVectors vectors (the
// range's buffers have room for the overrun), the sums in registers across all taps; kTaps: the tap count when
// known at compile time (3x3: unrolled), else 0 and `count`.
template <int kTaps>
ASCENDSIM_INLINE void tap_steps(const float* const* taps, int64_t count, const float* k, float bias, int64_t n,
                                float* acc) {
  const int64_t taps_n = kTaps > 0 ? kTaps : count;
  for (int64_t i = 0; i < n; i += kStepVectors * kW) {
    vf sum[kStepVectors];
    for (int q = 0; q < kStepVectors; ++q) sum[q] = splat(bias);
    for (int64_t t = 0; t < taps_n; ++t)
      for (int q = 0; q < kStepVectors; ++q) sum[q] += k[t] * load(taps[t] + i + q * kW);
    for (int q = 0; q < kStepVectors; ++q) store(acc + i + q * kW, sum[q]);
  }
}

void polyphase(const ConvGeometry& g, const PlaneShape& s, const float* in, const float* k, float bias, float* phases,
               float* acc, float* out) {
  const int64_t wpp = s.wpp, phase_size = s.hpp * wpp;
  // 1. The input positions of every phase.
  for (int64_t pr = 0; pr < g.sh; ++pr) {
    int64_t r_lo, r_hi;
    valid_range(pr - g.ph, g.sh, g.h, s.hpp, &r_lo, &r_hi);
    for (int64_t pc = 0; pc < g.sw; ++pc) {
      int64_t c_lo, c_hi;
      valid_range(pc - g.pw, g.sw, g.w, wpp, &c_lo, &c_hi);
      float* phase = phases + (pr * g.sw + pc) * phase_size;
      for (int64_t r = r_lo; r < r_hi; ++r) {
        const float* src = in + (r * g.sh + pr - g.ph) * g.w + pc - g.pw;
        float* dst = phase + r * wpp;
        if (g.sw == 1) {
          for (int64_t c = c_lo; c < c_hi; ++c) dst[c] = src[c];
        } else {
          for (int64_t c = c_lo; c < c_hi; ++c) dst[c] = src[c * g.sw];
        }
      }
    }
  }
  // The first element of tap (ki, kj) in the flat phase range.
  auto tap = [&](int64_t ki, int64_t kj) {
    const int64_t ro = ki * g.dh, co = kj * g.dw;
    return phases + ((ro % g.sh) * g.sw + co % g.sw) * phase_size + (ro / g.sh) * wpp + co / g.sw;
  };
  const int64_t rows_per_chunk = imax(1, kDepthwiseChunk / wpp);
  const NextPlane next(g, in, g.sh * g.sw * phase_size, (g.oh + rows_per_chunk - 1) / rows_per_chunk);
  for (int64_t r0 = 0; r0 < g.oh; r0 += rows_per_chunk) {
    next.fetch(r0 / rows_per_chunk);
    const int64_t r1 = imin(g.oh, r0 + rows_per_chunk), f0 = r0 * wpp, n = (r1 - 1 - r0) * wpp + g.ow;
    // 2. Multiply-adds over the chunk's flat range.
    const int64_t count = g.kh * g.kw;
    if (count <= kRegisterTaps) {
      const float* taps[kRegisterTaps];
      for (int64_t t = 0; t < count; ++t) taps[t] = tap(t / g.kw, t % g.kw) + f0;
      if (count == 9) {
        tap_steps<9>(taps, 9, k, bias, n, acc);
      } else {
        tap_steps<0>(taps, count, k, bias, n, acc);
      }
    } else {
      for (int64_t i = 0; i < n; ++i) acc[i] = bias;
      for (int64_t ki = 0; ki < g.kh; ++ki) {
        for (int64_t kj = 0; kj < g.kw; ++kj) {
          const float wt = k[ki * g.kw + kj];
          const float* src = tap(ki, kj) + f0;
          for (int64_t i = 0; i < n; ++i) acc[i] += wt * src[i];
        }
      }
    }
    // 3. The rows out, through the epilogue's bounds.
    for (int64_t r = r0; r < r1; ++r) {
      const float* row = acc + (r - r0) * wpp;
      float* dst = out + r * g.ow;
      for (int64_t c = 0; c < g.ow; ++c) dst[c] = fmin_(fmax_(row[c], s.lo), s.hi);
    }
  }
}

// Input row `src` into window row `dst` (see FrameShape): per 2 kW input columns two loads and two shuffles
// (evens, odds), stored where padded[2j] and padded[2j + 1] belong: with pw odd the input's odd columns are the
// padded even ones. The last group reads up to 2 kW - 1 floats past the row, into the rows below while
// `readable` (the floats from src to the plane's end) allows; otherwise its columns are copied first. Padded
// columns from w + pw that a stored output reads are set back to zero after the group's overrun.
ASCENDSIM_INLINE void deinterleave_row(const ConvGeometry& g, const FrameShape& s, const float* src, int64_t readable,
                                       float* dst) {
  float* input_evens = dst + (g.pw % 2 ? s.half + g.pw / 2 : (g.pw + 1) / 2);
  float* input_odds = dst + (g.pw % 2 ? (g.pw + 1) / 2 : s.half + g.pw / 2);
  for (int64_t i = 0; i < g.w; i += 2 * kW) {
    float tail[2 * kW];
    const float* group = src + i;
    if (i + 2 * kW > readable) {
      for (int64_t j = 0; j < 2 * kW; ++j) tail[j] = i + j < g.w ? src[i + j] : 0.0f;
      group = tail;
    }
    const vf a = load(group), b = load(group + kW);
    store(input_evens + i / 2, evens(a, b));
    store(input_odds + i / 2, odds(a, b));
  }
  for (int64_t c = g.w + g.pw; c <= 2 * (g.ow - 1) + g.kw - 1; ++c) dst[c % 2 ? s.half + c / 2 : c / 2] = 0.0f;
}

// out = stride-2 conv of one plane. The padded rows are deinterleaved as the steps reach them into a window of
// s.rows rows that stays in L1 (a whole 112x112 plane's copy, 76 KiB, was read back from L2: 2x slower); each
// step keeps the rows the next one shares.
void stride2(const ConvGeometry& g, const FrameShape& s, const float* in, const float* k, float bias, float* window,
             float* out) {
  const vf lo = splat(s.lo), hi = splat(s.hi);
  const int64_t keep = imax(0, s.rows - 2 * kStride2Rows);  // rows shared by consecutive steps
  const NextPlane next(g, in, g.h * g.w, (g.oh + kStride2Rows - 1) / kStride2Rows);
  // The phantom rows past the last output row read zero rows below the plane and are not stored.
  for (int64_t oh = 0; oh < g.oh; oh += kStride2Rows) {
    const int64_t rows = imin(kStride2Rows, g.oh - oh);
    next.fetch(oh / kStride2Rows);
    // The window holds padded rows 2 * oh onwards: the last `keep` rows of the previous step come first.
    int64_t from = 0;
    if (oh > 0 && keep > 0) {
      __builtin_memmove(window, window + (s.rows - keep) * s.pitch, sizeof(float) * static_cast<unsigned long>(keep * s.pitch));
      from = keep;
    }
    for (int64_t j = from; j < s.rows; ++j) {
      const int64_t r = 2 * oh + j - g.ph;  // input row
      float* dst = window + j * s.pitch;
      if (r >= 0 && r < g.h) {
        deinterleave_row(g, s, in + r * g.w, (g.h - r) * g.w, dst);
      } else {
        for (int64_t c = 0; c < s.pitch; ++c) dst[c] = 0.0f;
      }
    }
    // Right to left: a row's last vector may spill into the start of the row below, which is then written
    // after it (by this step's first columns or the next step); never past the plane (the check below).
    for (int64_t ow0 = (g.ow - 1) / kStride2Cols * kStride2Cols; ow0 >= 0; ow0 -= kStride2Cols) {
      vf acc[kStride2Rows][kStride2Vectors];
      for (int64_t r = 0; r < kStride2Rows; ++r)
        for (int u = 0; u < kStride2Vectors; ++u) acc[r][u] = splat(bias);
      for (int64_t ki = 0; ki < g.kh; ++ki) {
        for (int64_t kj = 0; kj < g.kw; ++kj) {
          const float wt = k[ki * g.kw + kj];
          // Padded column 2 * ow + kj: even kj in the evens, odd kj in the odds, at ow + kj / 2.
          const float* column = window + ki * s.pitch + (kj % 2) * s.half + ow0 + kj / 2;
          for (int64_t r = 0; r < kStride2Rows; ++r)
            for (int u = 0; u < kStride2Vectors; ++u) acc[r][u] += wt * load(column + 2 * r * s.pitch + u * kW);
        }
      }
      for (int64_t r = 0; r < rows; ++r) {
        const bool fits = (oh + r) * g.ow + ow0 + kStride2Cols <= g.oh * g.ow;
        const int64_t cols = fits ? kStride2Cols : g.ow - ow0;
        for (int u = 0; u < kStride2Vectors && u * kW < cols; ++u)
          store_first(out + (oh + r) * g.ow + ow0 + u * kW, clamp(acc[r][u], lo, hi), imin(kW, cols - u * kW));
      }
    }
  }
}

#if defined(__FMA__)  // x86 with FMA (see below)
// The stride-1 rows loop: kRowsBlock output rows by kRowsVectors vectors of columns per step, the sums in
// registers; every input row the block's windows touch is loaded once per tap column and multiplied into each
// output row it serves (row ir of the block feeds output row r through kernel row ir - r). A 7x7 kernel's
// outputs then cost 17.5 loads of input per 49 multiply-adds, where the flat polyphase loop loaded for each.
// It exists for the square kernels of depthwise networks (K = 3, 5, 7; depthwise_rows_suit), instantiated per
// size so that its loops unroll: the test of which kernel row serves which output row disappears (with the
// sizes at run time, a broadcast and a branch per tap and row, a 3x3 kernel ran at a third of the speed), and
// the taps are splat once per plane into vectors that the multiply-adds read from memory. It is compiled for
// x86 with FMA only (elsewhere the table's entry is null): with SSE2 the products need registers of their own,
// and on aarch64 GCC kept the sums in memory (NEON's by-element multiply-add would want the taps in registers,
// four to one: not written yet); the same and polyphase paths serve those variants.
constexpr int kRowsVectors = 2;
static_assert(kRowsVectors * kW <= kRowsStep, "a step wider than the frame's padding");

template <int K>
void rows_of(const ConvGeometry& g, const RowsShape& s, const float* in, const float* k, float bias, float* frame,
             float* out) {
  for (int64_t r = 0; r < g.h; ++r) {
    const float* src = in + r * g.w;
    float* dst = frame + (r + g.ph) * s.pitch + g.pw;
    for (int64_t c = 0; c < g.w; ++c) dst[c] = src[c];
  }
  vf taps[K * K];
  for (int t = 0; t < K * K; ++t) taps[t] = splat(k[t]);
  const vf lo = splat(s.lo), hi = splat(s.hi);
  constexpr int64_t kCols = kRowsVectors * kW;
  for (int64_t oh0 = 0; oh0 < g.oh; oh0 += kRowsBlock) {
    // Right to left, as the stride-2 loop: a row's last vectors are stored whole, into the start of the row below,
    // which is written after them; only the plane's end takes a masked store (slow on AMD CPUs: on 28x28 and
    // 14x14 planes every output row ended in one).
    for (int64_t ow0 = (g.ow - 1) / kCols * kCols; ow0 >= 0; ow0 -= kCols) {
      vf acc[kRowsBlock][kRowsVectors];
      for (int r = 0; r < static_cast<int>(kRowsBlock); ++r)
        for (int u = 0; u < kRowsVectors; ++u) acc[r][u] = splat(bias);
#pragma GCC unroll 16
      for (int ir = 0; ir < static_cast<int>(kRowsBlock) + K - 1; ++ir) {
        const float* row = frame + (oh0 + ir) * s.pitch + ow0;
#pragma GCC unroll 8
        for (int kj = 0; kj < K; ++kj) {
          vf x[kRowsVectors];
          for (int u = 0; u < kRowsVectors; ++u) x[u] = load(row + kj + u * kW);
#pragma GCC unroll 4
          for (int r = 0; r < static_cast<int>(kRowsBlock); ++r) {
            const int ki = ir - r;
            if (ki >= 0 && ki < K)
              for (int u = 0; u < kRowsVectors; ++u) acc[r][u] += taps[ki * K + kj] * x[u];
          }
          // The taps are read again at every tap column: kept in registers across them (GCC hoists the 9 of
          // a 3x3 kernel), they would push the accumulators onto the stack.
          asm volatile("" : : "r"(taps) : "memory");
        }
      }
      for (int64_t r = 0; r < kRowsBlock && oh0 + r < g.oh; ++r)
        for (int u = 0; u < kRowsVectors && ow0 + u * kW < g.ow; ++u) {
          const int64_t at = (oh0 + r) * g.ow + ow0 + u * kW;
          store_first(out + at, clamp(acc[r][u], lo, hi), at + kW <= g.oh * g.ow ? kW : g.oh * g.ow - at);
        }
    }
  }
}

void rows(const ConvGeometry& g, const RowsShape& s, const float* in, const float* k, float bias, float* frame,
          float* out) {
  if (g.kh == 3) return rows_of<3>(g, s, in, k, bias, frame, out);
  if (g.kh == 5) return rows_of<5>(g, s, in, k, bias, frame, out);
  rows_of<7>(g, s, in, k, bias, frame, out);
}
constexpr auto kRowsLoop = rows;
#else
constexpr decltype(DepthwisePlanes::rows) kRowsLoop = nullptr;
#endif  // __FMA__

}  // namespace

extern const DepthwisePlanes depthwise_planes_table;
const DepthwisePlanes depthwise_planes_table = {same, polyphase, stride2, kRowsLoop};

}  // namespace ascendsim::kernels::ASCENDSIM_ISA_NS
