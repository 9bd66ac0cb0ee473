// Conversions between the tensors' dtypes and the float32 / int64 values kernels compute in: float16 (IEEE
// binary16, round to nearest even, overflow to inf) and the strided load / store loops of every dtype.
#pragma once
#include <cstdint>

#include "acl/acl_base.h"

namespace ascendsim::kernels {

// (static: the per-variant loops of simd/ use them too, and an inline function of this namespace emitted out of
// line there would be one copy for the whole library, in that variant's instruction set: see simd/simd.h.)
static inline float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  if (exp == 0) {
    const float f = static_cast<float>(mant) * (1.0f / 16777216.0f);  // subnormal: mant * 2^-24
    return sign ? -f : f;
  }
  const uint32_t bits = exp == 31 ? sign | 0x7f800000u | (mant << 13) : sign | ((exp + 112) << 23) | (mant << 13);
  float f;
  __builtin_memcpy(&f, &bits, 4);
  return f;
}

static inline uint16_t float_to_half(float f) {
  uint32_t x;
  __builtin_memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
  if (a >= 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u | (a > 0x7f800000u ? 0x200u : 0u));
  if (a >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520 rounds to inf
  if (a < 0x38800000u) {                                                 // below 2^-14: subnormal or zero
    float v;
    __builtin_memcpy(&v, &a, 4);
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(__builtin_nearbyintf(v * 16777216.0f)));
  }
  a += 0xfffu + ((a >> 13) & 1u);
  return static_cast<uint16_t>(sign | ((a - 0x38000000u) >> 13));
}

static inline float round_fp16(float f) { return half_to_float(float_to_half(f)); }

// v as int64_t, truncated toward zero like a C cast, but defined for every value: NaN is 0 and values beyond the
// int64 range saturate. A cast of those is undefined and CPUs disagree on it (x86-64's cvttsd2si gives INT64_MIN
// for all of them; aarch64's fcvtzs saturates and makes NaN 0), so a kernel would answer differently per machine.
static inline int64_t to_int64(double v) {
  if (!(v == v)) return 0;
  if (v <= -9.2233720368547758e18) return INT64_MIN;
  if (v >= 9.2233720368547758e18) return INT64_MAX;
  return static_cast<int64_t>(v);
}

// data[i] = round_fp16(data[i]), vectorized (the active variant's row loop).
void round_fp16_inplace(float* data, int64_t n);

// Converts n elements of `dtype` at element offset `offset` with element stride `stride` (0 broadcasts).
void load_float(aclDataType dtype, const void* base, int64_t offset, int64_t stride, int64_t n, float* dst);
void load_int(aclDataType dtype, const void* base, int64_t offset, int64_t stride, int64_t n, int64_t* dst);
void store_float(aclDataType dtype, const float* src, int64_t n, void* base, int64_t offset);
void store_int(aclDataType dtype, const int64_t* src, int64_t n, void* base, int64_t offset);
// Reads element i of an integer tensor (index and shape inputs).
int64_t read_index(aclDataType dtype, const void* base, int64_t i);

}  // namespace ascendsim::kernels
