// Element-wise vector instructions: binary (Add ... Or), with a scalar (Adds ... LeakyRelu), unary (Exp ...
// Not) and Duplicate, each in the count form and the high-dimensional mask/repeat forms of kernel_vec_repeat.h.
// 16-bit floats compute through float and round back per operation, as the vector unit rounds each result.
#pragma once
#include <cmath>
#include <type_traits>

#include "ascendc/kernel_vec_repeat.h"

namespace AscendC {
namespace ascendsim_detail {

template <typename T>
using wide_t = std::conditional_t<std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t>, float, T>;

template <typename T, typename F>
inline void binary_count(const char* api, const LocalTensor<T>& d, const LocalTensor<T>& a, const LocalTensor<T>& b,
                         int64_t count, F f) {
  if (count <= 0) return;
  check_local(api, "dst", d, count);
  check_local(api, "src0", a, count);
  check_local(api, "src1", b, count);
  T* pd = d.data();
  const T* pa = a.data();
  const T* pb = b.data();
  for (int64_t i = 0; i < count; ++i) pd[i] = f(pa[i], pb[i]);
}

template <typename T, bool isSetMask, typename M, typename F>
inline void binary_repeat(const char* api, const LocalTensor<T>& d, const LocalTensor<T>& a, const LocalTensor<T>& b,
                          M mask, uint8_t repeat, const BinaryRepeatParams& p, F f) {
  const RepeatShape shape = shape_for<T, isSetMask>(api, mask, repeat);
  const Stride sd{p.dstBlkStride, p.dstRepStride}, sa{p.src0BlkStride, p.src0RepStride},
      sb{p.src1BlkStride, p.src1RepStride};
  if (is_contiguous(shape, {sd, sa, sb})) return binary_count(api, d, a, b, contiguous_count<T>(shape), f);
  check_local(api, "dst", d, extent<T>(shape, sd));
  check_local(api, "src0", a, extent<T>(shape, sa));
  check_local(api, "src1", b, extent<T>(shape, sb));
  T* pd = d.data();
  const T* pa = a.data();
  const T* pb = b.data();
  for_each_element(shape, [&](uint32_t r, uint32_t e) {
    pd[element_at<T>(r, e, sd)] = f(pa[element_at<T>(r, e, sa)], pb[element_at<T>(r, e, sb)]);
  });
}

template <typename T, typename F>
inline void unary_count(const char* api, const LocalTensor<T>& d, const LocalTensor<T>& a, int64_t count, F f) {
  if (count <= 0) return;
  check_local(api, "dst", d, count);
  check_local(api, "src", a, count);
  T* pd = d.data();
  const T* pa = a.data();
  for (int64_t i = 0; i < count; ++i) pd[i] = f(pa[i]);
}

template <typename T, bool isSetMask, typename M, typename F>
inline void unary_repeat(const char* api, const LocalTensor<T>& d, const LocalTensor<T>& a, M mask, uint8_t repeat,
                         const UnaryRepeatParams& p, F f) {
  const RepeatShape shape = shape_for<T, isSetMask>(api, mask, repeat);
  const Stride sd{p.dstBlkStride, p.dstRepStride}, sa{p.srcBlkStride, p.srcRepStride};
  if (is_contiguous(shape, {sd, sa})) return unary_count(api, d, a, contiguous_count<T>(shape), f);
  check_local(api, "dst", d, extent<T>(shape, sd));
  check_local(api, "src", a, extent<T>(shape, sa));
  T* pd = d.data();
  const T* pa = a.data();
  for_each_element(shape, [&](uint32_t r, uint32_t e) { pd[element_at<T>(r, e, sd)] = f(pa[element_at<T>(r, e, sa)]); });
}

}  // namespace ascendsim_detail

// Binary: Op(dst, src0, src1, count) and Op<T, isSetMask>(dst, src0, src1, mask | mask[2], repeat, params) (the
// mask's type M, a count or a pointer to two words, is deduced).
#define ASCENDSIM_BINARY(Name, expr)                                                                          \
  template <typename T>                                                                                       \
  __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, \
                              const int32_t& count) {                                                         \
    using W = ascendsim_detail::wide_t<T>;                                                                    \
    ascendsim_detail::binary_count(#Name, dst, src0, src1, count, [](T x, T y) {                              \
      const W a = static_cast<W>(x), b = static_cast<W>(y);                                                   \
      return static_cast<T>(expr);                                                                            \
    });                                                                                                       \
  }                                                                                                           \
  template <typename T, bool isSetMask = true, typename M>                                                    \
  __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, \
                              M mask, const uint8_t repeatTime, const BinaryRepeatParams& params) {           \
    using W = ascendsim_detail::wide_t<T>;                                                                    \
    ascendsim_detail::binary_repeat<T, isSetMask>(#Name, dst, src0, src1, mask, repeatTime, params, [](T x, T y) { \
      const W a = static_cast<W>(x), b = static_cast<W>(y);                                                   \
      return static_cast<T>(expr);                                                                            \
    });                                                                                                       \
  }

