// Elementwise kernels outside the fused programs' op table (elementwise.cpp): the inverse trigonometric and
// hyperbolic functions (Acos, Acosh, Asin, Asinh, Atan, Atanh, Cosh, Sinh, Tan), IsNaN / IsInf (bool
// outputs), BitwiseNot and the broadcasting BitwiseAnd / Or / Xor and BitShift.
//
// The output is walked in blocks of kBlock elements along the innermost dim of the numpy broadcasting plan
// (kernel_util.h); each block's operands are converted to float32 (float ops; double tensors are computed in
// double) or int64 (bitwise ops: the two's-complement bits of every integer dtype, so storing back truncates
// exactly), computed, and stored in the output's dtype. BitShift is logical on the unsigned value: a shift by
// 64 or more gives 0 (the bits of narrower types shifted out are dropped when stored).
#include <algorithm>
#include <cmath>
#include <map>

#include "kernels/kernel_util.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

constexpr int64_t kBlock = 512;

using FloatFn = double (*)(double);

const std::map<std::string, FloatFn>& float_functions() {
  static const std::map<std::string, FloatFn> table = {
      {"Acos", [](double x) { return std::acos(x); }},   {"Acosh", [](double x) { return std::acosh(x); }},
      {"Asin", [](double x) { return std::asin(x); }},   {"Asinh", [](double x) { return std::asinh(x); }},
      {"Atan", [](double x) { return std::atan(x); }},   {"Atanh", [](double x) { return std::atanh(x); }},
      {"Cosh", [](double x) { return std::cosh(x); }},   {"Sinh", [](double x) { return std::sinh(x); }},
      {"Tan", [](double x) { return std::tan(x); }}};
  return table;
}

// IsNaN / IsInf as a predicate on a float value.
struct FloatClass {
  bool nan = true, positive = false, negative = false;
  bool operator()(double v) const { return nan ? std::isnan(v) : (v == INFINITY && positive) || (v == -INFINITY && negative); }
};

std::unique_ptr<Kernel> make_float_unary(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() != 1 || spec.outputs.size() != 1) return refuse(spec, error, "needs one input and one output");
  const TensorDesc in = spec.inputs[0], out = spec.outputs[0];
  if (!is_float_dtype(in.dtype)) return refuse(spec, error, std::string("dtype ") + dtype_name(in.dtype) + " is not a floating-point type");
  if (out.dims != in.dims) return refuse(spec, error, "output shape " + dims_str(out.dims) + " is not the input's " + dims_str(in.dims));
  const bool predicate = spec.op_type == "IsNaN" || spec.op_type == "IsInf";
  if (predicate ? out.dtype != ACL_BOOL : out.dtype != in.dtype) return refuse(spec, error, std::string("output dtype ") + dtype_name(out.dtype) + " is not supported");
  FloatFn fn = nullptr;
  FloatClass cls;
  if (spec.op_type == "IsInf") {
    cls.nan = false;
    cls.positive = spec.attrs == nullptr || spec.attrs->get_int("detect_positive", 1) != 0;
    cls.negative = spec.attrs == nullptr || spec.attrs->get_int("detect_negative", 1) != 0;
  } else if (!predicate) {
    fn = float_functions().at(spec.op_type);
  }
  const int64_t count = in.numel();
  return make_lambda_kernel([in, out, fn, cls, count](const void* const* inputs, void* const* outputs) {
    parallel_for((count + kBlock - 1) / kBlock, 16, [&](int64_t b0, int64_t b1) {
      float block[kBlock];
      for (int64_t b = b0; b < b1; ++b) {
        const int64_t start = b * kBlock, n = std::min(kBlock, count - start);
        if (in.dtype == ACL_DOUBLE) {  // computed in double (the float path would round it)
          const double* x = static_cast<const double*>(inputs[0]) + start;
          for (int64_t i = 0; i < n; ++i) {
            if (fn != nullptr) static_cast<double*>(outputs[0])[start + i] = fn(x[i]);
            else static_cast<uint8_t*>(outputs[0])[start + i] = cls(x[i]) ? 1 : 0;
          }
          continue;
        }
        load_float(in.dtype, inputs[0], start, 1, n, block);
        if (fn == nullptr) {
          for (int64_t i = 0; i < n; ++i) static_cast<uint8_t*>(outputs[0])[start + i] = cls(block[i]) ? 1 : 0;
          continue;
        }
        for (int64_t i = 0; i < n; ++i) block[i] = static_cast<float>(fn(block[i]));
        store_float(out.dtype, block, n, outputs[0], start);
      }
    });
  });
}

enum class BitOp { kAnd, kOr, kXor, kShiftLeft, kShiftRight, kNot };

int64_t apply(BitOp op, int64_t a, int64_t b) {
  const auto ua = static_cast<uint64_t>(a), shift = static_cast<uint64_t>(b);
  switch (op) {
    case BitOp::kAnd: return a & b;
    case BitOp::kOr: return a | b;
    case BitOp::kXor: return a ^ b;
    case BitOp::kShiftLeft: return shift >= 64 ? 0 : static_cast<int64_t>(ua << shift);
    case BitOp::kShiftRight: return shift >= 64 ? 0 : static_cast<int64_t>(ua >> shift);
    case BitOp::kNot: return ~a;
  }
  return 0;
}

