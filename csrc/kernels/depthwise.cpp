// Depthwise convolution (see depthwise.h): one (image, channel) plane at a time, the planes shared by the
// pool's threads. Each plane runs in one function compiled per instruction set, because the planes of
// MobileNet-style networks are small (7x7 to 112x112) and per-plane overhead (calls, loop setup, scalar
// copies) would otherwise cost more than the arithmetic.
//
// Small "same" convs (stride 1, dilation 1, output the size of the input, at most kSamePlane positions: most
// depthwise layers of the later stages) run on the plane itself (same_plane): output i = oh * w + ow reads,
// for tap (ki, kj), input i + (ki - ph) * w + (kj - pw), so every tap is one multiply-add over the flat plane in 16-float vectors, written straight to
// the output. The plane is copied between zero rows (so the rows above and below read zeros), and a tap
// that would wrap around a row edge (ow + kj - pw outside the row) is multiplied by a 0/1 column mask.
//
// Stride-2 convs (dilation 1) read zero-padded copies of the plane's rows, deinterleaved as they are copied
// into a window of the rows one step of output rows reads (two shuffles per 32 input columns: the row's
// even padded columns, then its odd ones). Output (oh, ow) needs, for tap (ki, kj), padded[2 * oh + ki]
// [2 * ow + kj]: in row 2 * oh + ki, the evens (kj even) or the odds (kj odd) at ow + kj / 2, so 16 outputs
// of a row are one plain vector load per tap. Taps summed at stride 1 over 32 columns with the even results
// kept did twice the multiply-adds and measured ~20% slower on MobileNetV2's 112x112 layer.
//
// Every other depthwise conv takes the polyphase path (polyphase_plane); on larger planes it is also the
// faster one (measured on 56x56 and 112x112: its row chunks keep the accumulator in L1, where the masks of
// a large plane would stream from L2):
// 1. Polyphase split of the zero-padded plane: phase (pr, pc) holds padded[r * sh + pr][c * sw + pc] (one
//    phase at stride 1). Output (oh, ow) reads, for tap (ki, kj), phase ((ki*dh) % sh, (kj*dw) % sw) at
//    row oh + (ki*dh) / sh, column ow + (kj*dw) / sw: contiguous in ow for any stride and dilation. Only the
//    positions holding input are written: the padding is the same for every plane, so each thread zeroes
//    its phase buffer once per run of planes.
// 2. With phases of row pitch wpp, output (oh, ow) is flat index oh * wpp + ow, and every tap is one
//    multiply-add over a flat range of whole output rows (the wpp - ow columns past each row are computed
//    and dropped): long contiguous loops instead of rows of 7 to 112 elements. A 3x3 kernel takes its nine
//    taps in one pass; the range is cut into chunks of rows whose accumulator stays in L1.
// 3. The chunk's rows are copied out through the Relu/Clip bounds (activation_bounds); any other
//    activation runs over the thread's finished planes.
#include "kernels/depthwise.h"

#include <algorithm>
#include <cmath>

#include "kernels/thread_pool.h"
#include "kernels/vec16.h"

