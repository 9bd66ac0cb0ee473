// Cast between element types with CANN's round modes. Narrowing to a 16-bit float finds the two neighbours of
// the exact value (the round-to-nearest-even result and the next one on the other side) and picks by mode, so
// every mode is exact; to an integer it rounds in float and saturates to the integer's range.
#pragma once
#include <cmath>
#include <limits>
#include <type_traits>

#include "ascendc/kernel_vec_repeat.h"

namespace AscendC {
namespace ascendsim_detail {

template <typename T>
constexpr bool is_float16_v = std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t>;

template <typename T>
inline uint16_t bits_of(T v) {
  uint16_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
template <typename T>
inline T from_bits(uint16_t b) {
  T v;
  std::memcpy(static_cast<void*>(&v), &b, sizeof b);
  return v;
}

// The next 16-bit float after x towards +inf (up) or -inf (sign-magnitude formats: half and bfloat16).
template <typename T>
inline T step16(T x, bool up) {
  uint16_t b = bits_of(x);
  if ((b & 0x7fff) == 0) return from_bits<T>(up ? 0x0001 : 0x8001);
  const bool negative = (b & 0x8000) != 0;
  b = static_cast<uint16_t>(up != negative ? b + 1 : b - 1);
  return from_bits<T>(b);
}

template <typename D>
inline D narrow_float(double f, RoundMode mode) {
  const D nearest = static_cast<D>(static_cast<float>(f));
  const double back = static_cast<double>(static_cast<float>(nearest));
  if (std::isnan(f) || std::isinf(back) || back == f || mode == RoundMode::CAST_NONE || mode == RoundMode::CAST_RINT)
    return nearest;
  const D lo = back < f ? nearest : step16(nearest, false);
  const D hi = back < f ? step16(nearest, true) : nearest;
  switch (mode) {
    case RoundMode::CAST_FLOOR: return lo;
    case RoundMode::CAST_CEIL: return hi;
    case RoundMode::CAST_TRUNC: return f > 0 ? lo : hi;
    case RoundMode::CAST_ODD: return (bits_of(lo) & 1) != 0 ? lo : hi;
    case RoundMode::CAST_ROUND: {
      const double below = f - static_cast<double>(static_cast<float>(lo));
      const double above = static_cast<double>(static_cast<float>(hi)) - f;
      if (below == above) return f > 0 ? hi : lo;  // a tie: away from zero
      return nearest;
    }
    default: return nearest;
  }
}

inline double round_by(double f, RoundMode mode) {
  switch (mode) {
    case RoundMode::CAST_FLOOR: return std::floor(f);
    case RoundMode::CAST_CEIL: return std::ceil(f);
    case RoundMode::CAST_ROUND: return std::round(f);
    case RoundMode::CAST_TRUNC: return std::trunc(f);
    default: return std::nearbyint(f);
  }
}

template <typename D, typename S>
inline D cast_value(S v, RoundMode mode) {
  if constexpr (is_float16_v<D>) {
    return narrow_float<D>(static_cast<double>(static_cast<float>(v)), mode);
  } else if constexpr (std::is_integral_v<D> && !std::is_integral_v<S>) {
    const double f = round_by(static_cast<double>(static_cast<float>(v)), mode);
    if (std::isnan(f)) return D(0);
    if (f <= static_cast<double>(std::numeric_limits<D>::lowest())) return std::numeric_limits<D>::lowest();
    if (f >= static_cast<double>(std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
    return static_cast<D>(f);
  } else if constexpr (std::is_same_v<D, float> && std::is_same_v<S, double>) {
    return static_cast<D>(v);
  } else {
    return static_cast<D>(v);
  }
}

}  // namespace ascendsim_detail

template <typename D, typename S>
__aicore__ inline void Cast(const LocalTensor<D>& dst, const LocalTensor<S>& src, const RoundMode& roundMode,
                            const uint32_t count) {
  if (count == 0) return;
  ascendsim_detail::check_local("Cast", "dst", dst, count);
  ascendsim_detail::check_local("Cast", "src", src, count);
  D* pd = dst.data();
  const S* ps = src.data();
  const RoundMode mode = roundMode;
  for (uint32_t i = 0; i < count; ++i) pd[i] = ascendsim_detail::cast_value<D>(ps[i], mode);
}

// The high-dimensional form: masks and repeats follow the wider of the two types.
template <typename D, typename S, bool isSetMask = true, typename M>
__aicore__ inline void Cast(const LocalTensor<D>& dst, const LocalTensor<S>& src, const RoundMode& roundMode, M mask,
                            const uint8_t repeatTime, const UnaryRepeatParams& params) {
  using namespace ascendsim_detail;
  using Wider = std::conditional_t<(sizeof(D) > sizeof(S)), D, S>;
  const RepeatShape shape = shape_for<Wider, isSetMask>("Cast", mask, repeatTime);
  const Stride sd{params.dstBlkStride, params.dstRepStride}, ss{params.srcBlkStride, params.srcRepStride};
  check_local("Cast", "dst", dst, extent<D>(shape, sd));
  check_local("Cast", "src", src, extent<S>(shape, ss));
  D* pd = dst.data();
  const S* ps = src.data();
  for_each_element(shape, [&](uint32_t r, uint32_t e) {
    pd[element_at<D>(r, e, sd)] = cast_value<D>(ps[element_at<S>(r, e, ss)], roundMode);
  });
}

}  // namespace AscendC
