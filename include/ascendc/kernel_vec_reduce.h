// Reductions. Inside one repeat (256 bytes) the device adds pairwise, as a tree; across repeats the count form
// of ReduceSum accumulates in order; half partial sums saturate at +-65504. Max / Min keep the first occurrence and can store its index, bit for bit,
// in the element after the value (as an integer of the element's width). Outputs need only element alignment
// (ReduceMax / ReduceMin: two elements), sources 32 bytes.
#pragma once
#include <type_traits>
#include <vector>

#include "ascendc/kernel_vec_repeat.h"

namespace AscendC {
namespace ascendsim_detail {

// One addition of a sum: half partials saturate at +-65504 instead of overflowing, as the vector unit's do.
template <typename T>
inline T sum_step(T a, T b) {
  if constexpr (std::is_same_v<T, half>) {
    const float s = static_cast<float>(a) + static_cast<float>(b);
    return static_cast<T>(s > 65504.0f ? 65504.0f : s < -65504.0f ? -65504.0f : s);
  } else {
    return static_cast<T>(a + b);
  }
}

// Pairwise sum of v[0, n) in T arithmetic (n <= 256 / sizeof(T)); v is scratch.
template <typename T>
inline T tree_sum(T* v, uint32_t n) {
  if (n == 0) return T(0);
  while (n > 1) {
    const uint32_t half_n = n / 2;
    for (uint32_t i = 0; i < half_n; ++i) v[i] = sum_step(v[2 * i], v[2 * i + 1]);
    if (n % 2 != 0) v[half_n] = v[n - 1];
    n = half_n + n % 2;
  }
  return v[0];
}

template <typename T>
inline void store_index(T* where, uint32_t index) {
  if constexpr (sizeof(T) == 2) {
    const uint16_t i = static_cast<uint16_t>(index);
    std::memcpy(where, &i, sizeof i);
  } else if constexpr (sizeof(T) == 4) {
    std::memcpy(where, &index, sizeof index);
  } else {
    const uint64_t i = index;
    std::memcpy(where, &i, sizeof i);
  }
}

template <typename T, bool is_max>
inline void reduce_extreme(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t count,
                           bool calIndex) {
  if (count <= 0) return;
  check_local(api, "src", src, count);
  check_local(api, "dst", dst, calIndex ? 2 : 1, 2 * sizeof(T));
  const T* p = src.data();
  uint32_t best = 0;
  for (int32_t i = 1; i < count; ++i)
    if (is_max ? p[i] > p[best] : p[i] < p[best]) best = static_cast<uint32_t>(i);
  dst.data()[0] = p[best];
  if (calIndex) store_index(dst.data() + 1, best);
}

}  // namespace ascendsim_detail

template <typename T>
__aicore__ inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                                 const int32_t count) {
  (void)sharedTmpBuffer;
  if (count <= 0) return;
  ascendsim_detail::check_local("ReduceSum", "src", src, count);
  ascendsim_detail::check_local("ReduceSum", "dst", dst, 1, sizeof(T));
  constexpr uint32_t E = ONE_REPEAT_BYTE_SIZE / sizeof(T);
  T scratch[E];
  T total = T(0);
  for (int32_t start = 0; start < count; start += E) {
    const uint32_t n = static_cast<uint32_t>(count - start) < E ? static_cast<uint32_t>(count - start) : E;
    std::memcpy(scratch, src.data() + start, n * sizeof(T));
    total = ascendsim_detail::sum_step(total, ascendsim_detail::tree_sum(scratch, n));
  }
  dst.data()[0] = total;
}

template <typename T>
__aicore__ inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                                 const int32_t count, bool calIndex = false) {
  (void)sharedTmpBuffer;
  ascendsim_detail::reduce_extreme<T, true>("ReduceMax", dst, src, count, calIndex);
}

template <typename T>
__aicore__ inline void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                                 const int32_t count, bool calIndex = false) {
  (void)sharedTmpBuffer;
  ascendsim_detail::reduce_extreme<T, false>("ReduceMin", dst, src, count, calIndex);
}

