// Lowering of CANN's GEMM, the operator behind acl_cblas.h: y = alpha * op(a) op(b) + beta * c with
// a [m, k] ([k, m] when transpose_a), b [k, n] ([n, k] when transpose_b), c and y [m, n], alpha and beta one
// value each (shape [] or [1]) of c's dtype, read from device memory when the operator runs. The dtype
// combinations are those aclblasGemmEx documents (a/b -> c: float16 -> float16 or float, int8 -> int32 or
// float) plus GEMM's same-type float and int32 products. Matrices are ND: the fractal layouts of ACL_TRANS_NZ
// are refused. Runs on the ascendsim::GEMM kernel (kernels/gemm_kernel.cpp).
#include "kernels/kernel_util.h"
#include "op/lower.h"

namespace ascendsim::op {
namespace {

bool supported_types(aclDataType ab, aclDataType out) {
  switch (ab) {
    case ACL_FLOAT16: return out == ACL_FLOAT16 || out == ACL_FLOAT;
    case ACL_FLOAT: return out == ACL_FLOAT;
    case ACL_INT8: return out == ACL_INT32 || out == ACL_FLOAT;
    case ACL_INT32: return out == ACL_INT32;
    default: return false;
  }
}

}  // namespace

aclError lower_gemm(LowerCtx& c) {
  static const char* const kNames[] = {"a", "b", "c", "alpha", "beta"};
  for (size_t i = 0; i < 5; ++i)
    if (c.in(i).format != ACL_FORMAT_ND && c.in(i).format != ACL_FORMAT_NCHW && c.in(i).format != ACL_FORMAT_NHWC)
      return c.error(ACL_ERROR_FORMAT_NOT_MATCH, "%s has format %s: ascendsim runs GEMM on ND matrices (the fractal "
                     "layouts of ACL_TRANS_NZ are not supported)", kNames[i], format_text(c.in(i).format));
  if (aclError ret = c.same_dtype(0, 1)) return ret;
  const aclDataType ab = c.in(0).dtype, out = c.in(2).dtype;
  if (!supported_types(ab, out))
    return c.error(ACL_ERROR_UNSUPPORTED_DATA_TYPE, "a and b %s with c %s is not a supported combination (float16 -> "
                   "float16 or float, float -> float, int8 -> int32 or float, int32 -> int32)", dtype_text(ab),
                   dtype_text(out));
  for (size_t i = 3; i < 5; ++i) {
    if (c.in(i).dtype != out)
      return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "%s is %s: it must have c's dtype %s", kNames[i],
                     dtype_text(c.in(i).dtype), dtype_text(out));
    if (kernels::product(c.in(i).dims) != 1)
      return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "%s %s must hold one value", kNames[i],
                     kernels::dims_str(c.in(i).dims).c_str());
  }
  const bool ta = c.call.attrs.get_int("transpose_a", 0) != 0, tb = c.call.attrs.get_int("transpose_b", 0) != 0;
  int64_t m = 0, n = 0;
  if (aclError ret = c.matrix_product(0, 1, ta, tb, "a and b", &m, &n)) return ret;
  const auto& cd = c.in(2).dims;
  if (cd != std::vector<int64_t>{m, n})
    return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "c %s must be [%lld, %lld], the product's shape",
                   kernels::dims_str(cd).c_str(), static_cast<long long>(m), static_cast<long long>(n));
  c.out.domain = "ascendsim";
  c.out.attrs = {};
  set_int(c.out.attrs, "transpose_a", ta ? 1 : 0);
  set_int(c.out.attrs, "transpose_b", tb ? 1 : 0);
  c.pass_inputs(5);
  c.out.out_dtypes = {out};
  c.out.out_dims = {{m, n}};
  return ACL_SUCCESS;
}

}  // namespace ascendsim::op
