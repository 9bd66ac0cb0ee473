// Stride-2 depthwise convolution of small planes in blocks of 16 channels (see depthwise.h). On a 14x14 or
// 28x28 input the per-plane stride-2 path spends more on each plane's setup, shuffles and partly filled
// vectors than on arithmetic (a 576-channel 14x14 layer: 88 us against 49 us here); here 16 channels share
// every vector instead, as in onnxruntime's channel-blocked (NCHWc) kernels. (At stride 1 the transposes
// cost more than they save: the per-plane path stays faster, measured on 7x7 to 28x28 planes.)
// 1. the block's 16 input planes are transposed, 16 pixels at a time (an in-register 16 x 16 transpose),
//    into a zero-padded pixel-major tile: tile[(ih + ph) * wp + iw + pw] holds the 16 channels of a pixel;
// 2. every output pixel is then sum over taps of weights[tap] * tile[pixel of the tap]: one vector load and
//    one multiply-add per tap for 16 channels, at any stride, with the bias and the Relu/Clip bounds;
// 3. the output pixels are transposed back into the 16 output planes.
// Threads take runs of blocks; each run zeroes its tile once (the blocks overwrite only the input pixels).
#include <algorithm>

#include "kernels/depthwise.h"
#include "kernels/thread_pool.h"
#include "kernels/vec16.h"

namespace ascendsim::kernels {
namespace {

constexpr int64_t kMaxTaps = 25;       // kernels up to 5x5
constexpr int64_t kBlockedPlane = 1024;  // largest input plane (32x32): a 56x56 one measured slower
constexpr int64_t kPixels = 4;           // output pixels per step

// The transpose leaves column j of the block in row kColumnRow[j] (pairs 1-2 of each group of 4 swapped).
constexpr int kColumnRow[kLanes] = {0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15};

// In-register transpose of the 16 x 16 block v (row i = v[i]) in four shuffle stages; see kColumnRow.
__attribute__((always_inline)) inline void transpose16(v16* v) {
  v16 t[kLanes], u[kLanes];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = __builtin_shuffle(v[2 * i], v[2 * i + 1], i16{0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29});
    t[2 * i + 1] = __builtin_shuffle(v[2 * i], v[2 * i + 1], i16{2, 18, 3, 19, 6, 22, 7, 23, 10, 26, 11, 27, 14, 30, 15, 31});
  }
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 2; ++j) {
      u[4 * i + j] = __builtin_shuffle(t[4 * i + j], t[4 * i + j + 2], i16{0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29});
      u[4 * i + j + 2] = __builtin_shuffle(t[4 * i + j], t[4 * i + j + 2], i16{2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31});
    }
  }
  for (int base = 0; base < kLanes; base += 8) {
    for (int i = 0; i < 4; ++i) {
      t[base + i] = __builtin_shuffle(u[base + i], u[base + i + 4], i16{0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27});
      t[base + i + 4] = __builtin_shuffle(u[base + i], u[base + i + 4], i16{4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31});
    }
  }
  for (int i = 0; i < 8; ++i) {
    v[i] = __builtin_shuffle(t[i], t[i + 8], i16{0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23});
    v[i + 8] = __builtin_shuffle(t[i], t[i + 8], i16{8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31});
  }
}

struct BlockShape {
  int64_t wp, tile_floats;  // padded width; floats of the padded tile
  float lo, hi;
};

