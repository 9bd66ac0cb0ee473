// Compare / CompareScalar write one bit per element (LSB first) into a mask tensor; Select picks src0 where the
// bit is 1 and src1 (a tensor or a scalar) where it is 0. The count form of Compare needs count * sizeof(T) to
// be a multiple of 256, as on the device. In the high-dimensional forms the bit of element e of repeat r is bit
// r * E + e of the mask (E elements per repeat); elements the mask excludes leave their bit / dst unchanged.
#pragma once
#include "ascendc/kernel_vec_repeat.h"

namespace AscendC {
namespace ascendsim_detail {

inline bool bit_at(const uint8_t* bits, uint64_t i) { return ((bits[i / 8] >> (i % 8)) & 1) != 0; }
inline void set_bit(uint8_t* bits, uint64_t i, bool v) {
  bits[i / 8] = static_cast<uint8_t>(v ? bits[i / 8] | (1u << (i % 8)) : bits[i / 8] & ~(1u << (i % 8)));
}

template <typename T>
inline bool compare(T x, T y, CMPMODE mode) {
  switch (mode) {
    case CMPMODE::LT: return x < y;
    case CMPMODE::GT: return x > y;
    case CMPMODE::EQ: return x == y;
    case CMPMODE::LE: return x <= y;
    case CMPMODE::GE: return x >= y;
    default: return x != y;
  }
}

template <typename U, typename T, typename Get>
inline void compare_count(const char* api, const LocalTensor<U>& dst, const LocalTensor<T>& src0, uint32_t count,
                          Get rhs, CMPMODE mode) {
  if (count == 0) return;
  if (count * sizeof(T) % ONE_REPEAT_BYTE_SIZE != 0)
    fault(api, "count %u of %zu-byte elements is not a multiple of 256 bytes", count, sizeof(T));
  check_local(api, "src0", src0, count);
  check_local(api, "dst", dst, (count / 8 + sizeof(U) - 1) / sizeof(U));
  uint8_t* bits = reinterpret_cast<uint8_t*>(dst.data());
  const T* a = src0.data();
  for (uint32_t byte = 0; byte < count / 8; ++byte) {
    uint8_t v = 0;
    for (uint32_t k = 0; k < 8; ++k) v |= static_cast<uint8_t>(compare(a[byte * 8 + k], rhs(byte * 8 + k), mode) << k);
    bits[byte] = v;
  }
}

template <typename T, typename U, typename Get>
inline void select_count(const LocalTensor<T>& dst, const LocalTensor<U>& mask, const LocalTensor<T>& src0,
                         uint32_t count, Get rhs) {
  if (count == 0) return;
  check_local("Select", "dst", dst, count);
  check_local("Select", "src0", src0, count);
  check_local("Select", "selMask", mask, (count / 8 + sizeof(U) - 1) / sizeof(U));
  const uint8_t* bits = reinterpret_cast<const uint8_t*>(mask.data());
  T* pd = dst.data();
  const T* a = src0.data();
  for (uint32_t i = 0; i < count; ++i) pd[i] = bit_at(bits, i) ? a[i] : rhs(i);
}

}  // namespace ascendsim_detail

template <typename T, typename U, bool isSetMask = true, typename M>
__aicore__ inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                               CMPMODE cmpMode, M mask, uint8_t repeatTime, const BinaryRepeatParams& p) {
  using namespace ascendsim_detail;
  const RepeatShape shape = shape_for<T, isSetMask>("Compare", mask, repeatTime);
  const Stride sa{p.src0BlkStride, p.src0RepStride}, sb{p.src1BlkStride, p.src1RepStride};
  check_local("Compare", "src0", src0, extent<T>(shape, sa));
  check_local("Compare", "src1", src1, extent<T>(shape, sb));
  check_local("Compare", "dst", dst, (uint64_t{shape.repeat} * shape.elements / 8 + sizeof(U) - 1) / sizeof(U));
  uint8_t* bits = reinterpret_cast<uint8_t*>(dst.data());
  for_each_element(shape, [&](uint32_t r, uint32_t e) {
    set_bit(bits, uint64_t{r} * shape.elements + e,
            compare(src0.data()[element_at<T>(r, e, sa)], src1.data()[element_at<T>(r, e, sb)], cmpMode));
  });
}

