// MaxUnpool: the output (zeros) receives each element of X at the flat index I holds for it (MaxPool's indices
// output: positions in the whole output tensor). An index outside the output is skipped (no error channel).
#include <cstring>

#include "kernels/kernel_util.h"

namespace ascendsim::kernels {
namespace {

std::unique_ptr<Kernel> make_max_unpool(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() < 2 || spec.inputs.size() > 3 || spec.outputs.size() != 1) return refuse(spec, error, "needs inputs X, I and (optional) output_shape");
  const TensorDesc x = spec.inputs[0], out = spec.outputs[0];
  if (spec.inputs[1].dtype != ACL_INT64 || spec.inputs[1].dims != x.dims) return refuse(spec, error, "I must be INT64 of X's shape");
  if (out.dtype != x.dtype || out.dims.size() != x.dims.size() || (x.dtype != ACL_FLOAT && x.dtype != ACL_FLOAT16))
    return refuse(spec, error, "X and the output must be FLOAT or FLOAT16 of one rank");
  const int64_t count = x.numel(), total = out.numel();
  const auto elem = static_cast<int64_t>(aclDataTypeSize(x.dtype));
  return make_lambda_kernel([=](const void* const* in, void* const* outputs) {
    auto* dst = static_cast<uint8_t*>(outputs[0]);
    std::memset(dst, 0, static_cast<size_t>(total * elem));
    for (int64_t i = 0; i < count; ++i) {
      const int64_t at = read_index(ACL_INT64, in[1], i);
      if (at >= 0 && at < total) std::memcpy(dst + at * elem, static_cast<const uint8_t*>(in[0]) + i * elem, static_cast<size_t>(elem));
    }
  });
}

}  // namespace

ASCENDSIM_KERNEL(MaxUnpool, "", make_max_unpool);

}  // namespace ascendsim::kernels