// One block of `channels` (<= 16) planes: x and out point at the block's first plane.
ASCENDSIM_VECTOR_CLONES void conv_block(const ConvGeometry& g, const BlockShape& s, const float* x, const float* w,
                                        const float* bias, int64_t channels, float* tile, float* pixels, float* out) {
  const int64_t in_hw = g.h * g.w, out_hw = g.oh * g.ow, taps = g.kh * g.kw;
  v16 v[kLanes];
  // 1. Input planes into the pixel-major tile.
  float row[kLanes];
  for (int64_t p0 = 0, ih = 0, iw = 0; p0 < in_hw; p0 += kLanes) {
    const int64_t n = std::min(kLanes, in_hw - p0);
    for (int64_t l = 0; l < kLanes; ++l) {
      if (l < channels && n == kLanes) {
        ASCENDSIM_LOAD16(v[l], x + l * in_hw + p0);
      } else {  // a partial block: the plane may end the tensor, so no read past it
        for (int64_t j = 0; j < kLanes; ++j) row[j] = l < channels && j < n ? x[l * in_hw + p0 + j] : 0.0f;
        ASCENDSIM_LOAD16(v[l], row);
      }
    }
    transpose16(v);
    for (int64_t j = 0; j < n; ++j) {
      ASCENDSIM_STORE16(tile + ((ih + g.ph) * s.wp + iw + g.pw) * kLanes, v[kColumnRow[j]]);
      if (++iw == g.w) {
        iw = 0;
        ++ih;
      }
    }
  }
  // 2. Every output pixel over the taps.
  v16 weights[kMaxTaps], b = {};
  for (int64_t t = 0; t < taps; ++t) {
    for (int64_t l = 0; l < kLanes; ++l) row[l] = l < channels ? w[l * taps + t] : 0.0f;
    ASCENDSIM_LOAD16(weights[t], row);
  }
  if (bias != nullptr) {
    for (int64_t l = 0; l < kLanes; ++l) row[l] = l < channels ? bias[l] : 0.0f;
    ASCENDSIM_LOAD16(b, row);
  }
  const v16 lo = v16{} + s.lo, hi = v16{} + s.hi;
  // kPixels pixels of a row at a time: independent chains over the taps (one pixel's taps are a dependent
  // chain). A row's last group may compute pixels past the row, from the tile's padding or the pixel
  // buffer after it; they are not stored.
  for (int64_t oh = 0; oh < g.oh; ++oh) {
    for (int64_t ow = 0; ow < g.ow; ow += kPixels) {
      v16 acc[kPixels];
      for (int64_t q = 0; q < kPixels; ++q) acc[q] = b;
      const float* origin = tile + (oh * g.sh * s.wp + ow * g.sw) * kLanes;
      for (int64_t ki = 0; ki < g.kh; ++ki) {
        for (int64_t kj = 0; kj < g.kw; ++kj) {
          const float* at = origin + (ki * s.wp + kj) * kLanes;
          for (int64_t q = 0; q < kPixels; ++q) {
            v16 in;
            ASCENDSIM_LOAD16(in, at + q * g.sw * kLanes);
            acc[q] += weights[ki * g.kw + kj] * in;
          }
        }
      }
      for (int64_t q = 0; q < std::min(kPixels, g.ow - ow); ++q) {
        v16 y = acc[q] < lo ? lo : acc[q];
        y = y > hi ? hi : y;
        ASCENDSIM_STORE16(pixels + (oh * g.ow + ow + q) * kLanes, y);
      }
    }
  }
  // 3. Output pixels back into planes (pixels past out_hw are read from the buffer's padding, never stored).
  for (int64_t q0 = 0; q0 < out_hw; q0 += kLanes) {
    for (int64_t j = 0; j < kLanes; ++j) ASCENDSIM_LOAD16(v[j], pixels + (q0 + j) * kLanes);
    transpose16(v);
    const int64_t n = std::min(kLanes, out_hw - q0);
    for (int64_t l = 0; l < channels; ++l) {
      float* dst = out + l * out_hw + q0;
      if (n == kLanes) {
        ASCENDSIM_STORE16(dst, v[kColumnRow[l]]);
      } else {
        ASCENDSIM_STORE16(row, v[kColumnRow[l]]);
        for (int64_t j = 0; j < n; ++j) dst[j] = row[j];
      }
    }
  }
}

}  // namespace

bool blocked_depthwise_suits(const ConvGeometry& g) {
  return g.sh == 2 && g.sw == 2 && g.dh == 1 && g.dw == 1 && g.kh * g.kw <= kMaxTaps && g.h * g.w <= kBlockedPlane &&
         g.c >= kLanes;
}

void blocked_depthwise(const ConvGeometry& g, const float* x, const float* w, const float* bias, float lo, float hi,
                       float* out) {
  BlockShape s{};
  s.wp = std::max(g.w + g.pw, (g.ow - 1) * g.sw + g.kw) + 1;
  const int64_t hp = std::max(g.h + g.ph, (g.oh - 1) * g.sh + g.kh) + 1;
  s.tile_floats = hp * s.wp * kLanes;
  s.lo = lo;
  s.hi = hi;
  const int64_t blocks_per_image = (g.c + kLanes - 1) / kLanes, blocks = g.n * blocks_per_image;
  const int64_t pixel_floats = (g.oh * g.ow + kLanes) * kLanes;
  const int64_t in_hw = g.h * g.w, out_hw = g.oh * g.ow;
  parallel_for(blocks, (blocks + num_threads() - 1) / num_threads(), [&](int64_t b0, int64_t b1) {
    float* tile = scratch_floats(6, static_cast<size_t>(s.tile_floats + pixel_floats));
    std::fill(tile, tile + s.tile_floats + pixel_floats, 0.0f);  // the blocks overwrite only input pixels
    for (int64_t blk = b0; blk < b1; ++blk) {
      const int64_t n = blk / blocks_per_image, c0 = (blk % blocks_per_image) * kLanes;
      const int64_t channels = std::min(kLanes, g.c - c0);
      conv_block(g, s, x + (n * g.c + c0) * in_hw, w + c0 * g.kh * g.kw, bias != nullptr ? bias + c0 : nullptr,
                 channels, tile, tile + s.tile_floats, out + (n * g.c + c0) * out_hw);
    }
  });
}

}  // namespace ascendsim::kernels