namespace ascendsim::kernels {
namespace {

constexpr int64_t kChunkFloats = 1024;  // accumulator of one chunk of output rows (4 KiB)
constexpr int64_t kGroup = 4;           // vectors per step of same_plane (2: 10-20% slower; 8 pads 7x7 to 128)
constexpr int64_t kSamePlane = 1024;    // largest plane (32x32) on the same path
constexpr int64_t kPolyStep = 4;        // vectors per step of polyphase_plane's 3x3 loop
constexpr int64_t kStride2Rows = 4;     // output rows per step of stride2_plane

// The zero-framed copy of a plane for same_plane: `lead` zeros, the plane (hw floats), then zeros up to
// `floats` (the last vector's overrun plus the rows below).
struct SameShape {
  int64_t hw, padded;  // plane size, and rounded up to whole steps (kGroup vectors)
  int64_t lead, floats;
  float lo, hi;
};

// out = same conv of one plane (see the top of the file); masks[kj * padded + i] is 1 where tap column kj
// stays in the row of output i.
ASCENDSIM_VECTOR_CLONES void same_plane(const ConvGeometry& g, const SameShape& s, const float* in, const float* k,
                                        float bias, float* frame, const float* masks, float* out) {
  float* plane = frame + s.lead;
  for (int64_t i = 0; i < s.hw; ++i) plane[i] = in[i];
  const v16 lo = v16{} + s.lo, hi = v16{} + s.hi;
  // kGroup vectors at a time: independent multiply-add chains (one vector's taps are a dependent chain).
  for (int64_t i = 0; i < s.padded; i += kGroup * kLanes) {
    v16 acc[kGroup];
    for (int64_t q = 0; q < kGroup; ++q) acc[q] = v16{} + bias;
    for (int64_t kj = 0; kj < g.kw; ++kj) {
      const float* column = plane + i + kj - g.pw - g.ph * g.w;
      v16 part[kGroup] = {};
      for (int64_t ki = 0; ki < g.kh; ++ki) {
        const float wt = k[ki * g.kw + kj];
        for (int64_t q = 0; q < kGroup; ++q) {
          v16 tap;
          ASCENDSIM_LOAD16(tap, column + ki * g.w + q * kLanes);
          part[q] += wt * tap;
        }
      }
      for (int64_t q = 0; q < kGroup; ++q) {
        if (kj != g.pw) {
          v16 mask;
          ASCENDSIM_LOAD16(mask, masks + kj * s.padded + i + q * kLanes);
          part[q] *= mask;
        }
        acc[q] += part[q];
      }
    }
    for (int64_t q = 0; q < kGroup; ++q) {
      v16 y = acc[q] < lo ? lo : acc[q];
      y = y > hi ? hi : y;
      const int64_t at = i + q * kLanes;
      if (at < s.hw) ASCENDSIM_STORE_FIRST(out + at, y, std::min(kLanes, s.hw - at));
    }
  }
}

// A plane whose working buffer is larger than L1 streams that buffer from L2 anyway: then the next plane
// (the same distance on in memory) is fetched while this one is computed, a slice per step (MobileNetV2's
// 112x112 stride-2 layer, whose input comes from memory inside the network: 380 -> 345 us). With a buffer
// that fits L1 the fetch only evicted it.
class NextPlane {
 public:
  NextPlane(const ConvGeometry& g, const float* in, int64_t buffer_floats, int64_t steps)
      : next_(in + g.h * g.w),
        lines_per_step_(buffer_floats > kL1Floats ? ((g.h * g.w + kLanes - 1) / kLanes + steps - 1) / steps : 0) {}
  void fetch(int64_t step) const {
    for (int64_t l = 0; l < lines_per_step_; ++l) __builtin_prefetch(next_ + (step * lines_per_step_ + l) * kLanes, 0, 2);
  }

