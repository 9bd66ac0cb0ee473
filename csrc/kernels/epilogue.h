// The fused activation epilogue: the compiler folds an activation that follows a Conv, ConvTranspose, Gemm,
// MatMul or BatchNormalization into the node's `activation`, `activation_alpha` and `activation_beta`
// attributes, and the kernel applies it to its output while the values are hot. A clamp (none, Relu, Clip) is
// folded into the kernels' store loops through activation_bounds; any other activation runs the elementwise
// kernels' unary loop (simd/elementwise_loops.cpp) over the finished rows. Used by conv, conv_transpose,
// depthwise, matmul, winograd and batch normalization.
#pragma once
#include <cstdint>
#include <string>

#include "kernels/kernel.h"

namespace ascendsim::kernels {

struct Activation {
  int op = -1;  // -1: none
  float alpha = 0, beta = 0;
};
bool parse_activation(const NodeSpec& spec, Activation* out, std::string* error);
void apply_activation(const Activation& act, float* data, int64_t n);
// For no activation, Relu and Clip (an epilogue that is a clamp): sets the bounds (-inf/+inf when open) and
// returns true; false for every other activation.
bool activation_bounds(const Activation& act, float* lo, float* hi);

}  // namespace ascendsim::kernels