// The high-dimensional forms: `repeatTime` repeats with mask and srcRepStride (block stride 1). ReduceSum adds the
// repeats' tree sums as a tree too; Max / Min scan in order, the index counting elements from the first repeat.
template <typename T, bool isSetMask = true, typename M>
__aicore__ inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                                 M mask, const int32_t repeatTime, const int32_t srcRepStride) {
  using namespace ascendsim_detail;
  (void)sharedTmpBuffer;
  const RepeatShape shape = shape_for<T, isSetMask>("ReduceSum", mask, static_cast<uint32_t>(repeatTime));
  const Stride ss{1, static_cast<uint32_t>(srcRepStride)};
  check_local("ReduceSum", "src", src, extent<T>(shape, ss));
  check_local("ReduceSum", "dst", dst, 1, sizeof(T));
  if (shape.repeat == 0) return;
  constexpr uint32_t E = ONE_REPEAT_BYTE_SIZE / sizeof(T);
  std::vector<T> partials(shape.repeat);  // more than 255 repeats in the counter mode
  for (uint32_t r = 0; r < shape.repeat; ++r) {
    T scratch[E];
    uint32_t n = 0;
    for_each_element(RepeatShape{shape.mask, 1, shape.elements, r + 1 == shape.repeat ? shape.last : shape.elements},
                     [&](uint32_t, uint32_t e) { scratch[n++] = src.data()[element_at<T>(r, e, ss)]; });
    partials[r] = tree_sum(scratch, n);
  }
  dst.data()[0] = tree_sum(partials.data(), shape.repeat);
}

namespace ascendsim_detail {
template <typename T, bool is_max, bool isSetMask, typename M>
inline void reduce_extreme_repeat(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, M mask,
                                  int32_t repeatTime, int32_t srcRepStride, bool calIndex) {
  const RepeatShape shape = shape_for<T, isSetMask>(api, mask, static_cast<uint32_t>(repeatTime));
  const Stride ss{1, static_cast<uint32_t>(srcRepStride)};
  check_local(api, "src", src, extent<T>(shape, ss));
  check_local(api, "dst", dst, calIndex ? 2 : 1, 2 * sizeof(T));
  bool any = false;
  T best{};
  uint32_t at = 0;
  for_each_element(shape, [&](uint32_t r, uint32_t e) {
    const T v = src.data()[element_at<T>(r, e, ss)];
    if (!any || (is_max ? v > best : v < best)) best = v, at = r * shape.elements + e, any = true;
  });
  if (!any) return;
  dst.data()[0] = best;
  if (calIndex) store_index(dst.data() + 1, at);
}
}  // namespace ascendsim_detail

template <typename T, bool isSetMask = true, typename M>
__aicore__ inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                                 M mask, const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = false) {
  (void)sharedTmpBuffer;
  ascendsim_detail::reduce_extreme_repeat<T, true, isSetMask>("ReduceMax", dst, src, mask, repeatTime, srcRepStride, calIndex);
}

template <typename T, bool isSetMask = true, typename M>
__aicore__ inline void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                                 M mask, const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = false) {
  (void)sharedTmpBuffer;
  ascendsim_detail::reduce_extreme_repeat<T, false, isSetMask>("ReduceMin", dst, src, mask, repeatTime, srcRepStride, calIndex);
}

// One result per repeat: dst[r * dstRepStride] (Max / Min with ORDER_VALUE_INDEX: value and index pairs).
template <typename T, bool isSetMask = true, typename M>
__aicore__ inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, M mask, const int32_t repeatTime,
                                      const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride) {
  using namespace ascendsim_detail;
  const RepeatShape shape = shape_for<T, isSetMask>("WholeReduceSum", mask, static_cast<uint32_t>(repeatTime));
  const Stride ss{static_cast<uint32_t>(srcBlkStride), static_cast<uint32_t>(srcRepStride)};
  check_local("WholeReduceSum", "src", src, extent<T>(shape, ss));
  if (shape.repeat != 0)
    check_local("WholeReduceSum", "dst", dst, uint64_t{shape.repeat - 1} * dstRepStride + 1, sizeof(T));
  constexpr uint32_t E = ONE_REPEAT_BYTE_SIZE / sizeof(T);
  for (uint32_t r = 0; r < shape.repeat; ++r) {
    T scratch[E];
    uint32_t n = 0;
    const uint32_t limit = r + 1 == shape.repeat ? static_cast<uint32_t>(shape.last) : E;
    for (uint32_t e = 0; e < limit; ++e)
      if (shape.mask.test(e)) scratch[n++] = src.data()[element_at<T>(r, e, ss)];
    dst.data()[uint64_t{r} * dstRepStride] = tree_sum(scratch, n);
  }
}

