// DataCopy and DataCopyPad between global memory and the unified buffer (and UB to UB). DataCopy moves whole
// 32-byte blocks: a length or UB address that breaks the 32-byte rule is a fault (the hardware would round the
// length down silently), as is a global-memory range outside a live allocation. DataCopyPad moves any number of
// bytes per block, each block starting 32-byte aligned in the UB with optional padding elements.
#pragma once
#include <cstring>

#include "ascendc/kernel_check.h"

namespace AscendC {

struct DataCopyParams {
  DataCopyParams() = default;
  DataCopyParams(uint16_t count, uint16_t len, uint16_t srcStrideIn, uint16_t dstStrideIn)
      : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn) {}
  uint16_t blockCount = 1;
  uint16_t blockLen = 0;   // DataCopy: 32-byte blocks; DataCopyPad: bytes
  uint16_t srcStride = 0;  // gap between blocks (units as blockLen's, GM side of DataCopyPad in bytes)
  uint16_t dstStride = 0;
};

struct DataCopyExtParams {
  DataCopyExtParams() = default;
  DataCopyExtParams(uint16_t count, uint32_t len, uint32_t srcStrideIn, uint32_t dstStrideIn, uint32_t rsvIn)
      : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn), rsv(rsvIn) {}
  uint16_t blockCount = 1;
  uint32_t blockLen = 0;   // bytes
  uint32_t srcStride = 0;  // GM side: bytes; UB side: 32-byte blocks
  uint32_t dstStride = 0;
  uint32_t rsv = 0;
};

template <typename T>
struct DataCopyPadExtParams {
  DataCopyPadExtParams() = default;
  DataCopyPadExtParams(bool pad, uint8_t left, uint8_t right, T value)
      : isPad(pad), leftPadding(left), rightPadding(right), paddingValue(value) {}
  bool isPad = false;
  uint8_t leftPadding = 0;
  uint8_t rightPadding = 0;
  T paddingValue = T();
};

struct DataCopyPadParams {
  DataCopyPadParams() = default;
  DataCopyPadParams(bool pad, uint8_t left, uint8_t right, uint64_t value)
      : isPad(pad), leftPadding(left), rightPadding(right), paddingValue(value) {}
  bool isPad = false;
  uint8_t leftPadding = 0;
  uint8_t rightPadding = 0;
  uint64_t paddingValue = 0;
};

namespace ascendsim_detail {

// A strided copy of `count` blocks of `len` bytes; gaps in bytes. The global side is checked as one range.
inline void copy_blocks(uint8_t* dst, const uint8_t* src, uint32_t count, size_t len, size_t src_gap, size_t dst_gap) {
  for (uint32_t i = 0; i < count; ++i) std::memcpy(dst + i * (len + dst_gap), src + i * (len + src_gap), len);
}

inline size_t span(uint32_t count, size_t len, size_t gap) { return count == 0 ? 0 : count * len + (count - 1) * gap; }

template <typename T>
inline void check_gm_alignment(const char* api, const T* p) {
  if (reinterpret_cast<uintptr_t>(p) % sizeof(T) != 0)
    fault(api, "the global address %p is not aligned to the element size %zu", static_cast<const void*>(p), sizeof(T));
}

inline void check_block_length(const char* api, size_t bytes) {
  if (bytes % ONE_BLK_SIZE != 0)
    fault(api, "%zu bytes is not a multiple of 32 (DataCopy moves whole 32-byte blocks; use DataCopyPad for a "
          "tail)", bytes);
}

}  // namespace ascendsim_detail

namespace ascendsim_detail {

// The operand checks of a copy: `bytes` from the start of a UB tensor or of a global tensor.
template <typename T>
inline void check_operand(const char* api, const char* name, const LocalTensor<T>& t, size_t bytes, bool) {
  check_local(api, name, t, (bytes + sizeof(T) - 1) / sizeof(T));
}
template <typename T>
inline void check_operand(const char* api, const char*, const GlobalTensor<T>& t, size_t bytes, bool write) {
  check_gm_alignment(api, t.data());
  check_global(api, t.data(), bytes, write);
}

// DataCopy with DataCopyParams between any two of UB and GM: lengths and gaps in 32-byte blocks.
template <typename D, typename S>
inline void data_copy(const D& dst, const S& src, const DataCopyParams& p) {
  if (p.blockCount == 0 || p.blockLen == 0) return;
  const size_t len = p.blockLen * size_t{ONE_BLK_SIZE};
  const size_t src_gap = p.srcStride * size_t{ONE_BLK_SIZE}, dst_gap = p.dstStride * size_t{ONE_BLK_SIZE};
  check_operand("DataCopy", "src", src, span(p.blockCount, len, src_gap), false);
  check_operand("DataCopy", "dst", dst, span(p.blockCount, len, dst_gap), true);
  copy_blocks(reinterpret_cast<uint8_t*>(dst.data()), reinterpret_cast<const uint8_t*>(src.data()), p.blockCount, len,
              src_gap, dst_gap);
}

}  // namespace ascendsim_detail