ASCENDSIM_BINARY(Add, a + b)
ASCENDSIM_BINARY(Sub, a - b)
ASCENDSIM_BINARY(Mul, a * b)
ASCENDSIM_BINARY(Div, a / b)
ASCENDSIM_BINARY(Max, a > b ? a : b)
ASCENDSIM_BINARY(Min, a < b ? a : b)
ASCENDSIM_BINARY(And, a & b)
ASCENDSIM_BINARY(Or, a | b)
ASCENDSIM_BINARY(AddRelu, a + b > W(0) ? a + b : W(0))
ASCENDSIM_BINARY(SubRelu, a - b > W(0) ? a - b : W(0))
#undef ASCENDSIM_BINARY

// The whole-tensor operators: `dst = a + b` runs the instruction over dst's length.
namespace ascendsim_detail {
template <typename T, void (*Op)(const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&, const int32_t&)>
struct TensorExpr {
  const LocalTensor<T>& a;
  const LocalTensor<T>& b;
  void assign_to(const LocalTensor<T>& dst) const { Op(dst, a, b, static_cast<int32_t>(dst.GetSize())); }
};
}  // namespace ascendsim_detail

#define ASCENDSIM_OPERATOR(symbol, Name)                                                                        \
  template <typename T>                                                                                         \
  __aicore__ inline ascendsim_detail::TensorExpr<T, &Name<T>> operator symbol(const LocalTensor<T>& a,         \
                                                                              const LocalTensor<T>& b) {       \
    return {a, b};                                                                                              \
  }
ASCENDSIM_OPERATOR(+, Add)
ASCENDSIM_OPERATOR(-, Sub)
ASCENDSIM_OPERATOR(*, Mul)
ASCENDSIM_OPERATOR(/, Div)
ASCENDSIM_OPERATOR(|, Or)
ASCENDSIM_OPERATOR(&, And)
#undef ASCENDSIM_OPERATOR

// With a scalar: Op(dst, src, scalar, count) and Op<T, isSetMask>(dst, src, scalar, mask | mask[2], repeat,
// UnaryRepeatParams). `s` is the scalar in the compute type.
#define ASCENDSIM_SCALAR(Name, expr)                                                                          \
  template <typename T, typename U>                                                                           \
  __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalar,          \
                              const int32_t& count) {                                                         \
    using W = ascendsim_detail::wide_t<T>;                                                                    \
    const W s = static_cast<W>(static_cast<T>(scalar));                                                       \
    ascendsim_detail::unary_count(#Name, dst, src, count, [s](T x) {                                          \
      const W a = static_cast<W>(x);                                                                          \
      return static_cast<T>(expr);                                                                            \
    });                                                                                                       \
  }                                                                                                           \
  template <typename T, typename U, bool isSetMask = true, typename M>                                        \
  __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& scalar, M mask,  \
                              const uint8_t repeatTime, const UnaryRepeatParams& params) {                    \
    using W = ascendsim_detail::wide_t<T>;                                                                    \
    const W s = static_cast<W>(static_cast<T>(scalar));                                                       \
    ascendsim_detail::unary_repeat<T, isSetMask>(#Name, dst, src, mask, repeatTime, params, [s](T x) {        \
      const W a = static_cast<W>(x);                                                                          \
      return static_cast<T>(expr);                                                                            \
    });                                                                                                       \
  }

