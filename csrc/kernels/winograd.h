// 3x3, stride-1 convolution by Winograd's minimal filtering F(2x2, 3x3): 2.25x fewer multiplications than
// the direct (im2col) product, for the 3x3 convs that dominate ResNet-style networks.
#pragma once
#include <vector>

#include "kernels/conv_geometry.h"
#include "kernels/epilogue.h"
#include "kernels/kernel_util.h"
#include "kernels/product_path.h"

namespace ascendsim::kernels {

class WinogradConv {
 public:
  // Whether g (with float32 constant weights) takes this path: 3x3, stride 1, dilation 1, no groups, and
  // enough channels for the transforms to pay off.
  static bool suits(const ConvGeometry& g);
  // Transforms the weights (m x c x 3 x 3) once.
  WinogradConv(const ConvGeometry& g, const float* weights);
  // out = act(conv(x) + bias); bias may be null.
  void run(const float* x, const float* bias, const Activation& act, float* out) const;
  ProductPath product_path() const { return transformed_.front().path(); }

 private:
  ConvGeometry g_;
  int64_t tiles_w_, tiles_h_, rows_per_block_;
  std::vector<ConstantMatrix> transformed_;  // U_t = (G g G^T)[t] for the 16 positions t of a 4x4 tile: m x c
};

}  // namespace ascendsim::kernels
