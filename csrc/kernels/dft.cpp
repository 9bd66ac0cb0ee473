// DFT along one axis (IR form: attributes axis, inverse, onesided, dft_length; onnx_opsets.py moves opset 20's
// inputs there). The signal is real ([..., 1]) or complex ([..., 2]), zero-padded or cut to n = dft_length
// points. Forward: X[k] = sum_j x[j] e^(-2 pi i jk/n) for every k (onesided: k <= n/2); inverse: x[j] = 1/n sum_k
// X[k] e^(+2 pi i jk/n); inverse and onesided: the real signal of a onesided spectrum (numpy's irfft: the bins
// past n/2 are the conjugates of those below, the imaginary parts of bin 0 and of an even n's bin n/2 ignored).
// Each line is a direct O(n^2) sum in double over a table of e^(2 pi i t/n), t = jk mod n.
#include <cmath>

#include "kernels/kernel_util.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

std::unique_ptr<Kernel> make_dft(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() != 1 || spec.outputs.size() != 1) return refuse(spec, error, "needs one input (the IR form: axis and dft_length are attributes)");
  const TensorDesc x = spec.inputs[0], out = spec.outputs[0];
  if ((x.dtype != ACL_FLOAT && x.dtype != ACL_FLOAT16) || out.dtype != x.dtype) return refuse(spec, error, "dtype must be FLOAT or FLOAT16");
  const auto rank = static_cast<int64_t>(x.dims.size());
  const int64_t axis = spec.attrs ? spec.attrs->get_int("axis", 1) : 1, comp_in = rank > 0 ? x.dims.back() : 0;
  if (rank < 2 || axis < 0 || axis >= rank - 1 || (comp_in != 1 && comp_in != 2))
    return refuse(spec, error, "input " + dims_str(x.dims) + " and axis " + std::to_string(axis) + ": a last dim of 1 or 2 and an axis before it are needed");
  const bool inverse = spec.attrs && spec.attrs->get_int("inverse", 0) != 0, onesided = spec.attrs && spec.attrs->get_int("onesided", 0) != 0;
  const bool irfft = inverse && onesided;
  const int64_t length = x.dims[static_cast<size_t>(axis)];
  const int64_t n = spec.attrs ? spec.attrs->get_int("dft_length", irfft ? 2 * (length - 1) : length) : length;
  const int64_t out_len = irfft ? n : onesided ? n / 2 + 1 : n, comp_out = irfft ? 1 : 2;
  std::vector<int64_t> want(x.dims);
  want[static_cast<size_t>(axis)] = out_len, want.back() = comp_out;
  if (n < 1 || out.dims != want) return refuse(spec, error, "output shape " + dims_str(out.dims) + " is not " + dims_str(want));
  const int64_t outer = product(x.dims, 0, static_cast<size_t>(axis)), inner = product(x.dims, static_cast<size_t>(axis) + 1, x.dims.size() - 1);
  std::vector<double> cosine(static_cast<size_t>(n)), sine(static_cast<size_t>(n));
  for (int64_t t = 0; t < n; ++t) {
    const double angle = 2 * M_PI * static_cast<double>(t) / static_cast<double>(n);
    cosine[static_cast<size_t>(t)] = std::cos(angle), sine[static_cast<size_t>(t)] = std::sin(angle);
  }
  return make_lambda_kernel([=](const void* const* in, void* const* outputs) {
    const float* src = float_input(x, in[0], false, 0);
    parallel_for(outer * inner, 1, [&](int64_t l0, int64_t l1) {
      std::vector<double> re(static_cast<size_t>(length)), im(static_cast<size_t>(length));
      std::vector<float> result(static_cast<size_t>(out_len * comp_out));
      for (int64_t line = l0; line < l1; ++line) {
        const int64_t o = line / inner, i = line % inner;
        for (int64_t j = 0; j < length; ++j) {
          const float* v = src + ((o * length + j) * inner + i) * comp_in;
          re[static_cast<size_t>(j)] = v[0], im[static_cast<size_t>(j)] = comp_in == 2 ? v[1] : 0.0;
        }
        const double sign = inverse ? 1.0 : -1.0, scale = inverse ? 1.0 / static_cast<double>(n) : 1.0;
        const int64_t used = irfft ? std::min(length, n / 2 + 1) : std::min(length, n);
        for (int64_t k = 0; k < out_len; ++k) {
          double sum_re = 0, sum_im = 0;
          for (int64_t j = 0; j < used; ++j) {
            const auto t = static_cast<size_t>((j * k) % n);
            const double c = cosine[t], s = sign * sine[t], a = re[static_cast<size_t>(j)], b = im[static_cast<size_t>(j)];
            if (!irfft) {
              sum_re += a * c - b * s, sum_im += a * s + b * c;
              continue;
            }
            // bin j and its conjugate n - j: 2 Re(X_j e^(i theta)); bin 0 and the even Nyquist bin once, real part only
            const bool single = j == 0 || 2 * j == n;
            sum_re += single ? a * c : 2 * (a * c - b * s);
          }
          result[static_cast<size_t>(k * comp_out)] = static_cast<float>(sum_re * scale);
          if (comp_out == 2) result[static_cast<size_t>(k * comp_out + 1)] = static_cast<float>(sum_im * scale);
        }
        for (int64_t k = 0; k < out_len; ++k)
          store_float(out.dtype, result.data() + k * comp_out, comp_out, outputs[0], ((o * out_len + k) * inner + i) * comp_out);
      }
    });
  });
}

}  // namespace

ASCENDSIM_KERNEL(DFT, "", make_dft);

}  // namespace ascendsim::kernels
