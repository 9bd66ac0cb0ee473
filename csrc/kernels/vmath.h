// Float exp, erf and tanh written so that loops calling them vectorize (no library calls, no branches:
// both sides of a range split are computed and one is selected). glibc's expf/erff/tanhf are scalar calls
// here (its vector variants need -ffast-math and libmvec), which made Softmax, Gelu, Sigmoid and Tanh
// 10-20x slower than onnxruntime's. Accuracy: exp ~2 ulp (Cephes' polynomial after a ln 2 range reduction);
// erf ~2e-7 absolute, ~1e-7 relative near 0 (Taylor series below 0.5, 1 - erfc above with Numerical
// Recipes' erfc);
// tanh ~2 ulp (Cephes: polynomial below 0.625, 1 - 2 / (e^2x + 1) above). NaN propagates; exp underflows
// to 0 below -86.5 (true value < 3e-38) and overflows to +inf above ln(FLT_MAX).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

// Always inlined: an out-of-line call inside a loop stops its vectorization.
#if defined(__GNUC__)
#define ASCENDSIM_VMATH_INLINE inline __attribute__((always_inline))
#else
#define ASCENDSIM_VMATH_INLINE inline
#endif

namespace ascendsim::kernels {

ASCENDSIM_VMATH_INLINE float vexp(float x) {
  const float xc = std::min(std::max(x, -86.5f), 88.72283f);
  // n = round(x / ln 2) by the 1.5 * 2^23 trick (no rounding call), r = x - n ln 2 in two parts.
  const float n = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  const float r = xc - n * 0.693359375f - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float e = p * r * r + r + 1.0f;
  // 2^(n-1) * 2: n = 128 (x just below ln(FLT_MAX)) stays finite.
  const int32_t bits = (static_cast<int32_t>(n) + 126) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  float result = e * scale * 2.0f;
  result = x < -86.5f ? 0.0f : result;
  result = x > 88.72283f ? std::numeric_limits<float>::infinity() : result;
  return x != x ? x : result;
}

ASCENDSIM_VMATH_INLINE float verf(float x) {
  const float a = std::fabs(x), z = x * x;
  float small = 1.20553306e-4f;  // 2/sqrt(pi) * (-1)^k / (k! (2k+1)), k = 6 down to 0
  small = small * z - 8.54832702e-4f;
  small = small * z + 5.22397762e-3f;
  small = small * z - 2.68661706e-2f;
  small = small * z + 1.12837917e-1f;
  small = small * z - 3.76126389e-1f;
  small = (small * z + 1.12837917f) * x;
  // erfc(a) = t exp(-a^2 + P(t)), t = 1 / (1 + a/2): Numerical Recipes' Chebyshev fit, relative error < 1.2e-7.
  const float t = 1.0f / (1.0f + 0.5f * a);
  float p = 0.17087277f;
  p = p * t - 0.82215223f;
  p = p * t + 1.48851587f;
  p = p * t - 1.13520398f;
  p = p * t + 0.27886807f;
  p = p * t - 0.18628806f;
  p = p * t + 0.09678418f;
  p = p * t + 0.37409196f;
  p = p * t + 1.00002368f;
  p = p * t - 1.26551223f;
  const float large = 1.0f - t * vexp(p - z);
  const float result = a < 0.5f ? small : std::copysign(large, x);
  return x != x ? x : result;
}

ASCENDSIM_VMATH_INLINE float vtanh(float x) {
  const float a = std::fabs(x), z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const float small = p * z * x + x;
  const float large = std::copysign(1.0f - 2.0f / (vexp(2.0f * a) + 1.0f), x);
  const float result = a < 0.625f ? small : large;
  return x != x ? x : result;
}

}  // namespace ascendsim::kernels
