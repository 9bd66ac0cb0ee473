// The ascendsim::GEMM kernel: CANN's GEMM operator (op/lower_gemm.cpp), y = alpha * op(a) op(b) + beta * c, whose
// alpha and beta are one-element tensors read when it runs (aclblasGemmEx passes them in device memory) and
// whose output usually is c itself (the BLAS functions update C in place).
//
// Float operands (float16 widened) run on sgemm with beta applied to C as BLAS does: C is read only when beta is
// not 0 (the documented "then C does not have to be a valid input"; a NaN in it is then ignored), in place when y
// is c's float32 buffer, else through float32 scratch. Integer operands (int8, int32) are multiplied exactly: op(a) and op(b) widened to
// int32 row-major copies, products summed in 32-bit two's complement (as the cube unit's int32 accumulator; the
// sum wraps instead of overflowing), rows spread over the pool; then y = alpha * sum + beta * c in c's dtype.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/dtype_convert.h"
#include "kernels/gemm.h"
#include "kernels/kernel_util.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

bool is_int_operand(aclDataType d) { return d == ACL_INT8 || d == ACL_INT32; }

// Row-major int32 copy of a rows x cols matrix stored transposed (cols x rows) when `transposed`.
void widen_int(aclDataType dtype, const void* data, int64_t rows, int64_t cols, bool transposed, int32_t* out) {
  auto at = [&](int64_t i) -> int32_t {
    return dtype == ACL_INT8 ? static_cast<const int8_t*>(data)[i] : static_cast<const int32_t*>(data)[i];
  };
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t q = 0; q < cols; ++q) out[r * cols + q] = at(transposed ? q * rows + r : r * cols + q);
}

class GemmKernel final : public Kernel {
 public:
  GemmKernel(const NodeSpec& spec, int64_t m, int64_t n, int64_t k, bool ta, bool tb)
      : a_(spec.inputs[0]), b_(spec.inputs[1]), c_(spec.inputs[2]), y_(spec.outputs[0]), m_(m), n_(n), k_(k),
        ta_(ta), tb_(tb) {}

  void run(const void* const* inputs, void* const* outputs) override {
    if (is_int_operand(a_.dtype)) {
      run_int(inputs, outputs[0]);
    } else {
      run_float(inputs, outputs[0]);
    }
  }

 private:
  void run_float(const void* const* in, void* y) const {
    float alpha = 0, beta = 0;
    load_float(c_.dtype, in[3], 0, 1, 1, &alpha);
    load_float(c_.dtype, in[4], 0, 1, 1, &beta);
    const float* a = float_input(a_, in[0], false, 1);
    const float* b = float_input(b_, in[1], false, 2);
    const int64_t total = m_ * n_;
    const bool direct = y_.dtype == ACL_FLOAT;
    float* out = direct ? static_cast<float*>(y) : scratch_floats(3, static_cast<size_t>(total));
    if (beta == 0.0f) {
      std::fill(out, out + total, 0.0f);
    } else if (!(direct && y == in[2])) {
      load_float(c_.dtype, in[2], 0, 1, total, out);
    }
    if (k_ > 0) {
      sgemm(ta_, tb_, m_, n_, k_, alpha, a, ta_ ? m_ : k_, b, tb_ ? k_ : n_, beta, out, n_, streamed_rows_);
    } else {  // an empty product: beta * c
      for (int64_t i = 0; i < total; ++i) out[i] *= beta;
    }
    if (!direct) store_float(y_.dtype, out, total, y, 0);
  }

