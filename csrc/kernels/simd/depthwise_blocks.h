// The channel-blocked stride-2 depthwise loop (depthwise_blocked.cpp), one table per kernel variant
// (simd/depthwise_blocks.cpp): a block is one vector of channels.
#pragma once
#include <cstdint>

#include "kernels/conv_geometry.h"

namespace ascendsim::kernels {

constexpr int64_t kBlockedMaxTaps = 25;  // kernels up to 5x5

struct BlockShape {
  int64_t wp, tile_floats;  // padded width; floats of the padded tile
  float lo, hi;
};

struct DepthwiseBlocks {
  int64_t channels;  // per block: the variant's vector width
  // One block of `channels` (<= the block's) planes: x and out point at its first plane; tile (zeroed once per
  // run of blocks, padding included) and pixels are the caller's buffers.
  void (*conv_block)(const ConvGeometry& g, const BlockShape& s, const float* x, const float* w, const float* bias,
                     int64_t channels, float* tile, float* pixels, float* out);
};

const DepthwiseBlocks& depthwise_blocks();

}  // namespace ascendsim::kernels