 private:
  const float* next_;
  int64_t lines_per_step_;
};

struct PlaneShape {
  int64_t hpp, wpp;  // rows and row pitch of each phase
  float lo, hi;      // bounds of the fused epilogue
};

// Rows or columns i in [0, count) of a phase whose source index i * stride + offset lies in [0, size).
inline void valid_range(int64_t offset, int64_t stride, int64_t size, int64_t count, int64_t* lo, int64_t* hi) {
  *lo = std::clamp<int64_t>((-offset + stride - 1) / stride, 0, count);
  *hi = std::clamp<int64_t>((size - offset + stride - 1) / stride, *lo, count);
}

ASCENDSIM_VECTOR_CLONES void polyphase_plane(const ConvGeometry& g, const PlaneShape& s, const float* in,
                                             const float* k, float bias, float* phases, float* acc, float* out) {
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
  const int64_t rows_per_chunk = std::max<int64_t>(1, kChunkFloats / wpp);
  const NextPlane next(g, in, g.sh * g.sw * phase_size, (g.oh + rows_per_chunk - 1) / rows_per_chunk);
  for (int64_t r0 = 0; r0 < g.oh; r0 += rows_per_chunk) {
    next.fetch(r0 / rows_per_chunk);
    const int64_t r1 = std::min(g.oh, r0 + rows_per_chunk), f0 = r0 * wpp, n = (r1 - 1 - r0) * wpp + g.ow;
    // 2. Multiply-adds over the chunk's flat range.
    if (g.kh == 3 && g.kw == 3) {
      const float *t0 = tap(0, 0) + f0, *t1 = tap(0, 1) + f0, *t2 = tap(0, 2) + f0, *t3 = tap(1, 0) + f0,
                  *t4 = tap(1, 1) + f0, *t5 = tap(1, 2) + f0, *t6 = tap(2, 0) + f0, *t7 = tap(2, 1) + f0,
                  *t8 = tap(2, 2) + f0;
      const float* taps[9] = {t0, t1, t2, t3, t4, t5, t6, t7, t8};
      // kPolyStep vectors per step, whole steps (the range's buffers have room for the overrun): independent
      // chains, where one vector at a time left its nine dependent multiply-adds waiting on their latency.
      for (int64_t i = 0; i < n; i += kPolyStep * kLanes) {
        v16 sum[kPolyStep];
        for (int64_t q = 0; q < kPolyStep; ++q) sum[q] = v16{} + bias;
        for (int64_t t = 0; t < 9; ++t) {
          for (int64_t q = 0; q < kPolyStep; ++q) {
            v16 v;
            ASCENDSIM_LOAD16(v, taps[t] + i + q * kLanes);
            sum[q] += k[t] * v;
          }
        }
        for (int64_t q = 0; q < kPolyStep; ++q) ASCENDSIM_STORE16(acc + i + q * kLanes, sum[q]);
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
      for (int64_t c = 0; c < g.ow; ++c) dst[c] = std::min(std::max(row[c], s.lo), s.hi);
    }
  }
}

// The window of stride2_plane: the `rows` zero-padded rows of the plane that one step reads, their columns
// deinterleaved: a row holds its even padded columns (padded column c is input column c - pw), then `half`
// floats on its odd ones; rows `pitch` apart.
struct FrameShape {
  int64_t rows, half, pitch;
  float lo, hi;
};

// Input row `src` into frame row `dst` (see FrameShape): per 32 input columns two loads and two shuffles
// (evens, odds), stored where padded[2j] and padded[2j + 1] belong: with pw odd the input's odd columns are
// the padded even ones. The last group reads up to 31 floats past the row, into the rows below while
// `readable` (the floats from src to the plane's end) allows; otherwise its columns are copied first. Padded
// columns from w + pw that a stored output reads are set back to zero after the group's overrun.
ASCENDSIM_VECTOR_CLONES void deinterleave_row(const ConvGeometry& g, const FrameShape& s, const float* src,
                                              int64_t readable, float* dst) {
  float* input_evens = dst + (g.pw % 2 ? s.half + g.pw / 2 : (g.pw + 1) / 2);
  float* input_odds = dst + (g.pw % 2 ? (g.pw + 1) / 2 : s.half + g.pw / 2);
  for (int64_t i = 0; i < g.w; i += 2 * kLanes) {
    float tail[2 * kLanes];
    const float* group = src + i;
    if (i + 2 * kLanes > readable) {
      for (int64_t j = 0; j < 2 * kLanes; ++j) tail[j] = i + j < g.w ? src[i + j] : 0.0f;
      group = tail;
    }
    v16 a, b, evens, odds;
    ASCENDSIM_LOAD16(a, group);
    ASCENDSIM_LOAD16(b, group + kLanes);
    ASCENDSIM_EVENS_OF(evens, a, b);
    odds = __builtin_shuffle(a, b, i16{1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31});
    ASCENDSIM_STORE16(input_evens + i / 2, evens);
    ASCENDSIM_STORE16(input_odds + i / 2, odds);
  }
  for (int64_t c = g.w + g.pw; c <= 2 * (g.ow - 1) + g.kw - 1; ++c) dst[c % 2 ? s.half + c / 2 : c / 2] = 0.0f;
}

// out = stride-2 conv of one plane (see the top of the file). The padded rows are deinterleaved as the steps
// reach them into a window of s.rows rows that stays in L1 (a whole 112x112 plane's copy, 76 KiB, was read
// back from L2: 2x slower); each step keeps the rows the next one shares.
ASCENDSIM_VECTOR_CLONES void stride2_plane(const ConvGeometry& g, const FrameShape& s, const float* in, const float* k,
                                           float bias, float* window, float* out) {
  const v16 lo = v16{} + s.lo, hi = v16{} + s.hi;
  const int64_t keep = std::max<int64_t>(0, s.rows - 2 * kStride2Rows);  // rows shared by consecutive steps
  const NextPlane next(g, in, g.h * g.w, (g.oh + kStride2Rows - 1) / kStride2Rows);
  // kStride2Rows output rows at a time: independent multiply-add chains (one vector's taps are a dependent
  // chain, and fewer chains leave the FMA units waiting on their latency). The phantom rows past the last
  // output row read zero rows below the plane and are not stored.
  for (int64_t oh = 0; oh < g.oh; oh += kStride2Rows) {
    const int64_t rows = std::min(kStride2Rows, g.oh - oh);
    next.fetch(oh / kStride2Rows);
    // The window holds padded rows 2 * oh onwards: the last `keep` rows of the previous step come first.
    int64_t from = 0;
    if (oh > 0 && keep > 0) {
      std::copy(window + (s.rows - keep) * s.pitch, window + s.rows * s.pitch, window);
      from = keep;
    }
    for (int64_t j = from; j < s.rows; ++j) {
      const int64_t r = 2 * oh + j - g.ph;  // input row
      float* dst = window + j * s.pitch;
      if (r >= 0 && r < g.h) {
        deinterleave_row(g, s, in + r * g.w, (g.h - r) * g.w, dst);
      } else {
        std::fill(dst, dst + s.pitch, 0.0f);
      }
    }
    // Right to left: a row's last vector may spill into the start of the row below, which is then written
    // after it (by this step's first vector or the next step); never past the plane (the check below).
    for (int64_t ow0 = (g.ow - 1) / kLanes * kLanes; ow0 >= 0; ow0 -= kLanes) {
      v16 acc[kStride2Rows];
      for (int64_t r = 0; r < kStride2Rows; ++r) acc[r] = v16{} + bias;
      for (int64_t ki = 0; ki < g.kh; ++ki) {
        for (int64_t kj = 0; kj < g.kw; ++kj) {
          const float wt = k[ki * g.kw + kj];
          // Padded column 2 * ow + kj: even kj in the evens, odd kj in the odds, at ow + kj / 2.
          const float* column = window + ki * s.pitch + (kj % 2) * s.half + ow0 + kj / 2;
          for (int64_t r = 0; r < kStride2Rows; ++r) {
            v16 v;
            ASCENDSIM_LOAD16(v, column + 2 * r * s.pitch);
            acc[r] += wt * v;
          }
        }
      }
      for (int64_t r = 0; r < rows; ++r) {
        v16 y = acc[r] < lo ? lo : acc[r];
        y = y > hi ? hi : y;
        const bool fits = (oh + r) * g.ow + ow0 + kLanes <= g.oh * g.ow;
        ASCENDSIM_STORE_FIRST(out + (oh + r) * g.ow + ow0, y, fits ? kLanes : g.ow - ow0);
      }
    }
  }
}

}  // namespace

void depthwise_conv(const ConvGeometry& g, const float* x, const float* w, const float* bias, const Activation& act,
                    float* out) {
  float lo = 0, hi = 0;
  const bool fused = activation_bounds(act, &lo, &hi);
  const int64_t spatial = g.oh * g.ow, planes = g.n * g.c;
  // One run of planes per thread: each run first prepares its thread's buffers (zeroed frames, masks).
  const int64_t grain = (planes + num_threads() - 1) / num_threads();
  auto finish = [&](int64_t p0, int64_t p1) {
    if (!fused) apply_activation(act, out + p0 * spatial, (p1 - p0) * spatial);
  };
  if (blocked_depthwise_suits(g)) {
    blocked_depthwise(g, x, w, bias, lo, hi, out);
    finish(0, planes);
    return;
  }
  if (g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 && g.oh == g.h && g.ow == g.w && g.ph < g.kh && g.pw < g.kw &&
      spatial <= kSamePlane) {
    SameShape s{};
    s.hw = spatial;
    s.padded = (spatial + kGroup * kLanes - 1) / (kGroup * kLanes) * (kGroup * kLanes);
    s.lead = g.ph * g.w + g.pw;
    s.floats = s.lead + s.padded + (g.kh - 1 - g.ph) * g.w + (g.kw - 1 - g.pw);
    s.lo = lo;
    s.hi = hi;
    parallel_for(planes, grain, [&](int64_t p0, int64_t p1) {
      float* frame = scratch_floats(6, static_cast<size_t>(s.floats + g.kw * s.padded));
      float* masks = frame + s.floats;
      std::fill(frame, frame + s.floats, 0.0f);  // the plane's copies overwrite only the plane
      for (int64_t kj = 0; kj < g.kw; ++kj)
        for (int64_t i = 0, ow = 0; i < s.padded; ++i, ow = ow + 1 == g.w ? 0 : ow + 1) {
          const int64_t column = ow + kj - g.pw;
          masks[kj * s.padded + i] = column >= 0 && column < g.w ? 1.0f : 0.0f;
        }
      for (int64_t p = p0; p < p1; ++p) {
        const int64_t c = p % g.c;
        same_plane(g, s, x + p * spatial, w + c * g.kh * g.kw, bias != nullptr ? bias[c] : 0.0f, frame, masks,
                   out + p * spatial);
      }
      finish(p0, p1);
    });
    return;
  }
  if (g.sh == 2 && g.sw == 2 && g.dh == 1 && g.dw == 1) {
    FrameShape s{};
    s.rows = 2 * (kStride2Rows - 1) + g.kh;  // the padded rows of one step
    // Room for the copy's last group (16 floats from (w - 1) / 32 * 16, shifted by up to (pw + 1) / 2) and
    // for the last output vector's taps (16 floats from (ow - 1) / 16 * 16 + (kw - 1) / 2).
    s.half = std::max((g.w - 1) / (2 * kLanes) * kLanes + (g.pw + 1) / 2, (g.ow - 1) / kLanes * kLanes + (g.kw - 1) / 2);
    s.half = (s.half + kLanes + kLanes - 1) / kLanes * kLanes;
    s.pitch = 2 * s.half;
    s.lo = lo;
    s.hi = hi;
    parallel_for(planes, grain, [&](int64_t p0, int64_t p1) {
      // (zeroed once: the rows' copies never write their left padding)
      float* frame = scratch_floats(6, static_cast<size_t>(s.rows * s.pitch));
      std::fill(frame, frame + s.rows * s.pitch, 0.0f);
      for (int64_t p = p0; p < p1; ++p) {
        const int64_t c = p % g.c;
        stride2_plane(g, s, x + p * g.h * g.w, w + c * g.kh * g.kw, bias != nullptr ? bias[c] : 0.0f, frame,
                      out + p * spatial);
      }
      finish(p0, p1);
    });
    return;
  }
  PlaneShape shape{};
  shape.hpp = g.oh + (g.kh - 1) * g.dh / g.sh;
  shape.wpp = g.ow + (g.kw - 1) * g.dw / g.sw;
  shape.lo = lo;
  shape.hi = hi;
  const int64_t phase_floats = g.sh * g.sw * shape.hpp * shape.wpp;
  // (+ one step: the 3x3 loop's reads and writes past the range)
  const int64_t acc_floats = std::min(g.oh, std::max<int64_t>(1, kChunkFloats / shape.wpp)) * shape.wpp + kPolyStep * kLanes;
  parallel_for(planes, grain, [&](int64_t p0, int64_t p1) {
    float* phases = scratch_floats(6, static_cast<size_t>(phase_floats + acc_floats));
    std::fill(phases, phases + phase_floats, 0.0f);  // the plane's copies overwrite only its input positions
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t c = p % g.c;
      polyphase_plane(g, shape, x + p * g.h * g.w, w + c * g.kh * g.kw, bias != nullptr ? bias[c] : 0.0f, phases,
                      phases + phase_floats, out + p * spatial);
    }
    finish(p0, p1);
  });
}

}  // namespace ascendsim::kernels
