// The step interpreter of the elementwise programs (elementwise.cpp builds them): one step over a block of n
// elements, reading its operand slots and writing its result slot. Float unary steps are the vector loops of
// simd/elementwise_loops.cpp; Cast converts as a store into the target dtype followed by a load would; the
// binary, comparison and ternary steps are plain loops the compiler vectorizes where it can (BIN_F and friends
// spell one loop per operand kind). Integer and bool values are int64.
#include "kernels/simd/elementwise_step.h"

#include <cmath>
#include <limits>

#include "kernels/dtype_convert.h"
#include "kernels/simd/row_loops.h"

namespace ascendsim::kernels::ASCENDSIM_ISA_NS {
namespace {

// Wraps as two's complement, computed unsigned (signed overflow is undefined), as Add, Sub and Mul do.
int64_t int_pow(int64_t base, int64_t exp) {
  if (exp < 0) return base == 1 ? 1 : base == -1 ? (exp % 2 ? -1 : 1) : 0;
  uint64_t r = 1, b = static_cast<uint64_t>(base);
  while (exp) {
    if (exp & 1) r *= b;
    b *= b;
    exp >>= 1;
  }
  return static_cast<int64_t>(r);
}

// Wraps int64 values to the range of an integer dtype (two's complement), bool to 0/1.
void narrow_ints(aclDataType to, int64_t* v, int64_t n) {
  switch (to) {
    case ACL_BOOL: for (int64_t i = 0; i < n; ++i) v[i] = v[i] != 0; break;
    case ACL_INT8: for (int64_t i = 0; i < n; ++i) v[i] = static_cast<int8_t>(v[i]); break;
    case ACL_UINT8: for (int64_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(v[i]); break;
    case ACL_INT16: for (int64_t i = 0; i < n; ++i) v[i] = static_cast<int16_t>(v[i]); break;
    case ACL_UINT16: for (int64_t i = 0; i < n; ++i) v[i] = static_cast<uint16_t>(v[i]); break;
    case ACL_INT32: for (int64_t i = 0; i < n; ++i) v[i] = static_cast<int32_t>(v[i]); break;
    case ACL_UINT32: for (int64_t i = 0; i < n; ++i) v[i] = static_cast<uint32_t>(v[i]); break;
    default: break;
  }
}

}  // namespace

// Executes one step over n elements: slot[k] is the memory of slot k, `out` the step's result.
void exec_step(const Step& s, int64_t n, void* const* slot, void* out) {
  auto F = [&](int k) { return static_cast<const float*>(slot[s.in[k]]); };
  auto I = [&](int k) { return static_cast<const int64_t*>(slot[s.in[k]]); };
  float* fo = static_cast<float*>(out);
  int64_t* io = static_cast<int64_t*>(out);
  if (s.op == kCast) {
    // Convert as a store into `to` followed by a load would (truncation, narrowing, float16 rounding).
    if (s.in_kind[0] == kF) {
      const float* x = F(0);
      if (s.kind == kF) {
        if (s.to == ACL_FLOAT16) {
          row_loops().round_fp16(x, fo, n);
        } else {
          __builtin_memmove(fo, x, sizeof(float) * static_cast<unsigned long>(n));
        }
      } else if (s.to == ACL_BOOL) {
        for (int64_t i = 0; i < n; ++i) io[i] = x[i] != 0.0f;
      } else {
        load_int(ACL_FLOAT, x, 0, 1, n, io);
        narrow_ints(s.to, io, n);
      }
    } else {
      const int64_t* x = I(0);
      if (s.kind == kF) {
        for (int64_t i = 0; i < n; ++i) fo[i] = static_cast<float>(x[i]);
        if (s.to == ACL_FLOAT16) round_fp16_inplace(fo, n);
      } else {
        __builtin_memmove(io, x, sizeof(int64_t) * static_cast<unsigned long>(n));
        narrow_ints(s.to, io, n);
      }
    }
    return;
  }
  if (arity(s.op) == 1) {
    if (s.kind == kF) {
      unary_float(s, F(0), fo, n);
      return;
    }
    const int64_t* x = I(0);
    switch (s.op) {
      case kAbs: for (int64_t i = 0; i < n; ++i) io[i] = x[i] < 0 ? -x[i] : x[i]; break;
      case kNeg: for (int64_t i = 0; i < n; ++i) io[i] = -x[i]; break;
      case kRelu: for (int64_t i = 0; i < n; ++i) io[i] = x[i] > 0 ? x[i] : 0; break;
      case kSign: for (int64_t i = 0; i < n; ++i) io[i] = (x[i] > 0) - (x[i] < 0); break;
      case kNot: for (int64_t i = 0; i < n; ++i) io[i] = x[i] == 0; break;
      default: __builtin_memmove(io, x, sizeof(int64_t) * static_cast<unsigned long>(n)); break;
    }
    return;
  }
#define BIN_F(expr)                          \
  {                                          \
    const float *A = F(0), *B = F(1);        \
    for (int64_t i = 0; i < n; ++i) {        \
      const float a = A[i], b = B[i];        \
      fo[i] = (expr);                        \
    }                                        \
  }                                          \
  break
#define BIN_I(expr)                          \
  {                                          \
    const int64_t *A = I(0), *B = I(1);      \
    for (int64_t i = 0; i < n; ++i) {        \
      const int64_t a = A[i], b = B[i];      \
      io[i] = (expr);                        \
    }                                        \
  }                                          \
  break
#define CMP(expr)                            \
  if (s.in_kind[0] == kF) {                  \
    BIN_I_FROM_F(expr);                      \
  } else {                                   \
    BIN_I(expr);                             \
  }                                          \
  break
#define BIN_I_FROM_F(expr)                   \
  {                                          \
    const float *A = F(0), *B = F(1);        \
    for (int64_t i = 0; i < n; ++i) {        \
      const float a = A[i], b = B[i];        \
      io[i] = (expr);                        \
    }                                        \
  }
  switch (s.op) {
    case kEqual: CMP(a == b);
    case kGreater: CMP(a > b);
    case kLess: CMP(a < b);
    case kGreaterOrEqual: CMP(a >= b);
    case kLessOrEqual: CMP(a <= b);
    default: break;
  }
  if (s.op == kPow) {
    if (s.in_kind[0] == kF && s.in_kind[1] == kF) {
      const float *A = F(0), *B = F(1);
      for (int64_t i = 0; i < n; ++i) fo[i] = B[i] == 2.0f ? A[i] * A[i] : std::pow(A[i], B[i]);
    } else if (s.in_kind[0] == kF) {
      const float* A = F(0);
      const int64_t* B = I(1);
      for (int64_t i = 0; i < n; ++i) fo[i] = std::pow(A[i], static_cast<float>(B[i]));
    } else if (s.in_kind[1] == kF) {
      const int64_t* A = I(0);
      const float* B = F(1);
      // (to_int64: a negative base's fractional power is NaN, a large one overflows; a cast would differ per CPU.)
      for (int64_t i = 0; i < n; ++i) io[i] = to_int64(std::pow(static_cast<double>(A[i]), B[i]));
    } else {
      const int64_t *A = I(0), *B = I(1);
      for (int64_t i = 0; i < n; ++i) io[i] = int_pow(A[i], B[i]);
    }
    return;
  }
  if (s.op == kWhere) {
    const int64_t* C = I(0);
    if (s.kind == kF) {
      const float *A = F(1), *B = F(2);
      for (int64_t i = 0; i < n; ++i) fo[i] = C[i] ? A[i] : B[i];
    } else {
      const int64_t *A = I(1), *B = I(2);
      for (int64_t i = 0; i < n; ++i) io[i] = C[i] ? A[i] : B[i];
    }
    return;
  }
  if (s.op == kMulAdd) {  // float only (fuse_multiply_add); one pass where Mul, Add and Relu took three
    const float *A = F(0), *B = F(1), *C = F(2);
    if (s.flag) {
      for (int64_t i = 0; i < n; ++i) {
        const float v = A[i] * B[i] + C[i];
        fo[i] = v > 0.0f ? v : 0.0f;  // as the Relu step
      }
    } else {
      for (int64_t i = 0; i < n; ++i) fo[i] = A[i] * B[i] + C[i];
    }
    return;
  }
  if (s.op == kClip) {
    if (s.kind == kF) {
      const float *X = F(0), *L = F(1), *H = F(2);
      for (int64_t i = 0; i < n; ++i) fo[i] = fmin_(fmax_(X[i], L[i]), H[i]);
    } else {
      const int64_t *X = I(0), *L = I(1), *H = I(2);
      for (int64_t i = 0; i < n; ++i) io[i] = imin(imax(X[i], L[i]), H[i]);
    }
    return;
  }
  if (s.kind == kF) {
    switch (s.op) {
      case kAdd: BIN_F(a + b);
      case kSub: BIN_F(a - b);
      case kMul: BIN_F(a * b);
      case kDiv: BIN_F(a / b);
      case kMod:
        if (s.flag) {
          BIN_F(std::fmod(a, b));
        }
        BIN_F(a - std::floor(a / b) * b);
      case kPRelu: BIN_F(a < 0.0f ? a * b : a);
      case kMax: BIN_F(std::isnan(a) || std::isnan(b) ? std::numeric_limits<float>::quiet_NaN() : fmax_(a, b));
      case kMin: BIN_F(std::isnan(a) || std::isnan(b) ? std::numeric_limits<float>::quiet_NaN() : fmin_(a, b));
      default: break;
    }
    return;
  }
  constexpr int64_t kMinI = std::numeric_limits<int64_t>::min();
  switch (s.op) {
    case kAdd: BIN_I(static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)));
    case kSub: BIN_I(static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)));
    case kMul: BIN_I(static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)));
    case kDiv: BIN_I(b == 0 ? 0 : (a == kMinI && b == -1) ? a : a / b);  // C truncation, as onnxruntime
    case kMod:
      if (s.flag) {
        BIN_I(b == 0 || b == -1 ? 0 : a % b);
      }
      BIN_I(b == 0 || b == -1 ? 0 : ((a % b) != 0 && ((a % b) < 0) != (b < 0)) ? a % b + b : a % b);
    case kMax: BIN_I(imax(a, b));
    case kMin: BIN_I(imin(a, b));
    case kAnd: BIN_I((a != 0) & (b != 0));
    case kOr: BIN_I((a != 0) | (b != 0));
    case kXor: BIN_I((a != 0) ^ (b != 0));
    default: break;
  }
#undef BIN_F
#undef BIN_I
#undef CMP
#undef BIN_I_FROM_F
}

}  // namespace ascendsim::kernels::ASCENDSIM_ISA_NS