template <typename T, typename U, bool isSetMask = true, typename M>
__aicore__ inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                              const LocalTensor<T>& src1, SELMODE selMode, M mask, uint8_t repeatTime,
                              const BinaryRepeatParams& p) {
  using namespace ascendsim_detail;
  if (selMode != SELMODE::VSEL_TENSOR_TENSOR_MODE)
    fault("Select", "this form needs SELMODE::VSEL_TENSOR_TENSOR_MODE (got mode %d)", static_cast<int>(selMode));
  const RepeatShape shape = shape_for<T, isSetMask>("Select", mask, repeatTime);
  const Stride sd{p.dstBlkStride, p.dstRepStride}, sa{p.src0BlkStride, p.src0RepStride},
      sb{p.src1BlkStride, p.src1RepStride};
  check_local("Select", "dst", dst, extent<T>(shape, sd));
  check_local("Select", "src0", src0, extent<T>(shape, sa));
  check_local("Select", "src1", src1, extent<T>(shape, sb));
  check_local("Select", "selMask", selMask, (uint64_t{shape.repeat} * shape.elements / 8 + sizeof(U) - 1) / sizeof(U));
  const uint8_t* bits = reinterpret_cast<const uint8_t*>(selMask.data());
  for_each_element(shape, [&](uint32_t r, uint32_t e) {
    dst.data()[element_at<T>(r, e, sd)] = bit_at(bits, uint64_t{r} * shape.elements + e)
                                              ? src0.data()[element_at<T>(r, e, sa)]
                                              : src1.data()[element_at<T>(r, e, sb)];
  });
}

template <typename T, typename U>
__aicore__ inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                               CMPMODE cmpMode, uint32_t count) {
  ascendsim_detail::check_local("Compare", "src1", src1, count);
  const T* b = src1.data();
  ascendsim_detail::compare_count("Compare", dst, src0, count, [b](uint32_t i) { return b[i]; }, cmpMode);
}

template <typename T, typename U, typename S>
__aicore__ inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const S src1Scalar,
                                     CMPMODE cmpMode, uint32_t count) {
  const T s = static_cast<T>(src1Scalar);
  ascendsim_detail::compare_count("CompareScalar", dst, src0, count, [s](uint32_t) { return s; }, cmpMode);
}
template <typename T, typename U, typename S>
__aicore__ inline void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const S src1Scalar,
                                CMPMODE cmpMode, uint32_t count) {
  CompareScalar(dst, src0, src1Scalar, cmpMode, count);
}

template <typename T, typename U>
__aicore__ inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                              const LocalTensor<T>& src1, SELMODE selMode, uint32_t count) {
  if (selMode != SELMODE::VSEL_TENSOR_TENSOR_MODE)
    ascendsim_detail::fault("Select", "two tensors need SELMODE::VSEL_TENSOR_TENSOR_MODE (got mode %d)",
                            static_cast<int>(selMode));
  ascendsim_detail::check_local("Select", "src1", src1, count);
  const T* b = src1.data();
  ascendsim_detail::select_count(dst, selMask, src0, count, [b](uint32_t i) { return b[i]; });
}

template <typename T, typename U, typename S, typename = std::enable_if_t<!std::is_class_v<S> || std::is_same_v<S, bfloat16_t>>>
__aicore__ inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                              S src1Scalar, SELMODE selMode, uint32_t count) {
  if (selMode != SELMODE::VSEL_TENSOR_SCALAR_MODE)
    ascendsim_detail::fault("Select", "a scalar src1 needs SELMODE::VSEL_TENSOR_SCALAR_MODE (got mode %d)",
                            static_cast<int>(selMode));
  const T s = static_cast<T>(src1Scalar);
  ascendsim_detail::select_count(dst, selMask, src0, count, [s](uint32_t) { return s; });
}

}  // namespace AscendC
