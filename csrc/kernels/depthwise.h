// Depthwise convolution (group == C == M), NCHW float32, with the bias and the fused activation.
#pragma once
#include <string>

#include "kernels/conv_geometry.h"
#include "kernels/epilogue.h"
#include "kernels/kernel_util.h"

namespace ascendsim::kernels {

// out (n x c x oh x ow) = depthwise conv of x (n x c x h x w) with w (c x 1 x kh x kw) + bias (c, or null),
// then act; parallel over the (image, channel) planes.
void depthwise_conv(const ConvGeometry& g, const float* x, const float* w, const float* bias, const Activation& act,
                    float* out);
// The path depthwise_conv takes for g, for the kernel-variant log.
std::string depthwise_path(const ConvGeometry& g);

// The channel-blocked path for stride-2 convs on small planes (depthwise_blocked.cpp), which depthwise_conv
// takes when it suits g: out = clamp(conv + bias, lo, hi).
bool blocked_depthwise_suits(const ConvGeometry& g);
void blocked_depthwise(const ConvGeometry& g, const float* x, const float* w, const float* bias, float lo, float hi,
                       float* out);

}  // namespace ascendsim::kernels
