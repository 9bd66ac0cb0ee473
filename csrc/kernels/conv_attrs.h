// A Conv node's geometry read from its attributes, shared by the NCHW Conv (conv.cpp) and the NC1HWC0 one
// (blocked_conv.cpp): the two differ only in how the input and output are laid out.
#pragma once
#include <string>
#include <vector>

#include "kernels/conv_geometry.h"
#include "kernels/kernel.h"

namespace ascendsim::kernels {

// From x's logical dims (N, C, [H,] W) and the weight's (M, C / group, [KH,] KW) and the attributes (group,
// strides, dilations, pads, auto_pad): the geometry, oh and ow included. False with *error naming the problem.
bool read_conv_geometry(const NodeSpec& spec, const std::vector<int64_t>& xd, const std::vector<int64_t>& wd,
                        ConvGeometry* g, std::string* error);

// Checks the output's dims against `want` (the layout's form of (N, M, OH, OW)), the bias's size (M) and the
// fused sum (fused_sum=1: a 4th input shaped as the output).
bool check_conv_operands(const NodeSpec& spec, const ConvGeometry& g, const std::vector<int64_t>& want,
                         std::string* error);

}  // namespace ascendsim::kernels