ASCENDSIM_SCALAR(Adds, a + s)
ASCENDSIM_SCALAR(Muls, a * s)
ASCENDSIM_SCALAR(Maxs, a > s ? a : s)
ASCENDSIM_SCALAR(Mins, a < s ? a : s)
ASCENDSIM_SCALAR(ShiftLeft, a << s)
ASCENDSIM_SCALAR(ShiftRight, a >> s)
ASCENDSIM_SCALAR(LeakyRelu, a >= W(0) ? a : a * s)
#undef ASCENDSIM_SCALAR

// Unary: Op(dst, src, count) and Op<T, isSetMask>(dst, src, mask | mask[2], repeat, UnaryRepeatParams).
#define ASCENDSIM_UNARY(Name, expr)                                                                           \
  template <typename T>                                                                                       \
  __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {   \
    using W = ascendsim_detail::wide_t<T>;                                                                    \
    ascendsim_detail::unary_count(#Name, dst, src, count, [](T x) {                                           \
      const W a = static_cast<W>(x);                                                                          \
      return static_cast<T>(expr);                                                                            \
    });                                                                                                       \
  }                                                                                                           \
  template <typename T, bool isSetMask = true, typename M>                                                    \
  __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, M mask,                  \
                              const uint8_t repeatTime, const UnaryRepeatParams& params) {                    \
    using W = ascendsim_detail::wide_t<T>;                                                                    \
    ascendsim_detail::unary_repeat<T, isSetMask>(#Name, dst, src, mask, repeatTime, params, [](T x) {         \
      const W a = static_cast<W>(x);                                                                          \
      return static_cast<T>(expr);                                                                            \
    });                                                                                                       \
  }

ASCENDSIM_UNARY(Exp, std::exp(a))
ASCENDSIM_UNARY(Ln, std::log(a))
ASCENDSIM_UNARY(Abs, a < W(0) ? -a : a)
ASCENDSIM_UNARY(Sqrt, std::sqrt(a))
ASCENDSIM_UNARY(Rsqrt, W(1) / std::sqrt(a))
ASCENDSIM_UNARY(Reciprocal, W(1) / a)
ASCENDSIM_UNARY(Relu, a > W(0) ? a : W(0))
ASCENDSIM_UNARY(Not, ~a)
#undef ASCENDSIM_UNARY

// Duplicate(dst, scalar, count) and Duplicate<T, isSetMask>(dst, scalar, mask | mask[2], repeat,
// dstBlockStride, dstRepeatStride).
template <typename T, typename U>
__aicore__ inline void Duplicate(const LocalTensor<T>& dst, const U& scalar, const int32_t& count) {
  if (count <= 0) return;
  ascendsim_detail::check_local("Duplicate", "dst", dst, count);
  const T v = static_cast<T>(scalar);
  T* pd = dst.data();
  for (int32_t i = 0; i < count; ++i) pd[i] = v;
}
template <typename T, bool isSetMask = true, typename U, typename M>
__aicore__ inline void Duplicate(const LocalTensor<T>& dst, const U& scalar, M mask, const uint8_t repeatTime,
                                 const uint16_t dstBlockStride, const uint8_t dstRepeatStride) {
  using namespace ascendsim_detail;
  const RepeatShape shape = shape_for<T, isSetMask>("Duplicate", mask, repeatTime);
  const Stride sd{dstBlockStride, dstRepeatStride};
  check_local("Duplicate", "dst", dst, extent<T>(shape, sd));
  const T v = static_cast<T>(scalar);
  T* pd = dst.data();
  for_each_element(shape, [&](uint32_t r, uint32_t e) { pd[element_at<T>(r, e, sd)] = v; });
}

}  // namespace AscendC
