// BlockedConv's Winograd path: a dense 3x3 conv of stride 1 or 2 on NC1HWC0 tensors (blocked_winograd.cpp), chosen
// by blocked_conv.cpp's factory where it suits.
#pragma once
#include <memory>

#include "kernels/conv_geometry.h"
#include "kernels/epilogue.h"
#include "kernels/kernel.h"

namespace ascendsim::kernels {

// Whether the NC1HWC0 conv g takes the Winograd path: 3x3, stride 1 or 2 (both axes), no dilation, no groups, an
// output plane of enough 2x2 tiles.
bool blocked_winograd_suits(const ConvGeometry& g);

// The kernel (weights [m][c][3][3] and bias [m] or null, both constant; spec: BlockedConv's, x NC1HWC0).
std::unique_ptr<Kernel> make_blocked_winograd(const NodeSpec& spec, const ConvGeometry& g, const Activation& act,
                                              const float* weights, const float* bias);

}  // namespace ascendsim::kernels
