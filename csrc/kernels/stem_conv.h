// The direct convolution of few input channels (a network's stem: 3 -> 24..64 channels, 3x3 or 7x7, stride 2):
// im2col there copies every input value kh * kw times into a matrix only C * kh * kw deep, and the product's
// depth is too short for the register tiles to pay for loading and storing their accumulators.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/conv_geometry.h"
#include "kernels/epilogue.h"

namespace ascendsim::kernels {

class StemConv {
 public:
  // Whether g (float32 constant weights) can take this path: no groups, at most kMaxChannels input channels,
  // strides 1 or 2, no dilation, kernels up to 7x7.
  static bool suits(const ConvGeometry& g);
  // Packs the weights (m x c x kh x kw) once.
  StemConv(const ConvGeometry& g, const float* weights);
  // out = act(conv(x) + bias); bias may be null.
  void run(const float* x, const float* bias, const Activation& act, float* out) const;

 private:
  void build_frame(const float* image, int64_t first_row, int64_t rows, float* frame) const;
  ConvGeometry g_;
  int64_t half_ = 0, pitch_ = 0;  // a frame row: sw phases of half_ floats (the columns of one phase of the stride)
  int64_t band_ = 1;              // output rows per job
  int64_t frame_rows_ = 1;        // frame rows of a band, per channel
  std::vector<int64_t> tap_offsets_;
  std::vector<float> packed_;
};

}  // namespace ascendsim::kernels
