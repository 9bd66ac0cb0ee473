// Depthwise convolution (see depthwise.h): one (image, channel) plane at a time, the planes shared by the
// pool's threads. Each plane runs in one function of the active kernel variant (simd/depthwise_planes.h),
// because the planes of MobileNet-style networks are small (7x7 to 112x112) and per-plane overhead (calls, loop
// setup, scalar copies) would otherwise cost more than the arithmetic.
//
// Stride-1 convs (dilation 1) of a 3x3, 5x5 or 7x7 kernel with output rows of at least kRowsWidth columns take
// the row-block path (in the x86 variants with FMA): the plane is copied into a zero-padded frame (zeroed once per
// run of planes, as only its input positions change), and each step computes a block of kRowsBlock output rows
// by a few vectors of columns in registers. Every frame row the block's windows cover is loaded once per kernel
// column and multiplied into each output row of the block it serves, so the loads per multiply-add fall by about
// the kernel's height / (block + height - 1).
//
// Other small "same" convs (stride 1, dilation 1, output the size of the input, at most kSamePlane positions:
// most depthwise layers of the later stages) run on the plane itself (the same loop): output i = oh * w + ow reads,
// for tap (ki, kj), input i + (ki - ph) * w + (kj - pw), so every tap is one multiply-add over the flat plane
// in vectors, written straight to the output. The plane is copied between zero rows (so the rows above and below read zeros), and a tap
// that would wrap around a row edge (ow + kj - pw outside the row) is multiplied by a 0/1 column mask.
//
// Stride-2 convs (dilation 1) read zero-padded copies of the plane's rows, deinterleaved as they are copied
// into a window of the rows one step of output rows reads (two shuffles per two vectors of input columns: the
// row's even padded columns, then its odd ones). Output (oh, ow) needs, for tap (ki, kj), padded[2 * oh + ki]
// [2 * ow + kj]: in row 2 * oh + ki, the evens (kj even) or the odds (kj odd) at ow + kj / 2, so a vector of
// outputs of a row is one plain vector load per tap. Taps summed at stride 1 with the even results kept did
// twice the multiply-adds and measured ~20% slower on MobileNetV2's 112x112 layer.
//
// Every other depthwise conv (strides above 2, dilations, narrow planes that are not "same") takes the
// polyphase path:
// 1. Polyphase split of the zero-padded plane: phase (pr, pc) holds padded[r * sh + pr][c * sw + pc] (one
//    phase at stride 1). Output (oh, ow) reads, for tap (ki, kj), phase ((ki*dh) % sh, (kj*dw) % sw) at
//    row oh + (ki*dh) / sh, column ow + (kj*dw) / sw: contiguous in ow for any stride and dilation. Only the
//    positions holding input are written: the padding is the same for every plane, so each thread zeroes
//    its phase buffer once per run of planes.
// 2. With phases of row pitch wpp, output (oh, ow) is flat index oh * wpp + ow, and every tap is one
//    multiply-add over a flat range of whole output rows (the wpp - ow columns past each row are computed
//    and dropped): long contiguous loops instead of rows of 7 to 112 elements. Kernels up to 8x8 take all
//    their taps in one pass, the sums of a few vectors in registers (a 7x7 kernel in one pass per tap measured
//    3x slower than onnxruntime); the range is cut into chunks of rows whose accumulator stays in L1.
// 3. The chunk's rows are copied out through the Relu/Clip bounds (activation_bounds); any other
//    activation runs over the thread's finished planes.
#include "kernels/depthwise.h"

#include <algorithm>

#include "kernels/layout.h"
#include "kernels/simd/depthwise_blocks.h"
#include "kernels/simd/depthwise_planes.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

constexpr int64_t kSamePlane = 1024;  // largest plane (32x32) on the same path
// Narrowest stride-1 output rows on the row-block path: on 14x14 and 7x7 planes the same path is faster (a row
// block's steps of 32 columns were mostly empty there), from 28x28 on the row blocks (5x5 on 28x28 1.4x, 7x7 on
// 56x56 1.9x faster than the same / polyphase paths; AVX-512).
constexpr int64_t kRowsWidth = 20;

enum class Path { kBlocked, kSame, kStride2, kRows, kPolyphase };

Path path_of(const ConvGeometry& g) {
  if (blocked_depthwise_suits(g)) return Path::kBlocked;
  const bool unit = g.dh == 1 && g.dw == 1;
  if (g.sh == 1 && g.sw == 1 && unit && g.ow >= kRowsWidth && depthwise_rows_suit(g.kh, g.kw) &&
      depthwise_planes().rows != nullptr)
    return Path::kRows;
  if (g.sh == 1 && g.sw == 1 && unit && g.oh == g.h && g.ow == g.w && g.ph < g.kh && g.pw < g.kw &&
      g.oh * g.ow <= kSamePlane)
    return Path::kSame;
  if (g.sh == 2 && g.sw == 2 && unit) return Path::kStride2;
  return Path::kPolyphase;
}

}  // namespace

