// The elementwise loops (see elementwise.cpp for the programs, simd/elementwise_step.cpp for the step
// interpreter). The float unary ops and activations run on whole vectors (the last one partial), exp, erf and
// tanh (also inside Sigmoid, Silu, Gelu, Elu, Selu) being simd/vmath.h's vector forms; the ops without one
// (sqrt, log, floor, sin, ...) and the small direct binary are plain loops the compiler vectorizes where it can.
#include "kernels/simd/elementwise_loops.h"

#include <cmath>

#include "kernels/simd/elementwise_step.h"
#include "kernels/simd/simd.h"
#include "kernels/simd/vmath.h"

namespace ascendsim::kernels::ASCENDSIM_ISA_NS {
namespace {

ASCENDSIM_INLINE vf erf_gelu(vf x) { return 0.5f * x * (1.0f + verf(x * 0.70710678118654752f)); }
ASCENDSIM_INLINE vf tanh_gelu(vf x) {
  return 0.5f * x * (1.0f + vtanh(0.79788456080286536f * (x + 0.044715f * x * x * x)));
}
inline float softplus(float x) { return x > 20.0f ? x : std::log1p(std::exp(x)); }

}  // namespace

// Runs one float unary op (also the epilogue activation); x may equal o (each vector is loaded before it is
// stored). VLOOP: whole vectors and a partial last one; LOOP: a plain loop for the ops without a vector form.
void unary_float(const Step& s, const float* x, float* o, int64_t n) {
  const float al = s.alpha, be = s.beta, ga = s.gamma;
  const vf zero = {}, one = splat(1.0f);
#define VLOOP(expr)                                                 \
  {                                                                 \
    int64_t i = 0;                                                  \
    for (; i + kW <= n; i += kW) {                                  \
      const vf v = load(x + i);                                     \
      store(o + i, (expr));                                         \
    }                                                               \
    if (i < n) {                                                    \
      const vf v = load_first(x + i, n - i);                        \
      store_first(o + i, (expr), n - i);                            \
    }                                                               \
  }                                                                 \
  break
#define LOOP(expr)                   \
  for (int64_t i = 0; i < n; ++i) {  \
    const float v = x[i];            \
    o[i] = (expr);                   \
  }                                  \
  break
  switch (s.op) {
    case kSqrt: LOOP(std::sqrt(v));
    case kExp: VLOOP(vexp(v));
    case kLog: LOOP(std::log(v));
    case kAbs: VLOOP(vabs(v));
    case kNeg: VLOOP(-v);
    case kReciprocal: VLOOP(1.0f / v);
    case kFloor: LOOP(std::floor(v));
    case kCeil: LOOP(std::ceil(v));
    case kRelu: VLOOP(select(v > 0.0f, v, zero));
    case kSigmoid: VLOOP(vsigmoid(v));
    case kTanh: VLOOP(vtanh(v));
    case kHardSigmoid: VLOOP(vmax(zero, vmin(one, al * v + be)));
    case kErf: VLOOP(verf(v));
    case kSoftplus: LOOP(softplus(v));
    case kElu: VLOOP(select(v >= 0.0f, v, al * (vexp(v) - 1.0f)));
    case kSelu: VLOOP(select(v > 0.0f, ga * v, ga * (al * vexp(v) - al)));
    case kLeakyRelu: VLOOP(select(v >= 0.0f, v, al * v));
    case kSign: VLOOP(select(v > 0.0f, one, select(v < 0.0f, -one, v)));
    case kRound: LOOP(std::nearbyint(v));
    case kSin: LOOP(std::sin(v));
    case kCos: LOOP(std::cos(v));
    case kSoftsign: VLOOP(v / (1.0f + vabs(v)));
    case kHardSwish: VLOOP(v * vmax(zero, vmin(one, v * (1.0f / 6.0f) + 0.5f)));
    case kGelu:
      if (s.flag) {
        VLOOP(tanh_gelu(v));
      }
      VLOOP(erf_gelu(v));
    case kSilu: VLOOP(vsilu(v));
    case kClip: VLOOP(vmin(vmax(v, splat(al)), splat(be)));  // epilogue form: bounds in alpha/beta
    default: VLOOP(v);
  }
#undef VLOOP
#undef LOOP
}

namespace {

// One float32 Add/Sub/Mul/Div of two same-shape operands read in place: the small node of a chain, without
// the block loop's slots and step dispatch.
void binary_direct(Op op, const float* a, const float* b, float* o, int64_t n) {
  switch (op) {
    case kAdd: for (int64_t i = 0; i < n; ++i) o[i] = a[i] + b[i]; break;
    case kSub: for (int64_t i = 0; i < n; ++i) o[i] = a[i] - b[i]; break;
    case kMul: for (int64_t i = 0; i < n; ++i) o[i] = a[i] * b[i]; break;
    default: for (int64_t i = 0; i < n; ++i) o[i] = a[i] / b[i]; break;
  }
}

}  // namespace

extern const ElementwiseLoops elementwise_loops_table;
const ElementwiseLoops elementwise_loops_table = {unary_float, exec_step, binary_direct};

}  // namespace ascendsim::kernels::ASCENDSIM_ISA_NS
