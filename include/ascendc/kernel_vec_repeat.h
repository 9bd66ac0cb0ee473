// The two shapes of a vector instruction. The count form processes the first `count` elements of contiguous
// operands: a plain loop the host compiler vectorises. The high-dimensional form processes `repeat` repeats of
// 256 bytes; within a repeat the 128-bit mask (a count of leading elements, or two 64-bit words) selects
// elements, and element e of repeat r of an operand lies at
//   (r * repStride + (e / B) * blkStride) * B + e % B     (elements; B = 32 / sizeof(T) per block).
// SetMaskCount switches to the counter mode, in which the mask is the total number of elements. A full mask with
// the default strides (block 1, repeat 8) is contiguous and runs as the count form.
#pragma once
#include <algorithm>
#include <initializer_list>
#include <type_traits>

#include "ascendc/kernel_check.h"

namespace AscendC {
namespace ascendsim_detail {

struct Mask {
  uint64_t bits[2];
  bool test(uint32_t e) const { return (bits[e / 64] >> (e % 64)) & 1u; }
};

// elements: a repeat's elements of the widest operand type.
inline Mask continuous_mask(uint64_t count, uint32_t elements) {
  count = std::min<uint64_t>(count, elements);
  Mask m{{0, 0}};
  m.bits[0] = count >= 64 ? ~0ull : ((1ull << count) - 1);
  m.bits[1] = count <= 64 ? 0 : count >= 128 ? ~0ull : ((1ull << (count - 64)) - 1);
  return m;
}

struct Stride {
  uint32_t blk, rep;
};

template <typename T>
inline uint64_t element_at(uint32_t r, uint32_t e, Stride s) {
  constexpr uint32_t B = ONE_BLK_SIZE / sizeof(T);
  return (static_cast<uint64_t>(r) * s.rep + e / B * s.blk) * B + e % B;
}

// A high-dimensional instruction over `repeat` repeats of E elements: counter mode or the mask decides which
// elements; fn(r, e) does element e of repeat r. Returns the elements of the repeats touched (for checks).
struct RepeatShape {
  Mask mask;
  uint32_t repeat;
  uint32_t elements;  // per repeat
  uint64_t last;      // elements of the last repeat in counter mode, else E
};

inline RepeatShape repeat_shape(const char* api, const Mask& mask, uint64_t counter_total, uint32_t repeat,
                                uint32_t elements) {
  if (state().counter_mode) {
    const uint32_t repeats = static_cast<uint32_t>((counter_total + elements - 1) / elements);
    return RepeatShape{continuous_mask(elements, elements), repeats, elements,
                       counter_total - (repeats == 0 ? 0 : (repeats - 1) * uint64_t{elements})};
  }
  if (repeat > 255) fault(api, "repeatTimes %u is outside [0, 255]", repeat);
  return RepeatShape{mask, repeat, elements, elements};
}

// The highest element index + 1 an operand with stride s is touched at, for the extent check.
template <typename T>
inline uint64_t extent(const RepeatShape& shape, Stride s) {
  uint64_t top = 0;
  if (shape.repeat == 0) return 0;
  int32_t last_e = -1;
  for (int32_t e = static_cast<int32_t>(shape.elements) - 1; e >= 0; --e)
    if (shape.mask.test(static_cast<uint32_t>(e))) {
      last_e = e;
      break;
    }
  if (last_e < 0) return 0;
  for (uint32_t r : {0u, shape.repeat - 1})
    top = std::max(top, element_at<T>(r, static_cast<uint32_t>(last_e), s) + 1);
  return top;
}

template <typename Fn>
inline void for_each_element(const RepeatShape& shape, Fn&& fn) {
  for (uint32_t r = 0; r < shape.repeat; ++r) {
    const uint32_t n = r + 1 == shape.repeat ? static_cast<uint32_t>(shape.last) : shape.elements;
    for (uint32_t e = 0; e < n; ++e)
      if (shape.mask.test(e)) fn(r, e);
  }
}

inline bool is_contiguous(const RepeatShape& shape, std::initializer_list<Stride> strides) {
  if (shape.mask.bits[0] != continuous_mask(shape.elements, shape.elements).bits[0] ||
      shape.mask.bits[1] != continuous_mask(shape.elements, shape.elements).bits[1])
    return false;
  for (Stride s : strides)
    if (s.blk != 1 || s.rep != 8) return false;
  return true;
}

template <typename T>
inline uint64_t contiguous_count(const RepeatShape& shape) {
  return shape.repeat == 0 ? 0 : (shape.repeat - 1) * uint64_t{shape.elements} + shape.last;
}

}  // namespace ascendsim_detail

// The mask register (honoured by the high-dimensional calls with isSetMask = false).
template <typename T, MaskMode mode = MaskMode::NORMAL>
__aicore__ inline void SetVectorMask(uint64_t maskHigh, uint64_t maskLow) {
  ascendsim_detail::state().mask[0] = maskLow;
  ascendsim_detail::state().mask[1] = maskHigh;
}
template <typename T, MaskMode mode = MaskMode::NORMAL>
__aicore__ inline void SetVectorMask(int32_t len) {
  if (mode == MaskMode::COUNTER || ascendsim_detail::state().counter_mode) {
    ascendsim_detail::state().mask[0] = static_cast<uint64_t>(len);
    ascendsim_detail::state().mask[1] = 0;
    return;
  }
  const ascendsim_detail::Mask m = ascendsim_detail::continuous_mask(static_cast<uint64_t>(len), ONE_REPEAT_BYTE_SIZE / sizeof(T));
  ascendsim_detail::state().mask[0] = m.bits[0];
  ascendsim_detail::state().mask[1] = m.bits[1];
}
__aicore__ inline void ResetMask() {
  ascendsim_detail::state().mask[0] = ~0ull;
  ascendsim_detail::state().mask[1] = ~0ull;
}
__aicore__ inline void SetMaskCount() { ascendsim_detail::state().counter_mode = true; }
__aicore__ inline void SetMaskNorm() { ascendsim_detail::state().counter_mode = false; }

namespace ascendsim_detail {

// The mask a high-dimensional call uses: its argument, or the register (isSetMask = false).
template <typename T, bool isSetMask>
inline Mask mask_of(uint64_t count) {
  if (!isSetMask) return Mask{{state().mask[0], state().mask[1]}};
  return continuous_mask(count, ONE_REPEAT_BYTE_SIZE / sizeof(T));
}
template <typename T, bool isSetMask>
inline Mask mask_of(const uint64_t bits[]) {
  if (!isSetMask) return Mask{{state().mask[0], state().mask[1]}};
  return Mask{{bits[0], sizeof(T) >= 4 ? 0 : bits[1]}};
}

// The shape of a high-dimensional call of element type T (the widest operand's) with mask argument `mask` (a
// count or two words) and `repeat` repeats.
template <typename T, bool isSetMask, typename M>
inline RepeatShape shape_for(const char* api, M mask, uint32_t repeat) {
  uint64_t count;
  if constexpr (std::is_integral_v<M>)
    count = static_cast<uint64_t>(mask);
  else
    count = mask[0];
  return repeat_shape(api, mask_of<T, isSetMask>(mask), isSetMask ? count : state().mask[0], repeat,
                      ONE_REPEAT_BYTE_SIZE / sizeof(T));
}

}  // namespace ascendsim_detail
}  // namespace AscendC
