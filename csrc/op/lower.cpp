// Lowering dispatch and the helpers the family files share (see lower.h for the algorithm).
#include "op/lower.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <utility>

#include "core/error.h"
#include "kernels/kernel_util.h"
#include "runtime/format_shape.h"

namespace ascendsim::op {

bool OpTensor::is_static() const {
  for (int64_t d : dims)
    if (d < 0) return false;
  return true;
}

const char* dtype_text(aclDataType dtype) { return kernels::dtype_name(dtype); }

const char* format_text(aclFormat format) {
  thread_local char scratch[16];
  return format_name(format, scratch);
}

std::string tensor_text(const OpTensor& t) {
  if (t.absent) return "(absent)";
  return std::string(dtype_text(t.dtype)) + " " + format_text(t.format) + " " + kernels::dims_str(t.dims);
}

aclError LowerCtx::error(aclError code, const char* fmt, ...) const {
  char message[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(message, sizeof(message), fmt, args);
  va_end(args);
  return fail(code, "%s: %s: %s", call.api, call.type.c_str(), message);
}

void LowerCtx::pass_inputs(size_t n) {
  out.inputs.clear();
  for (size_t i = 0; i < n; ++i) out.inputs.push_back({present(i) ? static_cast<int>(i) : -1, {}});
}

void LowerCtx::constant_input(std::vector<int64_t> values) {
  KernelInput in;
  in.constant = true;
  in.values = std::move(values);
  out.inputs.push_back(std::move(in));
}

aclError LowerCtx::int_values(size_t i, const char* what, std::vector<int64_t>* values) const {
  const OpTensor& t = in(i);
  if (!t.values)
    return error(ACL_ERROR_OP_INPUT_NOT_MATCH,
                 "input %zu (%s) must be a constant: set its values with aclSetTensorConst or place it in host "
                 "memory (ACL_MEMTYPE_HOST)", i, what);
  const size_t item = t.dtype == ACL_INT64 ? 8 : t.dtype == ACL_INT32 ? 4 : 0;
  if (item == 0)
    return error(ACL_ERROR_OP_INPUT_NOT_MATCH, "input %zu (%s) must be INT32 or INT64, not %s", i, what,
                 dtype_text(t.dtype));
  size_t count = 1;
  for (int64_t d : t.dims) count *= static_cast<size_t>(d);
  if (t.values->size() < count * item)
    return error(ACL_ERROR_OP_INPUT_NOT_MATCH, "input %zu (%s) holds %zu bytes, its shape %s needs %zu", i, what,
                 t.values->size(), kernels::dims_str(t.dims).c_str(), count * item);
  values->resize(count);
  for (size_t k = 0; k < count; ++k) {
    if (item == 8) {
      std::memcpy(&(*values)[k], t.values->data() + k * 8, 8);
    } else {
      int32_t v;
      std::memcpy(&v, t.values->data() + k * 4, 4);
      (*values)[k] = v;
    }
  }
  return ACL_SUCCESS;
}

std::vector<int64_t> LowerCtx::ints(const char* name, std::vector<int64_t> fallback) const {
  const kernels::AttrValue* v = call.attrs.find(name);
  if (v == nullptr) return fallback;
  if (v->type == kernels::AttrValue::Type::Ints) return v->ints;
  if (v->type == kernels::AttrValue::Type::Int) return {v->i};
  return fallback;
}

aclError LowerCtx::axis(int64_t given, size_t rank, const char* what, int64_t* result) const {
  if (!kernels::norm_axis(given, static_cast<int64_t>(rank), result))
    return error(ACL_ERROR_OP_ATTR_NOT_MATCH, "%s %lld is out of range for rank %zu", what,
                 static_cast<long long>(given), rank);
  return ACL_SUCCESS;
}

aclError LowerCtx::same_dtype(size_t first, size_t last) const {
  for (size_t i = first + 1; i <= last && i < call.inputs.size(); ++i)
    if (present(i) && in(i).dtype != in(first).dtype)
      return error(ACL_ERROR_OP_INPUT_NOT_MATCH, "input %zu is %s, input %zu is %s: they must have the same dtype",
                   i, dtype_text(in(i).dtype), first, dtype_text(in(first).dtype));
  return ACL_SUCCESS;
}

aclError LowerCtx::matrix_product(size_t a, size_t b, bool ta, bool tb, const char* what, int64_t* m,
                                  int64_t* n) const {
  const auto &x = in(a).dims, &y = in(b).dims;
  if (x.size() != 2 || y.size() != 2)
    return error(ACL_ERROR_OP_INPUT_NOT_MATCH, "%s %s, %s must be 2-D", what, kernels::dims_str(x).c_str(),
                 kernels::dims_str(y).c_str());
  const int64_t k = ta ? x[0] : x[1], k2 = tb ? y[1] : y[0];
  if (k != k2)
    return error(ACL_ERROR_OP_INPUT_NOT_MATCH, "%s %s%s, %s%s do not share the reduction dim", what,
                 kernels::dims_str(x).c_str(), ta ? " (transposed)" : "", kernels::dims_str(y).c_str(),
                 tb ? " (transposed)" : "");
  *m = ta ? x[1] : x[0];
  *n = tb ? y[0] : y[1];
  return ACL_SUCCESS;
}

void set_int(kernels::Attrs& a, const char* name, int64_t v) {
  kernels::AttrValue value;
  value.type = kernels::AttrValue::Type::Int;
  value.i = v;
  a.set(name, value);
}

void set_ints(kernels::Attrs& a, const char* name, std::vector<int64_t> v) {
  kernels::AttrValue value;
  value.type = kernels::AttrValue::Type::Ints;
  value.ints = std::move(v);
  a.set(name, value);
}

void set_float(kernels::Attrs& a, const char* name, double v) {
  kernels::AttrValue value;
  value.type = kernels::AttrValue::Type::Float;
  value.f = v;
  a.set(name, value);
}

void set_string(kernels::Attrs& a, const char* name, std::string v) {
  kernels::AttrValue value;
  value.type = kernels::AttrValue::Type::String;
  value.s = std::move(v);
  a.set(name, value);
}

aclError lower(const CannOp& op, const OpCall& call, Lowering* out) {
  *out = Lowering{};
  out->kernel = op.kernel;
  LowerCtx c{op, call, *out};
  const int n_in = static_cast<int>(call.inputs.size()), n_out = static_cast<int>(call.outputs.size());
  if (n_in < op.min_inputs || (op.max_inputs >= 0 && n_in > op.max_inputs)) {
    if (op.min_inputs == op.max_inputs)
      return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "takes %d input%s, %d given", op.min_inputs,
                     op.min_inputs == 1 ? "" : "s", n_in);
    return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "takes %d to %s inputs, %d given", op.min_inputs,
                   op.max_inputs < 0 ? "any number of" : std::to_string(op.max_inputs).c_str(), n_in);
  }
  if (op.outputs >= 0 ? n_out != op.outputs : n_out < 1)
    return c.error(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "has %d output%s, %d given", op.outputs < 0 ? 1 : op.outputs,
                   op.outputs == 1 ? "" : "s", n_out);
  for (int i = 0; i < n_in; ++i) {
    const OpTensor& t = call.inputs[static_cast<size_t>(i)];
    if (t.absent) continue;
    if (!t.is_static())
      return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "input %d has the dynamic shape %s: execution needs static "
                     "shapes", i, kernels::dims_str(t.dims).c_str());
    if (aclDataTypeSize(t.dtype) == 0 && t.dtype != ACL_BOOL)
      return c.error(ACL_ERROR_UNSUPPORTED_DATA_TYPE, "input %d has dtype %s", i, dtype_text(t.dtype));
  }
  // Attributes that only change their name (with CANN's default); every other attribute passes as is.
  for (const auto& [name, value] : call.attrs.all()) out->attrs.set(name, value);
  for (const AttrRename& r : op.renames) {
    if (const kernels::AttrValue* given = call.attrs.find(r.cann)) {
      out->attrs.set(r.kernel, *given);
    } else if (r.has_default) {
      kernels::AttrValue fallback;
      fallback.type = r.default_is_int ? kernels::AttrValue::Type::Int : kernels::AttrValue::Type::Float;
      fallback.i = static_cast<int64_t>(r.default_value);
      fallback.f = r.default_value;
      out->attrs.set(r.kernel, fallback);
    }
  }
  switch (op.family) {
    case Family::Unary: case Family::Gelu: case Family::Cast: case Family::Binary: case Family::Compare:
    case Family::Select:
      return lower_elementwise(c);
    case Family::MatMul: case Family::BatchMatMul: case Family::Conv2D: case Family::Pool: case Family::PoolV:
    case Family::Softmax: case Family::Reduce: case Family::ArgMax: case Family::LayerNorm:
      return lower_nn(c);
    case Family::Gemm:
      return lower_gemm(c);
    case Family::Slice: case Family::StridedSlice:
      return lower_slice(c);
    default:
      return lower_layout(c);
  }
}

}  // namespace ascendsim::op
