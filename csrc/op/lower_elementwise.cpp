// Lowering of the elementwise families: Unary (same dtype and shape out), Gelu (CANN's Gelu is the tanh
// approximation), Cast (dst_type -> the kernel's `to`), Binary (numpy broadcasting, one dtype),
// Compare (BOOL out) and Select (Select(condition, x1, x2) -> Where; ClipByValue(x, min, max) -> Clip with
// scalar bounds).
#include "core/enum_value.h"
#include "kernels/kernel_util.h"
#include "op/lower.h"

namespace ascendsim::op {
namespace {

aclError broadcast(LowerCtx& c, size_t first, size_t count) {
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = first; i < first + count; ++i) shapes.push_back(c.in(i).dims);
  std::vector<int64_t> dims;
  if (!kernels::broadcast_shapes(shapes, &dims)) {
    std::string text;
    for (const auto& s : shapes) text += (text.empty() ? "" : ", ") + kernels::dims_str(s);
    return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "the input shapes %s do not broadcast", text.c_str());
  }
  c.out.out_dims = {dims};
  return ACL_SUCCESS;
}

}  // namespace

aclError lower_elementwise(LowerCtx& c) {
  const size_t n = c.call.inputs.size();
  c.pass_inputs(n);
  switch (c.op.family) {
    case Family::Gelu:
      set_string(c.out.attrs, "approximate", "tanh");
      [[fallthrough]];
    case Family::Unary:
      c.out.out_dtypes = {c.in(0).dtype};
      c.out.out_dims = {c.in(0).dims};
      return ACL_SUCCESS;
    case Family::Cast: {
      const kernels::AttrValue* dst = c.call.attrs.find("dst_type");
      if (dst == nullptr || dst->type != kernels::AttrValue::Type::Int)
        return c.error(ACL_ERROR_OP_ATTR_NOT_MATCH, "needs the int attribute 'dst_type' (an aclDataType)");
      const aclDataType to = data_type_or_undefined(dst->i);
      if (aclDataTypeSize(to) == 0 && to != ACL_BOOL)
        return c.error(ACL_ERROR_OP_ATTR_NOT_MATCH, "dst_type %lld is not a data type", static_cast<long long>(dst->i));
      set_int(c.out.attrs, "to", dst->i);
      c.out.out_dtypes = {to};
      c.out.out_dims = {c.in(0).dims};
      return ACL_SUCCESS;
    }
    case Family::Binary:
    case Family::Compare:
      if (aclError ret = c.same_dtype(0, 1)) return ret;
      c.out.out_dtypes = {c.op.family == Family::Compare ? ACL_BOOL : c.in(0).dtype};
      return broadcast(c, 0, 2);
    default: {  // Select
      if (c.op.kernel == "Where") {
        if (c.in(0).dtype != ACL_BOOL)
          return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "condition (input 0) must be BOOL, not %s",
                         dtype_text(c.in(0).dtype));
        if (aclError ret = c.same_dtype(1, 2)) return ret;
        c.out.out_dtypes = {c.in(1).dtype};
        return broadcast(c, 0, 3);
      }
      if (aclError ret = c.same_dtype(0, 2)) return ret;
      for (size_t b = 1; b < 3; ++b) {
        size_t count = 1;
        for (int64_t d : c.in(b).dims) count *= static_cast<size_t>(d);
        if (count != 1)
          return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "input %zu must hold one value, its shape is %s", b,
                         kernels::dims_str(c.in(b).dims).c_str());
      }
      c.out.out_dtypes = {c.in(0).dtype};
      c.out.out_dims = {c.in(0).dims};
      return ACL_SUCCESS;
    }
  }
}

}  // namespace ascendsim::op
