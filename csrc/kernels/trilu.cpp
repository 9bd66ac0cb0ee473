// Trilu: keeps the upper (upper=1: column - row >= k) or lower (column - row <= k) triangle of each matrix
// of the last two dims and zeroes the rest; k is the optional second input (0 when absent), read at load time
// when it is a constant, else at run time (the output shape does not depend on it). Each row is one kept
// run of columns (memcpy) and the zeroed rest (memset), whatever the dtype.
#include <algorithm>
#include <cstring>

#include "kernels/kernel_util.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

std::unique_ptr<Kernel> make_trilu(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.empty() || spec.inputs.size() > 2 || spec.outputs.size() != 1) return refuse(spec, error, "needs inputs input and (optional) k");
  const TensorDesc x = spec.inputs[0];
  if (x.dims.size() < 2) return refuse(spec, error, "the input must have rank >= 2, got " + dims_str(x.dims));
  if (spec.outputs[0].dims != x.dims || spec.outputs[0].dtype != x.dtype) return refuse(spec, error, "the output must have the input's shape and dtype");
  const bool has_k = spec.inputs.size() == 2 && (spec.present.size() < 2 || spec.present[1]);
  if (has_k && (spec.inputs[1].dtype != ACL_INT64 || spec.inputs[1].numel() != 1)) return refuse(spec, error, "k must be an INT64 scalar");
  const void* fixed = has_k && spec.constant_data.size() > 1 ? spec.constant_data[1] : nullptr;
  const bool upper = spec.attrs == nullptr || spec.attrs->get_int("upper", 1) != 0;
  const int64_t rows = x.dims[x.dims.size() - 2], cols = x.dims.back(), matrices = product(x.dims, 0, x.dims.size() - 2);
  const auto elem = static_cast<int64_t>(aclDataTypeSize(x.dtype));
  const int64_t fixed_k = fixed != nullptr ? read_index(ACL_INT64, fixed, 0) : 0;
  return make_lambda_kernel([=](const void* const* in, void* const* out) {
    const int64_t k = has_k && fixed == nullptr ? read_index(ACL_INT64, in[1], 0) : fixed_k;
    const auto* src = static_cast<const uint8_t*>(in[0]);
    auto* dst = static_cast<uint8_t*>(out[0]);
    parallel_for(matrices * rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(cols * elem, 1)), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t i = r % rows;
        // The kept columns [begin, end): j >= i + k (upper) or j <= i + k (lower), clamped to the row (k may be huge).
        const int64_t edge = std::clamp<int64_t>(k, -cols - rows, cols + rows) + i;
        const int64_t begin = upper ? std::clamp<int64_t>(edge, 0, cols) : 0;
        const int64_t end = upper ? cols : std::clamp<int64_t>(edge + 1, 0, cols);
        uint8_t* row = dst + r * cols * elem;
        const uint8_t* from = src + r * cols * elem;
        std::memset(row, 0, static_cast<size_t>(begin * elem));
        if (end > begin) std::memmove(row + begin * elem, from + begin * elem, static_cast<size_t>((end - begin) * elem));
        std::memset(row + std::max(begin, end) * elem, 0, static_cast<size_t>((cols - std::max(begin, end)) * elem));
      }
    });
  });
}

}  // namespace

ASCENDSIM_KERNEL(Trilu, "", make_trilu);

}  // namespace ascendsim::kernels
