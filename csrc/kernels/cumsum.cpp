// CumSum: the running sum along `axis` (the second input, read at load time when it is a constant, else at
// run time: the output shape does not depend on it), `exclusive` (element i sums the elements before i) and
// `reverse` (from the end). Each (outer, inner) line is summed in order, as onnxruntime does: float32 and
// float16 in float32, double in double, integers in int64 (stored back in their dtype).
#include <algorithm>

#include "kernels/kernel_util.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

struct Lines {
  int64_t outer = 1, length = 1, inner = 1;
};

Lines lines_of(const std::vector<int64_t>& dims, int64_t axis) {
  const auto a = static_cast<size_t>(axis);
  return {product(dims, 0, a), dims.empty() ? 1 : dims[a], product(dims, a + 1)};
}

template <class Acc, class Load, class Store>
void sum_lines(const Lines& l, bool exclusive, bool reverse, Load load, Store store) {
  parallel_for(l.outer * l.inner, std::max<int64_t>(1, 4096 / std::max<int64_t>(l.length, 1)), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t base = (p / l.inner) * l.length * l.inner + p % l.inner;
      Acc total = 0;
      for (int64_t s = 0; s < l.length; ++s) {
        const int64_t at = base + (reverse ? l.length - 1 - s : s) * l.inner;
        const Acc value = load(at);
        if (exclusive) {
          store(at, total);
          total = static_cast<Acc>(total + value);
        } else {
          total = static_cast<Acc>(total + value);
          store(at, total);
        }
      }
    }
  });
}

std::unique_ptr<Kernel> make_cumsum(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() != 2 || spec.outputs.size() != 1) return refuse(spec, error, "needs inputs x and axis");
  const TensorDesc x = spec.inputs[0];
  if (!is_float_dtype(x.dtype) && (!is_int_dtype(x.dtype) || x.dtype == ACL_BOOL))
    return refuse(spec, error, std::string("dtype ") + dtype_name(x.dtype) + " is not supported");
  if (spec.outputs[0].dims != x.dims || spec.outputs[0].dtype != x.dtype) return refuse(spec, error, "the output must have the input's shape and dtype");
  const aclDataType at = spec.inputs[1].dtype;
  if ((at != ACL_INT32 && at != ACL_INT64) || spec.inputs[1].numel() != 1) return refuse(spec, error, "axis must be an INT32 or INT64 scalar");
  const auto rank = static_cast<int64_t>(x.dims.size());
  const void* fixed = spec.constant_data.size() > 1 ? spec.constant_data[1] : nullptr;
  int64_t axis = 0;
  if (fixed != nullptr && !norm_axis(read_index(at, fixed, 0), std::max<int64_t>(rank, 1), &axis))
    return refuse(spec, error, "axis " + std::to_string(read_index(at, fixed, 0)) + " is out of range for rank " + std::to_string(rank));
  const bool exclusive = spec.attrs != nullptr && spec.attrs->get_int("exclusive", 0) != 0;
  const bool reverse = spec.attrs != nullptr && spec.attrs->get_int("reverse", 0) != 0;
  return make_lambda_kernel([x, at, fixed, axis, exclusive, reverse, rank](const void* const* in, void* const* out) {
    int64_t a = axis;
    if (fixed == nullptr && !norm_axis(read_index(at, in[1], 0), std::max<int64_t>(rank, 1), &a)) a = 0;  // out of range: no error channel
    const Lines l = lines_of(x.dims, a);
    const void* src = in[0];
    void* dst = out[0];
    if (x.dtype == ACL_DOUBLE) {
      sum_lines<double>(l, exclusive, reverse, [&](int64_t i) { return static_cast<const double*>(src)[i]; },
                        [&](int64_t i, double v) { static_cast<double*>(dst)[i] = v; });
    } else if (is_float_dtype(x.dtype)) {
      sum_lines<float>(l, exclusive, reverse, [&](int64_t i) { float v; load_float(x.dtype, src, i, 1, 1, &v); return v; },
                       [&](int64_t i, float v) { store_float(x.dtype, &v, 1, dst, i); });
    } else {
      sum_lines<int64_t>(l, exclusive, reverse, [&](int64_t i) { int64_t v; load_int(x.dtype, src, i, 1, 1, &v); return v; },
                         [&](int64_t i, int64_t v) { store_int(x.dtype, &v, 1, dst, i); });
    }
  });
}

}  // namespace

ASCENDSIM_KERNEL(CumSum, "", make_cumsum);

}  // namespace ascendsim::kernels
