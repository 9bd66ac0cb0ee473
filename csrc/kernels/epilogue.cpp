#include "kernels/epilogue.h"

#include <cmath>
#include <map>

#include "kernels/kernel_util.h"
#include "kernels/simd/elementwise_loops.h"

namespace ascendsim::kernels {

bool parse_activation(const NodeSpec& spec, Activation* out, std::string* error) {
  *out = Activation{};
  if (spec.attrs == nullptr || !spec.attrs->has("activation")) return true;
  std::string name = spec.attrs->get_string("activation", "");
  static const std::map<std::string, Op> allowed = {
      {"Relu", kRelu}, {"Clip", kClip}, {"Sigmoid", kSigmoid}, {"Tanh", kTanh}, {"Gelu", kGelu}, {"Silu", kSilu},
      {"HardSwish", kHardSwish}, {"HardSigmoid", kHardSigmoid}, {"LeakyRelu", kLeakyRelu}, {"Elu", kElu}};
  auto it = allowed.find(name);
  if (it == allowed.end())
    return fail_spec(spec, error, "activation='" + name + "' is not supported (supported: Relu, Clip, Sigmoid, Tanh, Gelu, Silu, HardSwish, HardSigmoid, LeakyRelu, Elu)");
  out->op = it->second;
  double da = 0, db = 0;
  switch (out->op) {
    case kClip: da = -INFINITY; db = INFINITY; break;
    case kHardSigmoid: da = 0.2; db = 0.5; break;
    case kLeakyRelu: da = 0.01; break;
    case kElu: da = 1.0; break;
    default: break;
  }
  out->alpha = static_cast<float>(spec.attrs->get_float("activation_alpha", da));
  out->beta = static_cast<float>(spec.attrs->get_float("activation_beta", db));
  return true;
}

void apply_activation(const Activation& act, float* data, int64_t n) {
  if (act.op < 0) return;
  Step s;
  s.op = static_cast<Op>(act.op);
  s.alpha = act.alpha;
  s.beta = act.beta;
  elementwise_loops().unary(s, data, data, n);
}

bool activation_bounds(const Activation& act, float* lo, float* hi) {
  *lo = -INFINITY;
  *hi = INFINITY;
  if (act.op == kRelu) *lo = 0.0f;
  if (act.op == kClip) {
    *lo = act.alpha;
    *hi = act.beta;
  }
  return act.op < 0 || act.op == kRelu || act.op == kClip;
}

}  // namespace ascendsim::kernels
