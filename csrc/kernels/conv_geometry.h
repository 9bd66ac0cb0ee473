// The geometry of one NCHW convolution (2-D; a 1-D conv has h = kh = 1), shared by the general and the
// depthwise paths.
#pragma once
#include <cstdint>

namespace ascendsim::kernels {

struct ConvGeometry {
  int64_t n = 0, c = 0, h = 0, w = 0, m = 0, oh = 0, ow = 0, kh = 1, kw = 1;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1, ph = 0, pw = 0, group = 1;  // ph, pw: the begin pads
};

}  // namespace ascendsim::kernels
