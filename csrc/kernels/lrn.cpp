// LRN (local response normalization across channels, AlexNet's):
//   y[c] = x[c] / (bias + alpha / size * sum of x[c']^2 for c' in [c - floor((size-1)/2), c + ceil((size-1)/2)])^beta
// per (batch, spatial position), the window clipped to the channels, summed in double.
#include <algorithm>
#include <cmath>

#include "kernels/kernel_util.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

std::unique_ptr<Kernel> make_lrn(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() != 1 || spec.outputs.size() != 1) return refuse(spec, error, "needs one input and one output");
  const TensorDesc x = spec.inputs[0];
  if (x.dtype != ACL_FLOAT && x.dtype != ACL_FLOAT16) return refuse(spec, error, std::string("dtype ") + dtype_name(x.dtype) + " is not supported (FLOAT, FLOAT16)");
  if (x.dims.size() < 3 || spec.outputs[0].dims != x.dims || spec.outputs[0].dtype != x.dtype)
    return refuse(spec, error, "the input must have rank >= 3 and the output its shape and dtype");
  const int64_t size = spec.attrs ? spec.attrs->get_int("size", 0) : 0;
  if (size < 1) return refuse(spec, error, "size must be a positive int, got " + std::to_string(size));
  const double alpha = spec.attrs->get_float("alpha", 1e-4), beta = spec.attrs->get_float("beta", 0.75);
  const double bias = spec.attrs->get_float("bias", 1.0);
  const int64_t before = (size - 1) / 2, after = size - 1 - before;
  const int64_t channels = x.dims[1], plane = product(x.dims, 2), batch = x.dims[0];
  return make_lambda_kernel([=](const void* const* in, void* const* out) {
    const float* src = float_input(x, in[0], false, 0);
    parallel_for(batch * plane, 256, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        const int64_t base = (p / plane) * channels * plane + p % plane;
        for (int64_t c = 0; c < channels; ++c) {
          double window = 0;
          for (int64_t k = std::max<int64_t>(0, c - before); k <= std::min(channels - 1, c + after); ++k) {
            const double v = src[base + k * plane];
            window += v * v;
          }
          const float y = static_cast<float>(src[base + c * plane] / std::pow(bias + alpha / static_cast<double>(size) * window, beta));
          store_float(x.dtype, &y, 1, out[0], base + c * plane);
        }
      }
    });
  });
}

}  // namespace

ASCENDSIM_KERNEL(LRN, "", make_lrn);

}  // namespace ascendsim::kernels
