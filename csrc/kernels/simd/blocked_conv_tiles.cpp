// Register tiles of the NC1HWC0 convolutions (see blocked_conv_tiles.h; blocked_conv.cpp packs the weights and
// shares the work out).
//
// Dense conv: a tile is kPixels output pixels by kBlocks output blocks of 16 channels, its accumulators held in
// registers over the whole sum (every input block, every tap, the 16 channels of a block). Per input channel,
// kBlocks x kU vectors of weights (16 output channels each) and kPixels broadcasts of the pixels' inputs, each
// broadcast used by every weight vector. The pixels of a tile need not be neighbours (each has its own origin),
// so a tile runs across output rows and a 7x7 plane fills its tiles as well as a 56x56 one. AVX-512: 12 pixels
// x 32 channels in 24 of its 32 registers; AVX2: 6 x 16 in 12 of 16; NEON: 5 x 16 in 20 of 32; SSE2: 2 x 16.
//
// Depthwise: per block, kDepthwisePixels adjacent output pixels by 16 channels; per tap, the tap's weights (kU vectors)
// and one input line per pixel.
#include "kernels/simd/blocked_conv_tiles.h"

#include "kernels/simd/simd.h"

namespace ascendsim::kernels::ASCENDSIM_ISA_NS {
namespace {

#if defined(__AVX512F__)
constexpr int kPixels = 12, kBlocks = 2;
#define ASCENDSIM_BLOCKED_SHAPE "12 pixels x 32 channels (AVX-512)"
#elif defined(__AVX2__) && defined(__FMA__)
constexpr int kPixels = 6, kBlocks = 1;
#define ASCENDSIM_BLOCKED_SHAPE "6 pixels x 16 channels (AVX2)"
#elif defined(__aarch64__)
constexpr int kPixels = 5, kBlocks = 1;
#define ASCENDSIM_BLOCKED_SHAPE "5 pixels x 16 channels (NEON)"
#else
constexpr int kPixels = 2, kBlocks = 1;
#define ASCENDSIM_BLOCKED_SHAPE "2 pixels x 16 channels (SSE2)"
#endif
// Accumulators + one input channel's weight vectors + the broadcast (NEON: by-element fmla reads a float of a
// register: count one per pixel) + a product without FMA.
#if defined(__aarch64__)
constexpr int kBroadcastRegisters = kPixels;
#else
constexpr int kBroadcastRegisters = 1;
#endif
static_assert(kPixels * kBlocks * kU + kBlocks * kU + kBroadcastRegisters + (kFma ? 0 : 1) <= kRegisters,
              "the blocked conv tile spills");
// The depthwise tile: on NEON GCC's schedule loads a tap's every input line before its multiply-adds (5 x 4
// and 4 x 4 tiles spilled), so 3 pixels there: 12 accumulators, 4 weights, 12 lines.
#if defined(__aarch64__)
constexpr int kDepthwisePixels = 3;
#else
constexpr int kDepthwisePixels = kPixels;
#endif
static_assert(kDepthwisePixels * kU + kU + 1 + (kFma ? 0 : 1) <= kRegisters, "the blocked depthwise tile spills");

constexpr int64_t kLine = kUnit;            // floats of one pixel's channel block
constexpr int64_t kSquare = kUnit * kUnit;  // floats of one tap's weights of an (input, output) block pair

template <int kP, int kB>
ASCENDSIM_TILE void conv_tile(const BlockedConvArgs& a, const float* const* origins, float* out) {
  vf acc[kP][kB][kU];
  for (int b = 0; b < kB; ++b)
    for (int p = 0; p < kP; ++p)
      for (int u = 0; u < kU; ++u)
        acc[p][b][u] = a.accumulate ? load(out + b * a.out_block_stride + p * kLine + u * kW) : load(a.bias + b * kLine + u * kW);
  for (int64_t ib = 0; ib < a.in_blocks; ++ib) {
    const float* wb = a.weights + ib * a.tap_count * kSquare;
    const int64_t block_offset = a.origin_offset + ib * a.in_block_stride;
    for (int64_t t = 0; t < a.tap_count; ++t) {
      const float* src[kP];
      for (int p = 0; p < kP; ++p) src[p] = origins[p] + block_offset + a.taps[t];
      const float* wt = wb + t * kSquare;
#pragma GCC unroll 8  // (16: GCC's schedule then needs more registers than AVX2 has, and spills)
      for (int c = 0; c < kLine; ++c) {
        vf w[kB][kU];
        for (int b = 0; b < kB; ++b)
          for (int u = 0; u < kU; ++u) w[b][u] = load(wt + b * a.weight_block + c * kLine + u * kW);
        for (int p = 0; p < kP; ++p) {
          const float x = src[p][c];  // (a float times a vector: a broadcast load, not an add to a zero vector)
          for (int b = 0; b < kB; ++b)
            for (int u = 0; u < kU; ++u) acc[p][b][u] += x * w[b][u];
        }
      }
    }
  }
  const vf lo = splat(a.lo), hi = splat(a.hi);
  for (int b = 0; b < kB; ++b) {
    for (int p = 0; p < kP; ++p) {
      float* at = out + b * a.out_block_stride + p * kLine;
      for (int u = 0; u < kU; ++u) {
        vf v = acc[p][b][u];
        if (a.last) {
          if (a.sum != nullptr) v += load(a.sum + b * a.out_block_stride + p * kLine + u * kW);
          v = clamp(v, lo, hi);
        }
        store(at + u * kW, v);
      }
    }
  }
}

// The tile of `count` pixels and kB blocks: the last pixels of a run and the last blocks take smaller tiles.
template <int kP, int kB>
ASCENDSIM_INLINE void pick_pixels(const BlockedConvArgs& a, const float* const* origins, int64_t count, float* out) {
  if constexpr (kP > 1) {
    if (count < kP) return pick_pixels<kP - 1, kB>(a, origins, count, out);
  }
  conv_tile<kP, kB>(a, origins, out);
}

template <int kB>
ASCENDSIM_INLINE void pick_blocks(const BlockedConvArgs& a, const float* const* origins, int64_t count, int64_t nb,
                                  float* out) {
  if constexpr (kB > 1) {
    if (nb < kB) return pick_blocks<kB - 1>(a, origins, count, nb, out);
  }
  pick_pixels<kPixels, kB>(a, origins, count, out);
}

void conv(const BlockedConvArgs& a, const float* const* origins, int64_t count, int64_t nb, float* out) {
  pick_blocks<kBlocks>(a, origins, count, nb, out);
}

template <int kP>
ASCENDSIM_TILE void depthwise_tile(const BlockedDepthwiseArgs& a, const float* first, float* out) {
  vf acc[kP][kU];
  for (int p = 0; p < kP; ++p)
    for (int u = 0; u < kU; ++u) acc[p][u] = load(a.bias + u * kW);
  for (int64_t t = 0; t < a.tap_count; ++t) {
    vf w[kU];
    for (int u = 0; u < kU; ++u) w[u] = load(a.weights + a.weight_taps[t] + u * kW);
    const float* at = first + a.taps[t];
    for (int p = 0; p < kP; ++p)
      for (int u = 0; u < kU; ++u) acc[p][u] += load(at + p * a.stride + u * kW) * w[u];
  }
  const vf lo = splat(a.lo), hi = splat(a.hi);
  for (int p = 0; p < kP; ++p)
    for (int u = 0; u < kU; ++u) store(out + p * kLine + u * kW, clamp(acc[p][u], lo, hi));
}

template <int kP>
ASCENDSIM_INLINE void depthwise_pixels(const BlockedDepthwiseArgs& a, const float* first, int64_t count, float* out) {
  if constexpr (kP > 1) {
    if (count < kP) return depthwise_pixels<kP - 1>(a, first, count, out);
  }
  depthwise_tile<kP>(a, first, out);
}

void depthwise(const BlockedDepthwiseArgs& a, const float* first, int64_t count, float* out) {
  for (int64_t p = 0; p < count; p += kDepthwisePixels)
    depthwise_pixels<kDepthwisePixels>(a, first + p * a.stride, imin(kDepthwisePixels, count - p), out + p * kLine);
}

}  // namespace

extern const BlockedConvTiles blocked_conv_tiles_table;
const BlockedConvTiles blocked_conv_tiles_table = {ASCENDSIM_BLOCKED_SHAPE, kPixels, kBlocks, conv, depthwise};

}  // namespace ascendsim::kernels::ASCENDSIM_ISA_NS
