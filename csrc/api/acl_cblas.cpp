// acl/ops/acl_cblas.h: the BLAS functions, as GE implements them, on the single-operator API. Each call checks its
// arguments (GE's order and codes: ACL_ERROR_INVALID_PARAM for NULL matrices or scalars, m/n/k <= 0, a transA or
// transB outside N/T/NZ, a transC other than N/NZ, a leading dimension other than -1, a compute type other than
// ACL_COMPUTE_HIGH_PRECISION), describes the "GEMM" operator — a [m, k] ([k, m] transposed), b [k, n] ([n, k]), c
// [m, n], alpha and beta scalars of c's dtype, the bool attributes transpose_a / transpose_b; ACL_TRANS_NZ gives the
// fractal shapes GE gives — and runs it with aclopExecuteV2 (the output is c itself) or makes a handle with
// aclopCreateHandle. As on the device, GEMM runs only when it was compiled before (atc --singleop, then
// aclopSetModelDir / aclopLoad): otherwise ACL_ERROR_OP_NOT_FOUND. The Gemv functions are GEMM with n = 1, the
// vector x as b and y as c (GE's mapping: incx, incy are ldb, ldc). Hgemm/S8gemm (and Hgemv/S8gemv) fix the
// dtypes to float16 / int8 -> int32.
#include <cstdint>
#include <vector>

#include "acl/acl.h"
#include "acl/ops/acl_cblas.h"
#include "core/enum_value.h"
#include "core/error.h"

using namespace ascendsim;

namespace {

constexpr int64_t kBlock = 16, kBlockInt8 = 32;  // the fractal NZ block sizes GE uses

int64_t blocks(int64_t n, int64_t size) { return (n + size - 1) / size; }

// The shape and layout checks both the execution and the handle make, in GE's order (the scalar and
// leading-dimension checks are the execution's own; the compute type is checked last).
aclError check_shape(const char* api, int m, int n, int k, int32_t ta, int32_t tb, int32_t tc) {
  if (m <= 0 || n <= 0 || k <= 0)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: m = %d, n = %d, k = %d: mnk must > 0", api, m, n, k);
  for (int32_t t : {ta, tb})
    if (t != ACL_TRANS_N && t != ACL_TRANS_T && t != ACL_TRANS_NZ)
      return fail(ACL_ERROR_INVALID_PARAM, "%s: transA or transB %d: only ACL_TRANS_N, ACL_TRANS_T and ACL_TRANS_NZ "
                  "are supported", api, t);
  if (tc != ACL_TRANS_N && tc != ACL_TRANS_NZ)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: transC %d: only ACL_TRANS_N and ACL_TRANS_NZ are supported", api, tc);
  return ACL_SUCCESS;
}

aclError check_compute_type(const char* api, int32_t type) {
  if (type != ACL_COMPUTE_HIGH_PRECISION)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: compute type %d: only ACL_COMPUTE_HIGH_PRECISION is supported", api,
                type);
  return ACL_SUCCESS;
}

