// The dtype conversion loops (see dtype_convert.h): float values to integers truncate toward zero as C casts do,
// without the undefined behaviour of out-of-range values (NaN is 0, beyond the int64 range saturates).
#include "kernels/dtype_convert.h"

#include <algorithm>
#include <cstring>

#include "kernels/simd/row_loops.h"

namespace ascendsim::kernels {

void round_fp16_inplace(float* data, int64_t n) { row_loops().round_fp16(data, data, n); }

namespace {

template <class S, class D, class Cvt>
inline void gather(const void* base, int64_t offset, int64_t stride, int64_t n, D* dst, Cvt cvt) {
  const S* src = static_cast<const S*>(base) + offset;
  if (stride == 1) {
    for (int64_t i = 0; i < n; ++i) dst[i] = cvt(src[i]);
  } else if (stride == 0) {
    D v = cvt(src[0]);
    for (int64_t i = 0; i < n; ++i) dst[i] = v;
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = cvt(src[i * stride]);
  }
}

template <class D, class S, class Cvt>
inline void scatter(const S* src, int64_t n, void* base, int64_t offset, Cvt cvt) {
  D* dst = static_cast<D*>(base) + offset;
  for (int64_t i = 0; i < n; ++i) dst[i] = cvt(src[i]);
}

template <class T>
inline T float_to_int(float v) {
  return static_cast<T>(to_int64(v));  // narrower integers wrap, as the int64 -> T conversion does
}

}  // namespace

void load_float(aclDataType dtype, const void* base, int64_t offset, int64_t stride, int64_t n, float* dst) {
  auto same = [](auto v) { return static_cast<float>(v); };
  switch (dtype) {
    case ACL_FLOAT: gather<float>(base, offset, stride, n, dst, same); break;
    case ACL_FLOAT16: gather<uint16_t>(base, offset, stride, n, dst, [](uint16_t h) { return half_to_float(h); }); break;
    case ACL_DOUBLE: gather<double>(base, offset, stride, n, dst, same); break;
    case ACL_INT8: gather<int8_t>(base, offset, stride, n, dst, same); break;
    case ACL_UINT8: gather<uint8_t>(base, offset, stride, n, dst, same); break;
    case ACL_BOOL: gather<uint8_t>(base, offset, stride, n, dst, [](uint8_t v) { return v ? 1.0f : 0.0f; }); break;
    case ACL_INT16: gather<int16_t>(base, offset, stride, n, dst, same); break;
    case ACL_UINT16: gather<uint16_t>(base, offset, stride, n, dst, same); break;
    case ACL_INT32: gather<int32_t>(base, offset, stride, n, dst, same); break;
    case ACL_UINT32: gather<uint32_t>(base, offset, stride, n, dst, same); break;
    case ACL_INT64: gather<int64_t>(base, offset, stride, n, dst, same); break;
    case ACL_UINT64: gather<uint64_t>(base, offset, stride, n, dst, same); break;
    default: std::fill(dst, dst + n, 0.0f); break;
  }
}

void load_int(aclDataType dtype, const void* base, int64_t offset, int64_t stride, int64_t n, int64_t* dst) {
  auto same = [](auto v) { return static_cast<int64_t>(v); };
  switch (dtype) {
    case ACL_FLOAT: gather<float>(base, offset, stride, n, dst, [](float v) { return float_to_int<int64_t>(v); }); break;
    case ACL_FLOAT16:
      gather<uint16_t>(base, offset, stride, n, dst, [](uint16_t h) { return float_to_int<int64_t>(half_to_float(h)); });
      break;
    case ACL_DOUBLE:
      gather<double>(base, offset, stride, n, dst, [](double v) { return float_to_int<int64_t>(static_cast<float>(v)); });
      break;
    case ACL_INT8: gather<int8_t>(base, offset, stride, n, dst, same); break;
    case ACL_UINT8: gather<uint8_t>(base, offset, stride, n, dst, same); break;
    case ACL_BOOL: gather<uint8_t>(base, offset, stride, n, dst, [](uint8_t v) { return int64_t(v != 0); }); break;
    case ACL_INT16: gather<int16_t>(base, offset, stride, n, dst, same); break;
    case ACL_UINT16: gather<uint16_t>(base, offset, stride, n, dst, same); break;
    case ACL_INT32: gather<int32_t>(base, offset, stride, n, dst, same); break;
    case ACL_UINT32: gather<uint32_t>(base, offset, stride, n, dst, same); break;
    case ACL_INT64: gather<int64_t>(base, offset, stride, n, dst, same); break;
    case ACL_UINT64: gather<uint64_t>(base, offset, stride, n, dst, same); break;
    default: std::fill(dst, dst + n, int64_t(0)); break;
  }
}

void store_float(aclDataType dtype, const float* src, int64_t n, void* base, int64_t offset) {
  switch (dtype) {
    case ACL_FLOAT: std::memmove(static_cast<float*>(base) + offset, src, static_cast<size_t>(n) * 4); break;
    case ACL_FLOAT16: scatter<uint16_t>(src, n, base, offset, [](float v) { return float_to_half(v); }); break;
    case ACL_DOUBLE: scatter<double>(src, n, base, offset, [](float v) { return static_cast<double>(v); }); break;
    case ACL_BOOL: scatter<uint8_t>(src, n, base, offset, [](float v) { return uint8_t(v != 0.0f); }); break;
    case ACL_INT8: scatter<int8_t>(src, n, base, offset, [](float v) { return float_to_int<int8_t>(v); }); break;
    case ACL_UINT8: scatter<uint8_t>(src, n, base, offset, [](float v) { return float_to_int<uint8_t>(v); }); break;
    case ACL_INT16: scatter<int16_t>(src, n, base, offset, [](float v) { return float_to_int<int16_t>(v); }); break;
    case ACL_UINT16: scatter<uint16_t>(src, n, base, offset, [](float v) { return float_to_int<uint16_t>(v); }); break;
    case ACL_INT32: scatter<int32_t>(src, n, base, offset, [](float v) { return float_to_int<int32_t>(v); }); break;
    case ACL_UINT32: scatter<uint32_t>(src, n, base, offset, [](float v) { return float_to_int<uint32_t>(v); }); break;
    case ACL_INT64: scatter<int64_t>(src, n, base, offset, [](float v) { return float_to_int<int64_t>(v); }); break;
    case ACL_UINT64: scatter<uint64_t>(src, n, base, offset, [](float v) { return float_to_int<uint64_t>(v); }); break;
    default: break;
  }
}

void store_int(aclDataType dtype, const int64_t* src, int64_t n, void* base, int64_t offset) {
  auto to = [](auto tag) { return [](int64_t v) { return static_cast<decltype(tag)>(v); }; };
  switch (dtype) {
    case ACL_FLOAT: scatter<float>(src, n, base, offset, to(float())); break;
    case ACL_FLOAT16:
      scatter<uint16_t>(src, n, base, offset, [](int64_t v) { return float_to_half(static_cast<float>(v)); });
      break;
    case ACL_DOUBLE: scatter<double>(src, n, base, offset, to(double())); break;
    case ACL_BOOL: scatter<uint8_t>(src, n, base, offset, [](int64_t v) { return uint8_t(v != 0); }); break;
    case ACL_INT8: scatter<int8_t>(src, n, base, offset, to(int8_t())); break;
    case ACL_UINT8: scatter<uint8_t>(src, n, base, offset, to(uint8_t())); break;
    case ACL_INT16: scatter<int16_t>(src, n, base, offset, to(int16_t())); break;
    case ACL_UINT16: scatter<uint16_t>(src, n, base, offset, to(uint16_t())); break;
    case ACL_INT32: scatter<int32_t>(src, n, base, offset, to(int32_t())); break;
    case ACL_UINT32: scatter<uint32_t>(src, n, base, offset, to(uint32_t())); break;
    case ACL_INT64: std::memmove(static_cast<int64_t*>(base) + offset, src, static_cast<size_t>(n) * 8); break;
    case ACL_UINT64: scatter<uint64_t>(src, n, base, offset, to(uint64_t())); break;
    default: break;
  }
}

int64_t read_index(aclDataType dtype, const void* base, int64_t i) {
  int64_t v = 0;
  load_int(dtype, base, i, 1, 1, &v);
  return v;
}

}  // namespace ascendsim::kernels