namespace ascendsim_detail {

enum class BlockOp { kSum, kMax, kMin };

// One result per 32-byte block of each repeat, at dst[r * dstRepStride * 8 + block] (dstRepStride in units of a
// repeat's 8 results); a block the mask leaves empty keeps its dst element.
template <typename T, BlockOp op, bool isSetMask, typename M>
inline void block_reduce(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t repeatTime,
                         M mask, int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride) {
  constexpr uint32_t B = ONE_BLK_SIZE / sizeof(T);
  const RepeatShape shape = shape_for<T, isSetMask>(api, mask, static_cast<uint32_t>(repeatTime));
  const Stride ss{static_cast<uint32_t>(srcBlkStride), static_cast<uint32_t>(srcRepStride)};
  check_local(api, "src", src, extent<T>(shape, ss));
  if (shape.repeat != 0) check_local(api, "dst", dst, (uint64_t{shape.repeat - 1} * dstRepStride + 1) * 8, 8 * sizeof(T));
  for (uint32_t r = 0; r < shape.repeat; ++r) {
    const uint32_t limit = r + 1 == shape.repeat ? static_cast<uint32_t>(shape.last) : shape.elements;
    for (uint32_t blk = 0; blk < 8; ++blk) {
      T values[B];
      uint32_t n = 0;
      for (uint32_t e = blk * B; e < (blk + 1) * B && e < limit; ++e)
        if (shape.mask.test(e)) values[n++] = src.data()[element_at<T>(r, e, ss)];
      if (n == 0) continue;
      T result = values[0];
      if constexpr (op == BlockOp::kSum) {
        result = tree_sum(values, n);
      } else {
        for (uint32_t i = 1; i < n; ++i)
          if (op == BlockOp::kMax ? values[i] > result : values[i] < result) result = values[i];
      }
      dst.data()[(uint64_t{r} * dstRepStride) * 8 + blk] = result;
    }
  }
}

}  // namespace ascendsim_detail

#define ASCENDSIM_BLOCK_REDUCE(Name, op)                                                                        \
  template <typename T, bool isSetMask = true, typename M>                                                      \
  __aicore__ inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,  \
                              M mask, const int32_t dstRepStride, const int32_t srcBlkStride,                   \
                              const int32_t srcRepStride) {                                                     \
    ascendsim_detail::block_reduce<T, op, isSetMask>(#Name, dst, src, repeatTime, mask, dstRepStride, srcBlkStride, \
                                                     srcRepStride);                                            \
  }
ASCENDSIM_BLOCK_REDUCE(BlockReduceSum, ascendsim_detail::BlockOp::kSum)
ASCENDSIM_BLOCK_REDUCE(BlockReduceMax, ascendsim_detail::BlockOp::kMax)
ASCENDSIM_BLOCK_REDUCE(BlockReduceMin, ascendsim_detail::BlockOp::kMin)
#undef ASCENDSIM_BLOCK_REDUCE