// The GEMM operator's descriptions and attributes for one call, destroyed with it.
class GemmCall {
 public:
  // Data types are ints as the caller gave them (core/enum_value.h): GEMM's match refuses the ones it has not.
  GemmCall(int m, int n, int k, int32_t da, int32_t db, int32_t dc, int32_t ta, int32_t tb, int32_t tc) {
    std::vector<int64_t> a = {m, k}, b = {k, n}, c = {m, n};
    aclFormat fa = ACL_FORMAT_ND, fb = ACL_FORMAT_ND, fc = ACL_FORMAT_ND;
    if (ta == ACL_TRANS_T) a = {k, m};
    if (tb == ACL_TRANS_T) b = {n, k};
    if (ta == ACL_TRANS_NZ) {
      const int64_t reduce = da == ACL_INT8 ? kBlockInt8 : kBlock;
      fa = ACL_FORMAT_FRACTAL_NZ;
      a = {blocks(k, reduce), blocks(m, kBlock), kBlock, reduce};
    }
    if (tb == ACL_TRANS_NZ) {
      fb = db == ACL_INT8 ? ACL_FORMAT_FRACTAL_Z : ACL_FORMAT_FRACTAL_NZ;
      b = db == ACL_INT8 ? std::vector<int64_t>{blocks(k, kBlockInt8), blocks(n, kBlock), kBlock, kBlockInt8}
                         : std::vector<int64_t>{blocks(n, kBlock), blocks(k, kBlock), kBlock, kBlock};
    }
    if (tc == ACL_TRANS_NZ) {
      fc = ACL_FORMAT_FRACTAL_NZ;
      c = {blocks(n, kBlock), blocks(m, kBlock), kBlock, kBlock};
    }
    descs_[0] = aclCreateTensorDesc(enum_from_int<aclDataType>(da), static_cast<int>(a.size()), a.data(), fa);
    descs_[1] = aclCreateTensorDesc(enum_from_int<aclDataType>(db), static_cast<int>(b.size()), b.data(), fb);
    descs_[2] = aclCreateTensorDesc(enum_from_int<aclDataType>(dc), static_cast<int>(c.size()), c.data(), fc);
    descs_[3] = aclCreateTensorDesc(enum_from_int<aclDataType>(dc), 0, nullptr, ACL_FORMAT_ND);
    descs_[4] = descs_[3];  // alpha and beta share one description, as in GE
    attr_ = aclopCreateAttr();
    if (attr_ != nullptr) {
      (void)aclopSetAttrBool(attr_, "transpose_a", ta == ACL_TRANS_T);
      (void)aclopSetAttrBool(attr_, "transpose_b", tb == ACL_TRANS_T);
    }
  }
  ~GemmCall() {
    for (aclDataBuffer* b : buffers_) (void)aclDestroyDataBuffer(b);
    for (size_t i = 0; i < 4; ++i) aclDestroyTensorDesc(descs_[i]);
    aclopDestroyAttr(attr_);
  }
  GemmCall(const GemmCall&) = delete;
  GemmCall& operator=(const GemmCall&) = delete;

  bool ok() const {
    for (const aclTensorDesc* d : descs_)
      if (d == nullptr) return false;
    return attr_ != nullptr;
  }

  aclError execute(const char* api, const void* alpha, const void* a, const void* b, const void* beta, void* c,
                   aclrtStream stream) {
    const void* data[5] = {a, b, c, alpha, beta};
    for (size_t i = 0; i < 5; ++i) {
      aclDataBuffer* buffer = aclCreateDataBuffer(const_cast<void*>(data[i]), aclGetTensorDescSize(descs_[i]));
      if (buffer == nullptr) return fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
      buffers_.push_back(buffer);
    }
    aclTensorDesc* outputs[1] = {descs_[2]};
    aclDataBuffer* output_buffers[1] = {buffers_[2]};  // C is updated in place
    return aclopExecuteV2("GEMM", 5, descs_, buffers_.data(), 1, outputs, output_buffers, attr_, stream);
  }

  aclError create_handle(aclopHandle** handle) const {
    const aclTensorDesc* outputs[1] = {descs_[2]};
    return aclopCreateHandle("GEMM", 5, descs_, 1, outputs, attr_, handle);
  }

 private:
  aclTensorDesc* descs_[5] = {};
  aclopAttr* attr_ = nullptr;
  std::vector<aclDataBuffer*> buffers_;
};

