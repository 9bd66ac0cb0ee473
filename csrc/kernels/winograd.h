// 3x3, stride-1 convolution by Winograd's minimal filtering F(2x2, 3x3): 2.25x fewer multiplications than
// the direct (im2col) product, for the 3x3 convs that dominate ResNet-style networks.
#pragma once
#include <vector>

#include "kernels/conv_geometry.h"
#include "kernels/epilogue.h"
#include "kernels/kernel_util.h"
#include "kernels/layout.h"
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
  // One block of tile rows [ty0, ty1) of one image in the making: its input and output, V and M, the epilogue.
  struct Block {
    const float* image;
    float* out;
    int64_t ty0, ty1, ld;  // ld: the row pitch of V and M
    float* v;
    float* mt;
    const float* bias;
    float lo, hi;
    bool fused;  // the activation is the [lo, hi] clamp
  };
  // With `threads` > 1, the blocks each thread runs whole (resizing the blocks to divide evenly), or 0: each
  // block's steps split over the threads.
  int64_t whole_blocks_per_thread(int64_t threads);
  int64_t blocks() const { return (tiles_h_ + rows_per_block_ - 1) / rows_per_block_; }
  // The row pitch of V and M: a block's tiles, its last row padded to whole 16-float units.
  int64_t block_ld() const { return (rows_per_block_ - 1) * tiles_w_ + (tiles_w_ + kUnit - 1) / kUnit * kUnit; }
  size_t v_floats() const { return static_cast<size_t>(16 * g_.c * block_ld()); }
  size_t m_floats() const { return static_cast<size_t>(16 * g_.m * block_ld()); }
  // Points b at block `unit` (image unit / blocks(), block unit % blocks()).
  void place(Block* b, const float* x, int64_t unit, float* out) const;
  // The steps of a block (winograd.cpp) over input channels [c0, c1), positions [t0, t1), output channels [m0, m1).
  void transform_input(const Block& b, int64_t c0, int64_t c1) const;
  void multiply(const std::vector<ConstantMatrix>& products, const Block& b, int64_t t0, int64_t t1) const;
  void transform_output(const Block& b, int64_t m0, int64_t m1) const;

  ConvGeometry g_;
  int64_t tiles_w_, tiles_h_, rows_per_block_, blocks_per_thread_;
  std::vector<ConstantMatrix> transformed_;  // U_t = (G g G^T)[t] for the 16 positions t of a 4x4 tile: m x c
};

}  // namespace ascendsim::kernels
