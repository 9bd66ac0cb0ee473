// The geometry of one NCHW convolution (2-D; a 1-D conv has h = kh = 1), shared by the general and the
// depthwise paths.
#pragma once
#include <cstdint>

namespace ascendsim::kernels {

struct ConvGeometry {
  int64_t n = 0, c = 0, h = 0, w = 0, m = 0, oh = 0, ow = 0, kh = 1, kw = 1;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1, ph = 0, pw = 0, group = 1;  // ph, pw: the begin pads
};

// The output positions [lo, hi) along one axis whose every tap lies inside the input [0, size): position o's taps
// read o * stride - pad + t * dilation, t < kernel. (static, and no library templates: simd/ uses it too; see the
// rule of simd/ in docs/kernels.md.)
struct OutputSpan {
  int64_t lo, hi;
};
static inline OutputSpan interior_outputs(int64_t outputs, int64_t size, int64_t kernel, int64_t stride, int64_t pad,
                                          int64_t dilation) {
  const int64_t first = (pad + stride - 1) / stride, lo = first < outputs ? first : outputs;
  const int64_t last = size - 1 - (kernel - 1) * dilation + pad;  // the last window start that fits, plus the pad
  const int64_t hi = last < 0 ? lo : last / stride + 1;
  return OutputSpan{lo, hi < lo ? lo : (hi > outputs ? outputs : hi)};
}

// The taps [lo, hi) of a window along one axis that read inside the input [0, size): tap t reads start + t * dilation.
static inline OutputSpan inside_taps(int64_t start, int64_t size, int64_t kernel, int64_t dilation) {
  const int64_t first = start >= 0 ? 0 : (dilation - 1 - start) / dilation;
  const int64_t lo = first < kernel ? first : kernel;
  const int64_t end = start > size - 1 ? 0 : (size - 1 - start) / dilation + 1;
  return OutputSpan{lo, end < lo ? lo : (end > kernel ? kernel : end)};
}

}  // namespace ascendsim::kernels
