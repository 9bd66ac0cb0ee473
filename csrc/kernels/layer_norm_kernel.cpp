// The ascendsim::LayerNorm kernel: CANN's LayerNorm (op/lower_nn.cpp) on the registry's LayerNormalization kernel.
// CANN's operator differs from ONNX's only in its statistics outputs: mean and variance in x's dtype where ONNX
// gives mean and 1 / sqrt(variance + epsilon) in float32. The adapter runs the registry kernel with its two
// statistics in float32 scratch and converts them: variance = 1 / inv_std^2 - epsilon (exact up to float32
// rounding of inv_std). Attributes: axis (the first normalised axis) and epsilon, as the registry kernel's.
#include <vector>

#include "kernels/dtype_convert.h"
#include "kernels/kernel_util.h"

namespace ascendsim::kernels {
namespace {

class LayerNormKernel final : public Kernel {
 public:
  LayerNormKernel(std::unique_ptr<Kernel> inner, TensorDesc mean, TensorDesc variance, float epsilon)
      : inner_(std::move(inner)), mean_(std::move(mean)), variance_(std::move(variance)), epsilon_(epsilon) {}

  void run(const void* const* inputs, void* const* outputs) override {
    const int64_t rows = mean_.numel();
    thread_local std::vector<float> stats;
    stats.resize(static_cast<size_t>(2 * rows));
    float* mean = stats.data();
    float* inv_std = stats.data() + rows;
    void* inner_outputs[3] = {outputs[0], mean, inv_std};
    inner_->run(inputs, inner_outputs);
    store_float(mean_.dtype, mean, rows, outputs[1], 0);
    for (int64_t r = 0; r < rows; ++r) inv_std[r] = 1.0f / (inv_std[r] * inv_std[r]) - epsilon_;
    store_float(variance_.dtype, inv_std, rows, outputs[2], 0);
  }

 private:
  std::unique_ptr<Kernel> inner_;
  TensorDesc mean_, variance_;
  float epsilon_;
};

std::unique_ptr<Kernel> make_layer_norm(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() != 3 || spec.outputs.size() != 3)
    return refuse(spec, error, "needs inputs x, gamma, beta and outputs y, mean, variance");
  for (size_t i = 1; i < 3; ++i)
    if (spec.outputs[i].dtype != ACL_FLOAT && spec.outputs[i].dtype != ACL_FLOAT16)
      return refuse(spec, error, std::string("output dtype ") + dtype_name(spec.outputs[i].dtype) + " is not supported");
  NodeSpec inner = spec;
  inner.op_type = "LayerNormalization";
  inner.domain = "";
  inner.outputs[1].dtype = inner.outputs[2].dtype = ACL_FLOAT;
  const KernelFactory factory = find_kernel(inner.op_type, inner.domain);
  std::unique_ptr<Kernel> kernel = factory ? build_kernel(factory, inner, error) : nullptr;
  if (!kernel) return factory ? nullptr : refuse(spec, error, "the LayerNormalization kernel is not registered");
  const float epsilon = static_cast<float>(spec.attrs ? spec.attrs->get_float("epsilon", 1e-7) : 1e-7);
  return std::make_unique<LayerNormKernel>(std::move(kernel), spec.outputs[1], spec.outputs[2], epsilon);
}

}  // namespace

ASCENDSIM_KERNEL(LayerNorm, "ascendsim", make_layer_norm);

}  // namespace ascendsim::kernels
