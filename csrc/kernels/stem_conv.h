// The direct convolution of few input channels (a network's stem: 3 -> 24..64 channels, 3x3 or 7x7, stride 2):
// im2col there copies every input value kh * kw times into a matrix only C * kh * kw deep, and the product's
// depth is too short for the register tiles to pay for loading and storing their accumulators. It writes NCHW
// (the Conv kernel) or NC1HWC0 (BlockedConv on an NCHW image: a stem that starts a chain of blocked convs).
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/conv_geometry.h"
#include "kernels/epilogue.h"
#include "kernels/packed_floats.h"
#include "kernels/simd/blocked_conv_tiles.h"

namespace ascendsim::kernels {

class StemConv {
 public:
  // Whether g (float32 constant weights) can take this path: no groups, at most kMaxChannels input channels,
  // strides 1 or 2, no dilation, kernels up to 7x7.
  static bool suits(const ConvGeometry& g);
  // Packs the weights (m x c x kh x kw) once. `blocked`: the output is NC1HWC0 [N, M1, OH, OW, 16] (the lanes
  // past m zero), else NCHW.
  StemConv(const ConvGeometry& g, const float* weights, bool blocked = false);
  // out = act(conv(x) + bias) for an NCHW x. bias: m values or null; blocked, M1 * 16 values (zero past m).
  void run(const float* x, const float* bias, const Activation& act, float* out) const;

 private:
  // A tile's window in one layout (blocked): tap (c, ki, kj) at c * channel_floats + ki * row_floats + kj, and the
  // runs of a kernel row's columns.
  struct Window {
    std::vector<int64_t> taps;
    std::vector<TapRun> runs;
  };
  Window window(int64_t channel_floats, int64_t row_floats) const;
  void build_frame(const float* image, int64_t first_row, int64_t rows, float* frame) const;
  // Blocked: output rows [r0, r1) of image n, from the band's frame, or (frame null: rows whose windows are
  // inside the image) from the image in place, each border pixel from a patch of its window.
  void blocked_rows(const float* frame, const float* image, int64_t n, int64_t r0, int64_t r1, const float* bias,
                    const Activation& act, float* out) const;
  ConvGeometry g_;
  bool blocked_ = false;
  int64_t phases_ = 1;            // NCHW: the stride's (sw); blocked: 1 (the tiles read every sw-th column)
  int64_t half_ = 0, pitch_ = 0;  // a frame row: phases_ runs of half_ floats (the columns of one phase)
  int64_t band_ = 1;              // output rows per job
  int64_t frame_rows_ = 1;        // frame rows of a band, per channel
  std::vector<int64_t> tap_offsets_;  // by channel, kernel row, phase, column of the phase
  Window frame_window_, image_window_, patch_window_;  // blocked (phases_ 1: the taps in the weights' order)
  OutputSpan inner_rows_{0, 0}, inner_cols_{0, 0};    // the output rows and columns whose windows are inside x
  PackedFloats packed_;
};

}  // namespace ascendsim::kernels
