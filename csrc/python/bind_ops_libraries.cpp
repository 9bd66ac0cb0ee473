// The functions of the acl/ops headers that ascendsim implements, for Python under their C names (the generic
// rule of fastcall.h gives pyACL's shapes too: create_handle_for_* -> (handle, ret), dvpp_malloc -> (ptr, ret)):
// acl_cblas.h (acl.blas) and acl_dvpp.h's memory functions (acl.media). The unimplemented acl_dvpp.h functions are
// bound with the other unsupported ones (bind_not_supported.cpp).
// Hgemm, S8gemm, Hgemv and S8gemv take C (or y) as `aclFloat16*` / `int32_t*`, which the generic rule would read as
// an out-parameter: they are bound through twins that take it as an address, as pyACL does, and call the C
// function through its wire type (enums stay ints, fastcall.h).
#include "acl/ops/acl_cblas.h"
#include "api/dvpp_interface.h"
#include "python/module.h"

namespace ascendsim::python {

namespace {

template <typename T>
T* as(const void* p) {
  return static_cast<T*>(const_cast<void*>(p));
}

aclError hgemm(int32_t ta, int32_t tb, int32_t tc, int m, int n, int k, const void* alpha, const void* a, int lda,
               const void* b, int ldb, const void* beta, void* c, int ldc, int32_t type, aclrtStream stream) {
  return wire_function(&aclblasHgemm)(ta, tb, tc, m, n, k, as<aclFloat16>(alpha), as<aclFloat16>(a), lda,
                                      as<aclFloat16>(b), ldb, as<aclFloat16>(beta), as<aclFloat16>(c), ldc, type,
                                      stream);
}

aclError s8gemm(int32_t ta, int32_t tb, int32_t tc, int m, int n, int k, const void* alpha, const void* a, int lda,
                const void* b, int ldb, const void* beta, void* c, int ldc, int32_t type, aclrtStream stream) {
  return wire_function(&aclblasS8gemm)(ta, tb, tc, m, n, k, as<int32_t>(alpha), as<int8_t>(a), lda, as<int8_t>(b), ldb,
                                       as<int32_t>(beta), as<int32_t>(c), ldc, type, stream);
}

aclError hgemv(int32_t ta, int m, int n, const void* alpha, const void* a, int lda, const void* x, int incx,
               const void* beta, void* y, int incy, int32_t type, aclrtStream stream) {
  return wire_function(&aclblasHgemv)(ta, m, n, as<aclFloat16>(alpha), as<aclFloat16>(a), lda, as<aclFloat16>(x),
                                      incx, as<aclFloat16>(beta), as<aclFloat16>(y), incy, type, stream);
}

aclError s8gemv(int32_t ta, int m, int n, const void* alpha, const void* a, int lda, const void* x, int incx,
                const void* beta, void* y, int incy, int32_t type, aclrtStream stream) {
  return wire_function(&aclblasS8gemv)(ta, m, n, as<int32_t>(alpha), as<int8_t>(a), lda, as<int8_t>(x), incx,
                                       as<int32_t>(beta), as<int32_t>(y), incy, type, stream);
}

}  // namespace

#define BIND(name) bind<&name>(module, #name)

void bind_ops_library_functions(PyObject* module) {
  BIND(aclblasGemmEx);
  BIND(aclblasCreateHandleForGemmEx);
  bind<&hgemm>(module, "aclblasHgemm");
  BIND(aclblasCreateHandleForHgemm);
  bind<&s8gemm>(module, "aclblasS8gemm");
  BIND(aclblasCreateHandleForS8gemm);
  BIND(aclblasGemvEx);
  BIND(aclblasCreateHandleForGemvEx);
  bind<&hgemv>(module, "aclblasHgemv");
  BIND(aclblasCreateHandleForHgemv);
  bind<&s8gemv>(module, "aclblasS8gemv");
  BIND(aclblasCreateHandleForS8gemv);
  BIND(acldvppMalloc);
  BIND(acldvppFree);
}

#undef BIND

}  // namespace ascendsim::python