bool unsigned_dtype(aclDataType d) { return d == ACL_UINT8 || d == ACL_UINT16 || d == ACL_UINT32 || d == ACL_UINT64; }

std::unique_ptr<Kernel> make_bitwise(const NodeSpec& spec, std::string* error) {
  const bool unary = spec.op_type == "BitwiseNot";
  if (spec.inputs.size() != (unary ? 1u : 2u) || spec.outputs.size() != 1) return refuse(spec, error, unary ? "needs one input" : "needs two inputs");
  const aclDataType d = spec.inputs[0].dtype;
  if (!is_int_dtype(d) || d == ACL_BOOL) return refuse(spec, error, std::string("dtype ") + dtype_name(d) + " is not an integer type");
  for (const auto& in : spec.inputs)
    if (in.dtype != d) return refuse(spec, error, "the inputs' dtypes differ");
  if (spec.outputs[0].dtype != d) return refuse(spec, error, "the output's dtype differs from the inputs'");
  BitOp op = BitOp::kNot;
  if (spec.op_type == "BitwiseAnd") op = BitOp::kAnd;
  if (spec.op_type == "BitwiseOr") op = BitOp::kOr;
  if (spec.op_type == "BitwiseXor") op = BitOp::kXor;
  if (spec.op_type == "BitShift") {
    std::string direction = spec.attrs != nullptr ? spec.attrs->get_string("direction", "") : "";
    if (direction != "LEFT" && direction != "RIGHT") return refuse(spec, error, "direction='" + direction + "' is not 'LEFT' or 'RIGHT'");
    if (!unsigned_dtype(d)) return refuse(spec, error, std::string("dtype ") + dtype_name(d) + " is not an unsigned integer type");
    op = direction == "LEFT" ? BitOp::kShiftLeft : BitOp::kShiftRight;
  }
  std::vector<std::vector<int64_t>> shapes;
  for (const auto& in : spec.inputs) shapes.push_back(in.dims);
  std::vector<int64_t> dims;
  if (!broadcast_shapes(shapes, &dims) || dims != spec.outputs[0].dims)
    return refuse(spec, error, "output shape " + dims_str(spec.outputs[0].dims) + " is not the inputs' broadcast shape");
  const BroadcastPlan plan = plan_broadcast(dims, shapes);
  const int64_t inner = plan.inner(), chunks = (inner + kBlock - 1) / kBlock;
  const int64_t units = spec.outputs[0].numel() == 0 ? 0 : plan.rows() * chunks;
  const size_t n_in = spec.inputs.size();
  return make_lambda_kernel([plan, inner, chunks, units, n_in, d, op](const void* const* inputs, void* const* outputs) {
    parallel_for(units, 32, [&](int64_t u0, int64_t u1) {
      int64_t a[kBlock], b[kBlock];
      int64_t* operand[2] = {a, b};
      for (int64_t u = u0; u < u1; ++u) {
        const int64_t row = u / chunks, j0 = (u % chunks) * kBlock, n = std::min(kBlock, inner - j0);
        for (size_t k = 0; k < n_in; ++k) {
          const int64_t stride = plan.strides[k].back();
          load_int(d, inputs[k], plan.row_offset(k, row) + j0 * stride, stride, n, operand[k]);
        }
        for (int64_t i = 0; i < n; ++i) a[i] = apply(op, a[i], n_in > 1 ? b[i] : 0);
        store_int(d, a, n, outputs[0], row * inner + j0);
      }
    });
  });
}

}  // namespace

ASCENDSIM_KERNEL(Acos, "", make_float_unary);
ASCENDSIM_KERNEL(Acosh, "", make_float_unary);
ASCENDSIM_KERNEL(Asin, "", make_float_unary);
ASCENDSIM_KERNEL(Asinh, "", make_float_unary);
ASCENDSIM_KERNEL(Atan, "", make_float_unary);
ASCENDSIM_KERNEL(Atanh, "", make_float_unary);
ASCENDSIM_KERNEL(Cosh, "", make_float_unary);
ASCENDSIM_KERNEL(Sinh, "", make_float_unary);
ASCENDSIM_KERNEL(Tan, "", make_float_unary);
ASCENDSIM_KERNEL(IsNaN, "", make_float_unary);
ASCENDSIM_KERNEL(IsInf, "", make_float_unary);
ASCENDSIM_KERNEL(BitwiseNot, "", make_bitwise);
ASCENDSIM_KERNEL(BitwiseAnd, "", make_bitwise);
ASCENDSIM_KERNEL(BitwiseOr, "", make_bitwise);
ASCENDSIM_KERNEL(BitwiseXor, "", make_bitwise);
ASCENDSIM_KERNEL(BitShift, "", make_bitwise);

}  // namespace ascendsim::kernels
