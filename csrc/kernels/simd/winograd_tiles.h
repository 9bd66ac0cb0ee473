// The transforms of the Winograd F(2x2, 3x3) convolution (winograd.h), one table per kernel variant
// (simd/winograd_tiles.cpp).
#pragma once
#include <cstdint>

#include "kernels/conv_geometry.h"

namespace ascendsim::kernels {

struct WinogradFrame {  // the zero-padded copy of one channel: rows, row pitch, floats per channel
  int64_t rows, pitch, plane;
};

struct WinogradTiles {
  // Frame plane of one channel: padded rows 0 .. f.rows - 1, zero outside the input.
  void (*pad_plane)(const ConvGeometry& g, const WinogradFrame& f, const float* in, float* frame);
  // V_t[c][(ty - ty0) * tiles_w + tx] (positions t v_stride apart) for tile rows [ty0, ty1) of one channel's frame.
  void (*input)(const WinogradFrame& f, int64_t tiles_w, int64_t ty0, int64_t ty1, const float* frame, float* v,
                int64_t v_stride);
  // Output rows of tile rows [ty0, ty1) for one output channel from M_t[m] (positions m_stride apart), with the
  // bias and clamped to [lo, hi].
  void (*output)(const ConvGeometry& g, int64_t tiles_w, int64_t ty0, int64_t ty1, const float* mt, int64_t m_stride,
                 float bias, float lo, float hi, float* out);
};

const WinogradTiles& winograd_tiles();

}  // namespace ascendsim::kernels
