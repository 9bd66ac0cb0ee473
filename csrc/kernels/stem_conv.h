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
  void build_frame(const float* image, int64_t first_row, int64_t rows, float* frame) const;
  // Blocked: output rows [r0, r1) of image n from the band's frame.
  void blocked_rows(const float* frame, int64_t n, int64_t r0, int64_t r1, const float* bias, const Activation& act,
                    float* out) const;
  ConvGeometry g_;
  bool blocked_ = false;
  int64_t phases_ = 1;            // NCHW: the stride's (sw); blocked: 1 (the tiles read every sw-th column)
  int64_t half_ = 0, pitch_ = 0;  // a frame row: phases_ runs of half_ floats (the columns of one phase)
  int64_t band_ = 1;              // output rows per job
  int64_t frame_rows_ = 1;        // frame rows of a band, per channel
  std::vector<int64_t> tap_offsets_;   // by channel, kernel row, phase, column of the phase
  std::vector<TapRun> runs_;           // the taps of one kernel row and phase, for the blocked tiles
  PackedFloats packed_;
};

}  // namespace ascendsim::kernels