// Sums of adjacent pairs (elements 2i and 2i + 1 of a repeat) at dst[r * dstRepStride * E / 2 + i] (dstRepStride in
// units of a reduced repeat, 128 bytes); a pair the mask leaves empty keeps its dst element.
template <typename T, bool isSetMask = true, typename M>
__aicore__ inline void PairReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                                     M mask, const int32_t dstRepStride, const int32_t srcBlkStride,
                                     const int32_t srcRepStride) {
  using namespace ascendsim_detail;
  const RepeatShape shape = shape_for<T, isSetMask>("PairReduceSum", mask, static_cast<uint32_t>(repeatTime));
  const Stride ss{static_cast<uint32_t>(srcBlkStride), static_cast<uint32_t>(srcRepStride)};
  const uint32_t half_repeat = shape.elements / 2;
  check_local("PairReduceSum", "src", src, extent<T>(shape, ss));
  if (shape.repeat != 0)
    check_local("PairReduceSum", "dst", dst, uint64_t{shape.repeat - 1} * dstRepStride * half_repeat + half_repeat);
  for (uint32_t r = 0; r < shape.repeat; ++r) {
    const uint32_t limit = r + 1 == shape.repeat ? static_cast<uint32_t>(shape.last) : shape.elements;
    for (uint32_t i = 0; i < half_repeat; ++i) {
      const bool a = 2 * i < limit && shape.mask.test(2 * i), b = 2 * i + 1 < limit && shape.mask.test(2 * i + 1);
      if (!a && !b) continue;
      const T x = a ? src.data()[element_at<T>(r, 2 * i, ss)] : T(0);
      const T y = b ? src.data()[element_at<T>(r, 2 * i + 1, ss)] : T(0);
      dst.data()[uint64_t{r} * dstRepStride * half_repeat + i] = sum_step(x, y);
    }
  }
}

// The older form of WholeReduceSum: a continuous mask only, dstBlkStride ignored, dstRepStride in results.
template <typename T, bool isSetMask = true>
__aicore__ inline void RepeatReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                                       const int32_t mask, const int32_t dstBlkStride, const int32_t srcBlkStride,
                                       const int32_t dstRepStride, const int32_t srcRepStride) {
  (void)dstBlkStride;
  WholeReduceSum<T, isSetMask>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride);
}

namespace ascendsim_detail {
template <typename T, bool is_max, bool isSetMask, typename M>
inline void whole_reduce_extreme(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, M mask,
                                 int32_t repeatTime, int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride,
                                 ReduceOrder order) {
  const RepeatShape shape = shape_for<T, isSetMask>(api, mask, static_cast<uint32_t>(repeatTime));
  const Stride ss{static_cast<uint32_t>(srcBlkStride), static_cast<uint32_t>(srcRepStride)};
  const uint32_t width = order == ReduceOrder::ORDER_ONLY_VALUE || order == ReduceOrder::ORDER_ONLY_INDEX ? 1 : 2;
  check_local(api, "src", src, extent<T>(shape, ss));
  if (shape.repeat != 0) check_local(api, "dst", dst, (uint64_t{shape.repeat - 1} * dstRepStride + 1) * width, sizeof(T));
  for (uint32_t r = 0; r < shape.repeat; ++r) {
    bool any = false;
    T best{};
    uint32_t at = 0;
    for_each_element(RepeatShape{shape.mask, 1, shape.elements, r + 1 == shape.repeat ? shape.last : shape.elements},
                     [&](uint32_t, uint32_t e) {
                       const T v = src.data()[element_at<T>(r, e, ss)];
                       if (!any || (is_max ? v > best : v < best)) best = v, at = e, any = true;
                     });
    T* out = dst.data() + uint64_t{r} * dstRepStride * width;
    switch (order) {
      case ReduceOrder::ORDER_VALUE_INDEX: out[0] = best; store_index(out + 1, at); break;
      case ReduceOrder::ORDER_INDEX_VALUE: store_index(out, at); out[1] = best; break;
      case ReduceOrder::ORDER_ONLY_VALUE: out[0] = best; break;
      default: store_index(out, at); break;
    }
  }
}
}  // namespace ascendsim_detail

template <typename T, bool isSetMask = true, typename M>
__aicore__ inline void WholeReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, M mask, const int32_t repeatTime,
                                      const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,
                                      ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {
  ascendsim_detail::whole_reduce_extreme<T, true, isSetMask>("WholeReduceMax", dst, src, mask, repeatTime, dstRepStride,
                                                             srcBlkStride, srcRepStride, order);
}
template <typename T, bool isSetMask = true, typename M>
__aicore__ inline void WholeReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, M mask, const int32_t repeatTime,
                                      const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,
                                      ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {
  ascendsim_detail::whole_reduce_extreme<T, false, isSetMask>("WholeReduceMin", dst, src, mask, repeatTime, dstRepStride,
                                                              srcBlkStride, srcRepStride, order);
}

}  // namespace AscendC
