// Det: the determinant of each M x M matrix of the last two dims, by LU decomposition with partial pivoting in
// double (the product of the pivots, its sign flipped per row swap).
#include <cmath>
#include <utility>

#include "kernels/kernel_util.h"

namespace ascendsim::kernels {
namespace {

std::unique_ptr<Kernel> make_det(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() != 1 || spec.outputs.size() != 1) return refuse(spec, error, "needs one input and one output");
  const TensorDesc x = spec.inputs[0], out = spec.outputs[0];
  if ((x.dtype != ACL_FLOAT && x.dtype != ACL_FLOAT16) || out.dtype != x.dtype) return refuse(spec, error, "dtype must be FLOAT or FLOAT16");
  const size_t rank = x.dims.size();
  if (rank < 2 || x.dims[rank - 1] != x.dims[rank - 2] || out.dims != std::vector<int64_t>(x.dims.begin(), x.dims.end() - 2))
    return refuse(spec, error, "the input must be square matrices [..., M, M], the output [...], got " + dims_str(x.dims));
  const int64_t m = x.dims.back(), count = product(x.dims, 0, rank - 2);
  return make_lambda_kernel([=](const void* const* in, void* const* outputs) {
    const float* data = float_input(x, in[0], false, 0);
    std::vector<double> a(static_cast<size_t>(m * m));
    for (int64_t t = 0; t < count; ++t) {
      for (int64_t i = 0; i < m * m; ++i) a[static_cast<size_t>(i)] = data[t * m * m + i];
      double det = 1;
      for (int64_t col = 0; col < m && det != 0; ++col) {
        int64_t pivot = col;
        for (int64_t row = col + 1; row < m; ++row)
          if (std::fabs(a[static_cast<size_t>(row * m + col)]) > std::fabs(a[static_cast<size_t>(pivot * m + col)])) pivot = row;
        if (pivot != col) {
          for (int64_t k = 0; k < m; ++k) std::swap(a[static_cast<size_t>(col * m + k)], a[static_cast<size_t>(pivot * m + k)]);
          det = -det;
        }
        const double diagonal = a[static_cast<size_t>(col * m + col)];
        det *= diagonal;
        if (diagonal == 0) break;
        for (int64_t row = col + 1; row < m; ++row) {
          const double factor = a[static_cast<size_t>(row * m + col)] / diagonal;
          for (int64_t k = col; k < m; ++k) a[static_cast<size_t>(row * m + k)] -= factor * a[static_cast<size_t>(col * m + k)];
        }
      }
      const float value = static_cast<float>(det);
      store_float(out.dtype, &value, 1, outputs[0], t);
    }
  });
}

}  // namespace

ASCENDSIM_KERNEL(Det, "", make_det);

}  // namespace ascendsim::kernels