  void run_int(const void* const* in, void* y) const {
    thread_local std::vector<int32_t> a, b, sums;
    a.resize(static_cast<size_t>(m_ * k_));
    b.resize(static_cast<size_t>(k_ * n_));
    sums.assign(static_cast<size_t>(m_ * n_), 0);
    widen_int(a_.dtype, in[0], m_, k_, ta_, a.data());
    widen_int(b_.dtype, in[1], k_, n_, tb_, b.data());
    const int64_t n = n_, k = k_;
    const int32_t* pa = a.data();
    const int32_t* pb = b.data();
    int32_t* ps = sums.data();
    parallel_for(m_, std::max<int64_t>(1, 65536 / std::max<int64_t>(1, n * k)), [=](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        uint32_t* row = reinterpret_cast<uint32_t*>(ps + r * n);
        for (int64_t p = 0; p < k; ++p) {
          const uint32_t v = static_cast<uint32_t>(pa[r * k + p]);
          const uint32_t* brow = reinterpret_cast<const uint32_t*>(pb + p * n);
          for (int64_t j = 0; j < n; ++j) row[j] += v * brow[j];
        }
      }
    });
    const int64_t total = m_ * n_;
    if (y_.dtype == ACL_INT32) {
      int32_t alpha = 0, beta = 0;
      std::memcpy(&alpha, in[3], sizeof(alpha));
      std::memcpy(&beta, in[4], sizeof(beta));
      const int32_t* c = static_cast<const int32_t*>(in[2]);
      int32_t* out = static_cast<int32_t*>(y);
      for (int64_t i = 0; i < total; ++i) {  // element i of c is read before element i of y (which may be c)
        uint32_t v = static_cast<uint32_t>(alpha) * static_cast<uint32_t>(sums[static_cast<size_t>(i)]);
        if (beta != 0) v += static_cast<uint32_t>(beta) * static_cast<uint32_t>(c[i]);
        std::memcpy(&out[i], &v, sizeof(v));
      }
      return;
    }
    float alpha = 0, beta = 0;
    load_float(c_.dtype, in[3], 0, 1, 1, &alpha);
    load_float(c_.dtype, in[4], 0, 1, 1, &beta);
    const float* c = static_cast<const float*>(in[2]);
    float* out = static_cast<float*>(y);
    for (int64_t i = 0; i < total; ++i)
      out[i] = alpha * static_cast<float>(sums[static_cast<size_t>(i)]) + (beta != 0.0f ? beta * c[i] : 0.0f);
  }

  TensorDesc a_, b_, c_, y_;
  int64_t m_, n_, k_;
  bool ta_, tb_;
  bool streamed_rows_ = own_loops_allowed();  // sgemm's (at build)
};

std::unique_ptr<Kernel> make_gemm(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() != 5 || spec.outputs.size() != 1)
    return refuse(spec, error, "needs inputs a, b, c, alpha, beta and one output");
  const auto &a = spec.inputs[0], &b = spec.inputs[1], &c = spec.inputs[2], &y = spec.outputs[0];
  const bool ints = is_int_operand(a.dtype);
  if (a.dtype != b.dtype || y.dtype != c.dtype || spec.inputs[3].dtype != c.dtype || spec.inputs[4].dtype != c.dtype)
    return refuse(spec, error, "a and b must share a dtype, c, alpha, beta and y another");
  if (!(ints ? (c.dtype == ACL_INT32 || c.dtype == ACL_FLOAT) : (is_float_dtype(a.dtype) && a.dtype != ACL_DOUBLE &&
                                                                  (c.dtype == ACL_FLOAT || c.dtype == ACL_FLOAT16))))
    return refuse(spec, error, std::string("dtype ") + dtype_name(a.dtype) + " -> " + dtype_name(c.dtype) +
                                   " is not supported");
  if (a.dims.size() != 2 || b.dims.size() != 2) return refuse(spec, error, "a and b must be 2-D");
  const bool ta = spec.attrs && spec.attrs->get_int("transpose_a", 0) != 0;
  const bool tb = spec.attrs && spec.attrs->get_int("transpose_b", 0) != 0;
  const int64_t m = ta ? a.dims[1] : a.dims[0], k = ta ? a.dims[0] : a.dims[1];
  const int64_t n = tb ? b.dims[0] : b.dims[1];
  if ((tb ? b.dims[1] : b.dims[0]) != k || c.dims != std::vector<int64_t>{m, n} || y.dims != c.dims)
    return refuse(spec, error, "shapes a " + dims_str(a.dims) + ", b " + dims_str(b.dims) + ", c " + dims_str(c.dims) +
                                   " do not make a product");
  return std::make_unique<GemmKernel>(spec, m, n, k, ta, tb);
}

}  // namespace

ASCENDSIM_KERNEL(GEMM, "ascendsim", make_gemm);

}  // namespace ascendsim::kernels
