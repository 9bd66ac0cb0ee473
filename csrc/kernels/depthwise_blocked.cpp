// Stride-2 depthwise convolution of small planes in blocks of channels, one vector of them (see depthwise.h).
// On a 14x14 or 28x28 input the per-plane stride-2 path spends more on each plane's setup, shuffles and partly
// filled vectors than on arithmetic (a 576-channel 14x14 layer: 88 us against 49 us here, AVX-512); here the
// channels of a block share every vector instead, as in onnxruntime's channel-blocked (NCHWc) kernels. (At
// stride 1 the transposes cost more than they save: the per-plane path stays faster, measured on 7x7 to 28x28
// planes.) The block loop (transposes into a pixel-major tile, the taps, and back) is the active kernel
// variant's (simd/depthwise_blocks.h). Threads take runs of blocks; each run zeroes its tile once (the blocks
// overwrite only the input pixels).
#include <algorithm>

#include "kernels/depthwise.h"
#include "kernels/simd/depthwise_blocks.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

constexpr int64_t kBlockedPlane = 1024;  // largest input plane (32x32): a 56x56 one measured slower
constexpr int64_t kMinChannels = 16;     // fewer: per-plane setup is cheaper than the transposes

}  // namespace

bool blocked_depthwise_suits(const ConvGeometry& g) {
  return g.sh == 2 && g.sw == 2 && g.dh == 1 && g.dw == 1 && g.kh * g.kw <= kBlockedMaxTaps && g.h * g.w <= kBlockedPlane &&
         g.c >= kMinChannels;
}

void blocked_depthwise(const ConvGeometry& g, const float* x, const float* w, const float* bias, float lo, float hi,
                       float* out) {
  const DepthwiseBlocks& blocks_of = depthwise_blocks();
  const int64_t lanes = blocks_of.channels;
  BlockShape s{};
  s.wp = std::max(g.w + g.pw, (g.ow - 1) * g.sw + g.kw) + 1;
  const int64_t hp = std::max(g.h + g.ph, (g.oh - 1) * g.sh + g.kh) + 1;
  s.tile_floats = hp * s.wp * lanes;
  s.lo = lo;
  s.hi = hi;
  const int64_t blocks_per_image = (g.c + lanes - 1) / lanes, blocks = g.n * blocks_per_image;
  const int64_t pixel_floats = (g.oh * g.ow + lanes) * lanes;
  const int64_t in_hw = g.h * g.w, out_hw = g.oh * g.ow;
  parallel_for(blocks, (blocks + num_threads() - 1) / num_threads(), [&](int64_t b0, int64_t b1) {
    float* tile = scratch_floats(6, static_cast<size_t>(s.tile_floats + pixel_floats));
    std::fill(tile, tile + s.tile_floats + pixel_floats, 0.0f);  // the blocks overwrite only input pixels
    for (int64_t blk = b0; blk < b1; ++blk) {
      const int64_t n = blk / blocks_per_image, c0 = (blk % blocks_per_image) * lanes;
      const int64_t channels = std::min(lanes, g.c - c0);
      blocks_of.conv_block(g, s, x + (n * g.c + c0) * in_hw, w + c0 * g.kh * g.kw, bias != nullptr ? bias + c0 : nullptr,
                           channels, tile, tile + s.tile_floats, out + (n * g.c + c0) * out_hw);
    }
  });
}

}  // namespace ascendsim::kernels
