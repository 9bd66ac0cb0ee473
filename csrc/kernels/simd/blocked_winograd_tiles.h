// The transforms of the NC1HWC0 Winograd convs (blocked_winograd.cpp), one table per kernel variant
// (simd/blocked_winograd_tiles.cpp). A tile is 2x2 output pixels computed from a 4x4 patch of the input (stride 1,
// 16 positions) or a 5x5 patch (stride 2, 25 positions); every value is a 16-channel line, so the transforms are
// adds of whole lines.
#pragma once
#include <cstdint>

namespace ascendsim::kernels {

// V (or M): position t (of the tile's 16 or 25), channel block b, tile k of a job at t * position_stride + b *
// block_stride + k * 16.
struct WinogradLines {
  float* at;
  int64_t position_stride, block_stride;
};

struct BlockedWinogradInput {
  const float* x;        // an image's first input block: [blocks][h][w][16]
  int64_t h, w, ph, pw;  // its plane, and the pads before it (patches read zeros outside the plane)
  int64_t stride;        // 1 or 2 (both axes)
  int64_t blocks;
  int64_t tiles_w;       // tiles of a tile row
};

struct BlockedWinogradOutput {
  float* out;            // an image's first output block: [blocks][oh][ow][16]
  const float* sum;      // a fused residual laid out as out, or null
  int64_t oh, ow;
  int64_t stride;        // 1 or 2 (both axes)
  int64_t blocks;
  int64_t tiles_w;
  const float* bias;     // 16 per block
  float lo, hi;          // the clamp of a fused Relu / Clip (infinite: none)
};

struct BlockedWinogradTiles {
  // V = B^T d B of tiles [k0, k1) (in row-major order over the image's tiles) of every input block.
  void (*input)(const BlockedWinogradInput& a, int64_t k0, int64_t k1, const WinogradLines& v);
  // out = clamp(A^T M A + bias (+ sum)) for tiles [k0, k1) of every output block, the pixels inside the plane.
  void (*output)(const BlockedWinogradOutput& a, int64_t k0, int64_t k1, const WinogradLines& m);
};

const BlockedWinogradTiles& blocked_winograd_tiles();

}  // namespace ascendsim::kernels
