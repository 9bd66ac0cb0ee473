// The channel-blocked depthwise loop (see depthwise_blocked.cpp), kW channels per block:
// 1. the block's input planes are transposed, kW pixels at a time (an in-register kW x kW transpose), into the
//    zero-padded pixel-major tile: tile[(ih + ph) * wp + iw + pw] holds the kW channels of a pixel;
// 2. every output pixel is then sum over taps of weights[tap] * tile[pixel of the tap]: one vector load and one
//    multiply-add per tap for kW channels, at any stride, with the bias and the Relu/Clip bounds;
// 3. the output pixels are transposed back into the block's output planes.
// The transpose is log2(kW) rounds of interleaving row i with row i + kW / 2 (each round a perfect shuffle of
// the index bits): 2 x kW vectors live, which fits every variant's register file.
#include "kernels/simd/depthwise_blocks.h"

#include "kernels/simd/simd.h"

namespace ascendsim::kernels::ASCENDSIM_ISA_NS {
namespace {

constexpr int64_t kPixels = 4;    // output pixels per step: independent chains over the taps

ASCENDSIM_INLINE void transpose(vf* v) {
  for (int round = 1; round < kW; round *= 2) {
    vf t[kW];
    for (int i = 0; i < kW / 2; ++i) {
      t[2 * i] = interleave_low(v[i], v[i + kW / 2]);
      t[2 * i + 1] = interleave_high(v[i], v[i + kW / 2]);
    }
    for (int i = 0; i < kW; ++i) v[i] = t[i];
  }
}

// The kW vectors through a buffer, for the partial blocks: the vectors themselves are only ever indexed by
// constants, so that they stay in registers.
ASCENDSIM_INLINE void to_rows(const vf* v, float (*rows)[kW]) {
  for (int i = 0; i < kW; ++i) store(rows[i], v[i]);
}
ASCENDSIM_INLINE void from_rows(const float (*rows)[kW], vf* v) {
  for (int i = 0; i < kW; ++i) v[i] = load(rows[i]);
}

void conv_block(const ConvGeometry& g, const BlockShape& s, const float* x, const float* w, const float* bias,
                int64_t channels, float* tile, float* pixels, float* out) {
  const int64_t in_hw = g.h * g.w, out_hw = g.oh * g.ow, taps = g.kh * g.kw;
  vf v[kW];
  float rows[kW][kW];
  // 1. Input planes into the pixel-major tile.
  for (int64_t p0 = 0, ih = 0, iw = 0; p0 < in_hw; p0 += kW) {
    const int64_t n = imin(kW, in_hw - p0);
    if (channels == kW && n == kW) {
      for (int l = 0; l < kW; ++l) v[l] = load(x + l * in_hw + p0);
    } else {  // a partial block: the plane may end the tensor, so no read past it
      for (int64_t l = 0; l < kW; ++l)
        for (int64_t j = 0; j < kW; ++j) rows[l][j] = l < channels && j < n ? x[l * in_hw + p0 + j] : 0.0f;
      from_rows(rows, v);
    }
    transpose(v);
    if (n == kW) {
      for (int j = 0; j < kW; ++j) {
        store(tile + ((ih + g.ph) * s.wp + iw + g.pw) * kW, v[j]);
        if (++iw == g.w) {
          iw = 0;
          ++ih;
        }
      }
      continue;
    }
    to_rows(v, rows);
    for (int64_t j = 0; j < n; ++j) {
      store(tile + ((ih + g.ph) * s.wp + iw + g.pw) * kW, load(rows[j]));
      if (++iw == g.w) {
        iw = 0;
        ++ih;
      }
    }
  }
  // 2. Every output pixel over the taps.
  float lanes[kW];
  vf weights[kBlockedMaxTaps], b = {};
  for (int64_t t = 0; t < taps; ++t) {
    for (int64_t l = 0; l < kW; ++l) lanes[l] = l < channels ? w[l * taps + t] : 0.0f;
    weights[t] = load(lanes);
  }
  if (bias != nullptr) {
    for (int64_t l = 0; l < kW; ++l) lanes[l] = l < channels ? bias[l] : 0.0f;
    b = load(lanes);
  }
  const vf lo = splat(s.lo), hi = splat(s.hi);
  // A row's last group may compute pixels past the row, from the tile's padding or the pixel buffer after it;
  // they are not stored.
  for (int64_t oh = 0; oh < g.oh; ++oh) {
    for (int64_t ow = 0; ow < g.ow; ow += kPixels) {
      vf acc[kPixels];
      for (int64_t q = 0; q < kPixels; ++q) acc[q] = b;
      const float* origin = tile + (oh * g.sh * s.wp + ow * g.sw) * kW;
      for (int64_t ki = 0; ki < g.kh; ++ki) {
        for (int64_t kj = 0; kj < g.kw; ++kj) {
          const float* at = origin + (ki * s.wp + kj) * kW;
          for (int64_t q = 0; q < kPixels; ++q) acc[q] += weights[ki * g.kw + kj] * load(at + q * g.sw * kW);
        }
      }
      for (int64_t q = 0; q < imin(kPixels, g.ow - ow); ++q) store(pixels + (oh * g.ow + ow + q) * kW, clamp(acc[q], lo, hi));
    }
  }
  // 3. Output pixels back into planes (pixels past out_hw are read from the buffer's padding, never stored).
  for (int64_t q0 = 0; q0 < out_hw; q0 += kW) {
    for (int j = 0; j < kW; ++j) v[j] = load(pixels + (q0 + j) * kW);
    transpose(v);
    const int64_t n = imin(kW, out_hw - q0);
    if (channels == kW && n == kW) {
      for (int l = 0; l < kW; ++l) store(out + l * out_hw + q0, v[l]);
      continue;
    }
    to_rows(v, rows);
    for (int64_t l = 0; l < channels; ++l)
      for (int64_t j = 0; j < n; ++j) out[l * out_hw + q0 + j] = rows[l][j];
  }
}

}  // namespace

extern const DepthwiseBlocks depthwise_blocks_table;
const DepthwiseBlocks depthwise_blocks_table = {kW, conv_block};

}  // namespace ascendsim::kernels::ASCENDSIM_ISA_NS