template <typename T>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p) {
  ascendsim_detail::data_copy(dst, src, p);
}
template <typename T>
__aicore__ inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p) {
  ascendsim_detail::data_copy(dst, src, p);
}
template <typename T>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p) {
  ascendsim_detail::data_copy(dst, src, p);
}

// The contiguous forms: count elements, count * sizeof(T) a multiple of 32.
template <typename T, typename S>
__aicore__ inline void DataCopy(const T& dst, const S& src, uint32_t count) {
  using E = typename T::PrimType;
  ascendsim_detail::check_block_length("DataCopy", count * sizeof(E));
  DataCopy(dst, src, DataCopyParams(1, static_cast<uint16_t>(count * sizeof(E) / ONE_BLK_SIZE), 0, 0));
}

// GM -> UB with padding: each of blockCount blocks of blockLen bytes lands 32-byte aligned in the UB as
// left padding + data + right padding (paddings in elements, filled with paddingValue when isPad).
template <typename T>
__aicore__ inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& p,
                                   const DataCopyPadExtParams<T>& pad) {
  using namespace ascendsim_detail;
  if (p.blockCount == 0 || p.blockLen == 0) return;
  if (p.blockLen % sizeof(T) != 0)
    fault("DataCopyPad", "blockLen %u is not a multiple of the element size %zu", p.blockLen, sizeof(T));
  if ((pad.leftPadding + pad.rightPadding) * sizeof(T) > ONE_BLK_SIZE)
    fault("DataCopyPad", "left + right padding of %u elements exceeds 32 bytes", pad.leftPadding + pad.rightPadding);
  check_gm_alignment("DataCopyPad", src.data());
  const size_t row = pad.leftPadding * sizeof(T) + p.blockLen + pad.rightPadding * sizeof(T);
  const size_t row_stride = (row + ONE_BLK_SIZE - 1) / ONE_BLK_SIZE * ONE_BLK_SIZE + p.dstStride * size_t{ONE_BLK_SIZE};
  check_local("DataCopyPad", "dst", dst, (span(p.blockCount, row_stride, 0) - (row_stride - row) + sizeof(T) - 1) / sizeof(T));
  check_global("DataCopyPad", src.data(), span(p.blockCount, p.blockLen, p.srcStride), false);
  const uint8_t* from = reinterpret_cast<const uint8_t*>(src.data());
  uint8_t* to = reinterpret_cast<uint8_t*>(dst.data());
  const uint32_t n = p.blockLen / sizeof(T);
  for (uint32_t b = 0; b < p.blockCount; ++b) {
    T* row_out = reinterpret_cast<T*>(to + b * row_stride);
    std::memcpy(row_out + pad.leftPadding, from + b * (size_t{p.blockLen} + p.srcStride), p.blockLen);
    const T fill = pad.isPad ? pad.paddingValue : row_out[pad.leftPadding];
    for (uint32_t i = 0; i < pad.leftPadding; ++i) row_out[i] = fill;
    for (uint32_t i = 0; i < pad.rightPadding; ++i) row_out[pad.leftPadding + n + i] = fill;
  }
}

// UB -> GM: exactly blockLen bytes per block.
template <typename T>
__aicore__ inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p) {
  using namespace ascendsim_detail;
  if (p.blockCount == 0 || p.blockLen == 0) return;
  check_gm_alignment("DataCopyPad", dst.data());
  const size_t row_stride = (size_t{p.blockLen} + ONE_BLK_SIZE - 1) / ONE_BLK_SIZE * ONE_BLK_SIZE + p.srcStride * size_t{ONE_BLK_SIZE};
  check_local("DataCopyPad", "src", src, ((p.blockCount - 1) * row_stride + p.blockLen + sizeof(T) - 1) / sizeof(T));
  check_global("DataCopyPad", dst.data(), span(p.blockCount, p.blockLen, p.dstStride), true);
  uint8_t* to = reinterpret_cast<uint8_t*>(dst.data());
  const uint8_t* from = reinterpret_cast<const uint8_t*>(src.data());
  for (uint32_t b = 0; b < p.blockCount; ++b)
    std::memcpy(to + b * (size_t{p.blockLen} + p.dstStride), from + b * row_stride, p.blockLen);
}

// The older parameter structs (DataCopyParams with blockLen in bytes, DataCopyPadParams).
template <typename T>
__aicore__ inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p,
                                   const DataCopyPadParams& pad) {
  T value;
  std::memcpy(&value, &pad.paddingValue, sizeof(T));
  DataCopyPad(dst, src, DataCopyExtParams(p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0),
              DataCopyPadExtParams<T>(pad.isPad, pad.leftPadding, pad.rightPadding, value));
}
template <typename T>
__aicore__ inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p) {
  DataCopyPad(dst, src, DataCopyExtParams(p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0));
}

}  // namespace AscendC