std::string depthwise_path(const ConvGeometry& g) {
  switch (path_of(g)) {
    case Path::kBlocked: return "depthwise, channel blocks of " + std::to_string(depthwise_blocks().channels);
    case Path::kSame: return "depthwise, same planes";
    case Path::kStride2: return "depthwise, stride-2 windows";
    case Path::kRows: return "depthwise, row blocks";
    default: return "depthwise, polyphase planes";
  }
}

void depthwise_conv(const ConvGeometry& g, const float* x, const float* w, const float* bias, const Activation& act,
                    float* out) {
  const DepthwisePlanes& planes_of = depthwise_planes();
  float lo = 0, hi = 0;
  const bool fused = activation_bounds(act, &lo, &hi);
  const int64_t spatial = g.oh * g.ow, planes = g.n * g.c;
  // One run of planes per thread: each run first prepares its thread's buffers (zeroed frames, masks).
  const int64_t grain = (planes + num_threads() - 1) / num_threads();
  auto finish = [&](int64_t p0, int64_t p1) {
    if (!fused) apply_activation(act, out + p0 * spatial, (p1 - p0) * spatial);
  };
  const Path path = path_of(g);
  if (path == Path::kBlocked) {
    blocked_depthwise(g, x, w, bias, lo, hi, out);
    finish(0, planes);
    return;
  }
  if (path == Path::kSame) {
    SameShape s{};
    s.hw = spatial;
    s.padded = (spatial + kDepthwiseStep - 1) / kDepthwiseStep * kDepthwiseStep;
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
        planes_of.same(g, s, x + p * spatial, w + c * g.kh * g.kw, bias != nullptr ? bias[c] : 0.0f, frame, masks,
                   out + p * spatial);
      }
      finish(p0, p1);
    });
    return;
  }
  if (path == Path::kStride2) {
    FrameShape s{};
    s.rows = 2 * (kStride2Rows - 1) + g.kh;  // the padded rows of one step
    // Room for the copy's last group (at most 16 floats from (w - 1) / 32 * 16, shifted by up to (pw + 1) / 2)
    // and for the last output step's taps (at most 16 floats from (ow - 1) / 16 * 16 + (kw - 1) / 2).
    s.half = std::max((g.w - 1) / (2 * kUnit) * kUnit + (g.pw + 1) / 2, (g.ow - 1) / kUnit * kUnit + (g.kw - 1) / 2);
    s.half = (s.half + kUnit + kUnit - 1) / kUnit * kUnit;
    s.pitch = 2 * s.half;
    s.lo = lo;
    s.hi = hi;
    parallel_for(planes, grain, [&](int64_t p0, int64_t p1) {
      // (zeroed once: the rows' copies never write their left padding)
      float* frame = scratch_floats(6, static_cast<size_t>(s.rows * s.pitch));
      std::fill(frame, frame + s.rows * s.pitch, 0.0f);
      for (int64_t p = p0; p < p1; ++p) {
        const int64_t c = p % g.c;
        planes_of.stride2(g, s, x + p * g.h * g.w, w + c * g.kh * g.kw, bias != nullptr ? bias[c] : 0.0f, frame,
                      out + p * spatial);
      }
      finish(p0, p1);
    });
    return;
  }
  if (path == Path::kRows) {
    RowsShape s{};
    s.rows = g.oh + g.kh - 1 + kRowsBlock;  // (+ the phantom rows of the last block)
    s.pitch = (g.ow + kRowsStep - 1) / kRowsStep * kRowsStep + g.kw - 1;
    s.lo = lo;
    s.hi = hi;
    parallel_for(planes, grain, [&](int64_t p0, int64_t p1) {
      float* frame = scratch_floats(6, static_cast<size_t>(s.rows * s.pitch));
      std::fill(frame, frame + s.rows * s.pitch, 0.0f);  // the planes' copies overwrite only their input positions
      for (int64_t p = p0; p < p1; ++p) {
        const int64_t c = p % g.c;
        planes_of.rows(g, s, x + p * g.h * g.w, w + c * g.kh * g.kw, bias != nullptr ? bias[c] : 0.0f, frame,
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
  const int64_t acc_floats = std::min(g.oh, std::max<int64_t>(1, kDepthwiseChunk / shape.wpp)) * shape.wpp + kDepthwiseStep;
  parallel_for(planes, grain, [&](int64_t p0, int64_t p1) {
    float* phases = scratch_floats(6, static_cast<size_t>(phase_floats + acc_floats));
    std::fill(phases, phases + phase_floats, 0.0f);  // the plane's copies overwrite only its input positions
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t c = p % g.c;
      planes_of.polyphase(g, shape, x + p * g.h * g.w, w + c * g.kh * g.kw, bias != nullptr ? bias[c] : 0.0f, phases,
                      phases + phase_floats, out + p * spatial);
    }
    finish(p0, p1);
  });
}

}  // namespace ascendsim::kernels
