// exp, erf and tanh on whole vectors (simd.h's vf), for the variants' loops: written with vector operations
// and selects rather than left to the compiler's auto-vectorization, which did not convert their range splits
// into selects for AVX2 (-ftrapping-math) and ran them one float at a time, 13-30x slower than onnxruntime.
// Accuracy: exp ~2 ulp (Cephes' polynomial after a ln 2 range reduction); erf 3.6e-7 absolute, 3.4e-7 relative
// near 0 (a rational fit, below); tanh ~2 ulp (Cephes:
// polynomial below 0.625, 1 - 2 / (e^2x + 1) above). NaN propagates; exp overflows to +inf above ln(FLT_MAX) and
// underflows to 0 below about -87 (true value < 1.7e-38; AVX-512: through the subnormals, to 0 below about
// -103.97, ln 2^-150).
#pragma once
#include "kernels/simd/simd.h"

namespace ascendsim::kernels::ASCENDSIM_ISA_NS {

ASCENDSIM_INLINE vi bits_of(vf v) {
  vi b;
  __builtin_memcpy(&b, &v, sizeof b);
  return b;
}
ASCENDSIM_INLINE vf float_of(vi b) {
  vf v;
  __builtin_memcpy(&v, &b, sizeof v);
  return v;
}
ASCENDSIM_INLINE vf vabs(vf v) { return float_of(bits_of(v) & 0x7fffffff); }
// |magnitude| with the sign of `sign`.
ASCENDSIM_INLINE vf vcopysign(vf magnitude, vf sign) {
  return float_of((bits_of(magnitude) & 0x7fffffff) | (bits_of(sign) & static_cast<int32_t>(0x80000000u)));
}
ASCENDSIM_INLINE vf select(vi mask, vf a, vf b) { return mask ? a : b; }
// Clamp to [lo, hi] in one instruction each where x86's maxps / minps compute exactly `a > b ? a : b` (NaN gives
// the bound: the callers select NaN back at the end). Written with the intrinsics: GCC turned the conditional
// form into a compare and a blend each, two of the four blends that made exp ~2x slower than its arithmetic.
ASCENDSIM_INLINE vf clamp_fast(vf x, float lo, float hi) {
#if defined(__AVX512F__)  // (the masked forms: GCC 12 warns about the undefined pass-through of the plain ones)
  const __m512 v = reinterpret_cast<__m512>(x), l = reinterpret_cast<__m512>(splat(lo)), h = reinterpret_cast<__m512>(splat(hi));
  const __m512 above = _mm512_mask_max_ps(v, 0xffff, v, l);
  return reinterpret_cast<vf>(_mm512_mask_min_ps(above, 0xffff, above, h));
#elif defined(__AVX2__)
  return reinterpret_cast<vf>(_mm256_min_ps(_mm256_max_ps(reinterpret_cast<__m256>(x), _mm256_set1_ps(lo)),
                                            _mm256_set1_ps(hi)));
#else
  const vf above = x > lo ? x : splat(lo);
  return above < hi ? above : splat(hi);
#endif
}

// e^x without the NaN check (a NaN input gives 0). n = round(x / ln 2) by the 1.5 * 2^23 trick (no
// rounding call), r = x - n ln 2 in two parts, e^r by Cephes' polynomial in Horner form, then 2^n * e^r.
// AVX-512 scales in one vscalefps, which rounds into the subnormals and past the top gives +inf itself: x is
// clamped to [-104, 89] only so that an infinite x makes no inf - inf in r (its results between -87.5 and -104
// are subnormal, which some Intel cores multiply slowly). Elsewhere the scale is 2^n built in the exponent
// field: x is clamped to [-87.5, 89], where at -87.5 the scale 2^(n-1) has exponent field 0, i.e. 0.0 (e^x <
// 1.7e-38 flushed to 0), and at 89 the product e^r * 2^128 overflows to +inf exactly where e^x passes FLT_MAX. (vscalefps and Horner's form took exp from 2.3 to 1.8 ns per 16 floats on a Zen 5, SiLU from 2.75 to
// 2.3: the built scale and Cephes' p r^2 + r + 1 had cost 6 of its 19 operations.)
ASCENDSIM_INLINE vf vexp_no_nan(vf x) {
#if defined(__AVX512F__)
  const vf xc = clamp_fast(x, -104.0f, 89.0f);
#else
  const vf xc = clamp_fast(x, -87.5f, 89.0f);
#endif
  const vf n = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  const vf r = xc - n * 0.693359375f - n * -2.12194440e-4f;
  vf p = splat(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
#if defined(__AVX512F__)
  const __m512 mantissa = reinterpret_cast<__m512>(p);  // (the masked form, as clamp_fast's)
  return reinterpret_cast<vf>(_mm512_mask_scalef_ps(mantissa, 0xffff, mantissa, reinterpret_cast<__m512>(n)));
#else
  // 2^(n-1) * 2: n = 128 (x near ln(FLT_MAX)) stays a finite scale.
  const vf scale = float_of((__builtin_convertvector(n, vi) + 126) << 23);
  return p * scale * 2.0f;
#endif
}

ASCENDSIM_INLINE vf vexp(vf x) { return select(x != x, x, vexp_no_nan(x)); }

// 1 / (1 + e^-x), and x / (1 + e^-x) (SiLU: a NaN x carries through the division, so it needs no check).
ASCENDSIM_INLINE vf vsigmoid(vf x) { return select(x != x, x, 1.0f / (1.0f + vexp_no_nan(-x))); }
ASCENDSIM_INLINE vf vsilu(vf x) { return x / (1.0f + vexp_no_nan(-x)); }

// x P(x^2) / Q(x^2), P and Q of degree 5, fitted for this file on [0, 4] (reweighted least squares against
// float64 erf; beyond 4 erf rounds to 1 in float32). One division and no exp: the earlier form, a Taylor series
// below 0.5 and 1 - erfc above (both computed for every vector, with an exp and two divisions), took 1.7 ns per
// float on a Zen 3 (AVX2), this 0.43 (Gelu: 1.8 -> 0.56).
ASCENDSIM_INLINE vf verf(vf x) {
  const vf xc = clamp_fast(x, -4.0f, 4.0f), z = xc * xc;
  vf p = splat(1.9750127648876514e-06f);
  p = p * z + 2.8803560417145490e-04f;
  p = p * z + 4.0031112730503080e-03f;
  p = p * z + 5.3465846925973890e-02f;
  p = p * z + 1.9623567163944244e-01f;
  p = p * z + 1.1283789873123170f;
  vf q = splat(3.7482455809367820e-05f);
  q = q * z + 1.2162418570369482e-03f;
  q = q * z + 1.5443345531821251e-02f;
  q = q * z + 1.1647104471921921e-01f;
  q = q * z + 5.0724047422409060e-01f;
  q = q * z + 1.0f;
  return select(x != x, x, clamp_fast(xc * p / q, -1.0f, 1.0f));
}

ASCENDSIM_INLINE vf vtanh(vf x) {
  const vf a = vabs(x), z = x * x;
  vf p = splat(-5.70498872745e-3f);
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const vf small = p * z * x + x;
  const vf large = vcopysign(1.0f - 2.0f / (vexp(2.0f * a) + 1.0f), x);
  const vf result = select(a < 0.625f, small, large);
  return select(x != x, x, result);
}

}  // namespace ascendsim::kernels::ASCENDSIM_ISA_NS