aclError gemm(const char* api, int32_t ta, int32_t tb, int32_t tc, int m, int n, int k, const void* alpha,
              const void* a, int lda, int32_t da, const void* b, int ldb, int32_t db, const void* beta, void* c,
              int ldc, int32_t dc, int32_t type, aclrtStream stream) {
  const void* pointers[5] = {alpha, beta, a, b, c};
  const char* names[5] = {"alpha", "beta", "matrixA", "matrixB", "matrixC"};
  for (size_t i = 0; i < 5; ++i)
    if (pointers[i] == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument '%s' is NULL", api, names[i]);
  if (aclError ret = check_shape(api, m, n, k, ta, tb, tc)) return ret;
  if (lda != -1 || ldb != -1 || ldc != -1)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: lda = %d, ldb = %d, ldc = %d (incx, incy for gemv): only -1 is "
                "supported", api, lda, ldb, ldc);
  if (aclError ret = check_compute_type(api, type)) return ret;
  GemmCall call(m, n, k, da, db, dc, ta, tb, tc);
  if (!call.ok()) return fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
  return call.execute(api, alpha, a, b, beta, c, stream);
}

aclError gemm_handle(const char* api, int32_t ta, int32_t tb, int32_t tc, int m, int n, int k, int32_t da,
                     int32_t db, int32_t dc, int32_t type, aclopHandle** handle) {
  if (handle == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'handle' is NULL", api);
  if (aclError ret = check_shape(api, m, n, k, ta, tb, tc)) return ret;
  if (aclError ret = check_compute_type(api, type)) return ret;
  GemmCall call(m, n, k, da, db, dc, ta, tb, tc);
  if (!call.ok()) return fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
  return call.create_handle(handle);
}

}  // namespace

extern "C" {

// The enum parameters are read as ints (core/enum_value.h): a C caller may pass any value.
aclError aclblasGemmEx(aclTransType transA, aclTransType transB, aclTransType transC, int m, int n, int k,
                       const void* alpha, const void* matrixA, int lda, aclDataType dataTypeA, const void* matrixB,
                       int ldb, aclDataType dataTypeB, const void* beta, void* matrixC, int ldc,
                       aclDataType dataTypeC, aclComputeType type, aclrtStream stream) {
  return gemm(__func__, enum_int(transA), enum_int(transB), enum_int(transC), m, n, k, alpha, matrixA, lda,
              enum_int(dataTypeA), matrixB, ldb, enum_int(dataTypeB), beta, matrixC, ldc, enum_int(dataTypeC),
              enum_int(type), stream);
}

aclError aclblasCreateHandleForGemmEx(aclTransType transA, aclTransType transB, aclTransType transC, int m, int n,
                                      int k, aclDataType dataTypeA, aclDataType dataTypeB, aclDataType dataTypeC,
                                      aclComputeType type, aclopHandle** handle) {
  return gemm_handle(__func__, enum_int(transA), enum_int(transB), enum_int(transC), m, n, k, enum_int(dataTypeA),
                     enum_int(dataTypeB), enum_int(dataTypeC), enum_int(type), handle);
}

aclError aclblasHgemm(aclTransType transA, aclTransType transB, aclTransType transC, int m, int n, int k,
                      const aclFloat16* alpha, const aclFloat16* matrixA, int lda, const aclFloat16* matrixB, int ldb,
                      const aclFloat16* beta, aclFloat16* matrixC, int ldc, aclComputeType type, aclrtStream stream) {
  return gemm(__func__, enum_int(transA), enum_int(transB), enum_int(transC), m, n, k, alpha, matrixA, lda,
              ACL_FLOAT16, matrixB, ldb, ACL_FLOAT16, beta, matrixC, ldc, ACL_FLOAT16, enum_int(type), stream);
}

aclError aclblasCreateHandleForHgemm(aclTransType transA, aclTransType transB, aclTransType transC, int m, int n,
                                     int k, aclComputeType type, aclopHandle** handle) {
  return gemm_handle(__func__, enum_int(transA), enum_int(transB), enum_int(transC), m, n, k, ACL_FLOAT16,
                     ACL_FLOAT16, ACL_FLOAT16, enum_int(type), handle);
}

aclError aclblasS8gemm(aclTransType transA, aclTransType transB, aclTransType transC, int m, int n, int k,
                       const int32_t* alpha, const int8_t* matrixA, int lda, const int8_t* matrixB, int ldb,
                       const int32_t* beta, int32_t* matrixC, int ldc, aclComputeType type, aclrtStream stream) {
  return gemm(__func__, enum_int(transA), enum_int(transB), enum_int(transC), m, n, k, alpha, matrixA, lda, ACL_INT8,
              matrixB, ldb, ACL_INT8, beta, matrixC, ldc, ACL_INT32, enum_int(type), stream);
}

aclError aclblasCreateHandleForS8gemm(aclTransType transA, aclTransType transB, aclTransType transC, int m, int n,
                                      int k, aclComputeType type, aclopHandle** handle) {
  return gemm_handle(__func__, enum_int(transA), enum_int(transB), enum_int(transC), m, n, k, ACL_INT8, ACL_INT8,
                     ACL_INT32, enum_int(type), handle);
}

aclError aclblasGemvEx(aclTransType transA, int m, int n, const void* alpha, const void* a, int lda,
                       aclDataType dataTypeA, const void* x, int incx, aclDataType dataTypeX, const void* beta,
                       void* y, int incy, aclDataType dataTypeY, aclComputeType type, aclrtStream stream) {
  return gemm(__func__, enum_int(transA), ACL_TRANS_N, ACL_TRANS_N, m, 1, n, alpha, a, lda, enum_int(dataTypeA), x,
              incx, enum_int(dataTypeX), beta, y, incy, enum_int(dataTypeY), enum_int(type), stream);
}

aclError aclblasCreateHandleForGemvEx(aclTransType transA, int m, int n, aclDataType dataTypeA, aclDataType dataTypeX,
                                      aclDataType dataTypeY, aclComputeType type, aclopHandle** handle) {
  return gemm_handle(__func__, enum_int(transA), ACL_TRANS_N, ACL_TRANS_N, m, 1, n, enum_int(dataTypeA),
                     enum_int(dataTypeX), enum_int(dataTypeY), enum_int(type), handle);
}

aclError aclblasHgemv(aclTransType transA, int m, int n, const aclFloat16* alpha, const aclFloat16* a, int lda,
                      const aclFloat16* x, int incx, const aclFloat16* beta, aclFloat16* y, int incy,
                      aclComputeType type, aclrtStream stream) {
  return gemm(__func__, enum_int(transA), ACL_TRANS_N, ACL_TRANS_N, m, 1, n, alpha, a, lda, ACL_FLOAT16, x, incx,
              ACL_FLOAT16, beta, y, incy, ACL_FLOAT16, enum_int(type), stream);
}

aclError aclblasCreateHandleForHgemv(aclTransType transA, int m, int n, aclComputeType type, aclopHandle** handle) {
  return gemm_handle(__func__, enum_int(transA), ACL_TRANS_N, ACL_TRANS_N, m, 1, n, ACL_FLOAT16, ACL_FLOAT16,
                     ACL_FLOAT16, enum_int(type), handle);
}

aclError aclblasS8gemv(aclTransType transA, int m, int n, const int32_t* alpha, const int8_t* a, int lda,
                       const int8_t* x, int incx, const int32_t* beta, int32_t* y, int incy, aclComputeType type,
                       aclrtStream stream) {
  return gemm(__func__, enum_int(transA), ACL_TRANS_N, ACL_TRANS_N, m, 1, n, alpha, a, lda, ACL_INT8, x, incx,
              ACL_INT8, beta, y, incy, ACL_INT32, enum_int(type), stream);
}

aclError aclblasCreateHandleForS8gemv(aclTransType transA, int m, int n, aclComputeType type, aclopHandle** handle) {
  return gemm_handle(__func__, enum_int(transA), ACL_TRANS_N, ACL_TRANS_N, m, 1, n, ACL_INT8, ACL_INT8, ACL_INT32,
                     enum_int(type), handle);
}

}  // extern "C"
