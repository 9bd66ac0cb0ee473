// The vector type of one kernel variant (see kernels/isa.h), for the files of this folder: each is compiled
// once per variant with that variant's flags and -DASCENDSIM_ISA=<name>, and puts everything it defines in
// namespace ASCENDSIM_ISA_NS (isa_<name>).
//
// `vf` is one hardware vector of kW floats: 16 with AVX-512 (32 registers), 8 with AVX2 (16 registers), 4 with
// SSE2 (16) or NEON (32). Register tiles are sized from kW and kRegisters, so that a tile's accumulators,
// operands and broadcasts fit in the register file without spilling (docs/kernels.md says how to check).
//
// Rule of this folder: nothing here may define a symbol outside the variant's namespace, or the linker could
// pick another variant's copy of it (an AVX-512 std::min in the baseline code). So these files include no C++
// library headers with templates or inline functions to instantiate, only C headers and kernels/ headers of
// plain declarations; the build checks every object's symbols (cmake/check_isa_symbols.cmake).
#pragma once
#include <cstdint>

#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>  // masked loads and stores (its functions are always inlined: no symbols of their own)
#endif

#include "kernels/layout.h"

#if !defined(ASCENDSIM_ISA)
#error "csrc/kernels/simd/*.cpp are compiled once per variant with -DASCENDSIM_ISA=<name> (simd/variants.txt)"
#endif
#define ASCENDSIM_ISA_CAT2_(a, b) a##b
#define ASCENDSIM_ISA_CAT_(a, b) ASCENDSIM_ISA_CAT2_(a, b)
#define ASCENDSIM_ISA_NS ASCENDSIM_ISA_CAT_(isa_, ASCENDSIM_ISA)

#define ASCENDSIM_INLINE inline __attribute__((always_inline))
// Before every loop over a register tile's fixed extents (its pixels or rows, blocks or panels, vectors): GCC then
// unrolls them before it decides which arrays live in registers. Without it a tile's accumulator array stayed in
// memory, copied into registers before each loop over the sum and back after it (the AVX-512 6 x 64 conv tile: 24
// vector stores and loads on entry and on exit; a 16 -> 64 1x1 conv on 112x112 151 -> 117 us, Zen 5).
#define ASCENDSIM_UNROLL_TILE _Pragma("GCC unroll 16")
// A register tile kept a function of its own: scheduled alone, and found by name by tests/spill_check.py.
#define ASCENDSIM_TILE __attribute__((noinline))

namespace ascendsim::kernels::ASCENDSIM_ISA_NS {

#if defined(__AVX512F__)
constexpr int kW = 16;
constexpr int kRegisters = 32;
#elif defined(__AVX2__) && defined(__FMA__)
constexpr int kW = 8;
constexpr int kRegisters = 16;
#elif defined(__aarch64__)
constexpr int kW = 4;
constexpr int kRegisters = 32;
#else  // SSE2 (every x86-64), or a target whose vectors GCC emulates
constexpr int kW = 4;
constexpr int kRegisters = 16;
#endif
constexpr int kU = static_cast<int>(kUnit) / kW;  // vectors per 16-float layout unit
#if defined(__FMA__) || defined(__aarch64__)
constexpr bool kFma = true;  // a multiply-add is one instruction (without, the product needs a register)
#else
constexpr bool kFma = false;
#endif

using vf = float __attribute__((vector_size(kW * sizeof(float))));
using vi = int32_t __attribute__((vector_size(kW * sizeof(int32_t))));

// Loads and stores through memcpy: unaligned, without aliasing assumptions.
ASCENDSIM_INLINE vf load(const float* p) {
  vf v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
ASCENDSIM_INLINE void store(float* p, vf v) { __builtin_memcpy(p, &v, sizeof v); }
ASCENDSIM_INLINE vf splat(float x) { return vf{} + x; }
// The first n (<= kW) floats at p, the other lanes zero; and the first n lanes to p. Masked loads and stores
// where the instruction set has them; elsewhere lane by lane with constant lane numbers (inserts and extracts
// rather than a trip through the stack).
ASCENDSIM_INLINE vf load_first(const float* p, int64_t n) {
  if (n == kW) return load(p);
#if defined(__AVX512F__)
  return reinterpret_cast<vf>(_mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << n) - 1), p));
#elif defined(__AVX2__)
  const vi lanes = {0, 1, 2, 3, 4, 5, 6, 7};
  return reinterpret_cast<vf>(_mm256_maskload_ps(p, reinterpret_cast<__m256i>(lanes < static_cast<int32_t>(n))));
#else
  vf v = {};
  for (int l = 0; l < kW; ++l)
    if (l < n) v[l] = p[l];
  return v;
#endif
}
ASCENDSIM_INLINE void store_first(float* p, vf v, int64_t n) {
  if (n == kW) {
    store(p, v);
    return;
  }
#if defined(__AVX512F__)
  _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << n) - 1), reinterpret_cast<__m512>(v));
#elif defined(__AVX2__)
  const vi lanes = {0, 1, 2, 3, 4, 5, 6, 7};
  _mm256_maskstore_ps(p, reinterpret_cast<__m256i>(lanes < static_cast<int32_t>(n)), reinterpret_cast<__m256>(v));
#else
  for (int l = 0; l < kW; ++l)
    if (l < n) p[l] = v[l];
#endif
}
// Lane-wise min / max with std::min / std::max's choice on NaN (the first operand unless the comparison holds).
ASCENDSIM_INLINE vf vmax(vf a, vf b) { return a < b ? b : a; }
ASCENDSIM_INLINE vf vmin(vf a, vf b) { return b < a ? b : a; }
ASCENDSIM_INLINE vf clamp(vf v, vf lo, vf hi) { return vmin(vmax(v, lo), hi); }
ASCENDSIM_INLINE float fmax_(float a, float b) { return a < b ? b : a; }
ASCENDSIM_INLINE float fmin_(float a, float b) { return b < a ? b : a; }
ASCENDSIM_INLINE int64_t imin(int64_t a, int64_t b) { return b < a ? b : a; }
ASCENDSIM_INLINE int64_t imax(int64_t a, int64_t b) { return a < b ? b : a; }
// v in its first n lanes (n <= kW), `other` in the rest.
ASCENDSIM_INLINE vf first_lanes(vf v, int64_t n, vf other) {
  vi lane;
  for (int l = 0; l < kW; ++l) lane[l] = l;
  return lane < static_cast<int32_t>(n) ? v : other;
}

// Two vectors a, b taken as 2 kW floats: their even elements (a[0], a[2], ..., b[kW - 2]) and odd ones.
#if defined(__clang__)
#define ASCENDSIM_SHUFFLE2_(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
#define ASCENDSIM_SHUFFLE2_(a, b, ...) __builtin_shuffle(a, b, vi{__VA_ARGS__})
#endif
#if defined(__AVX512F__)
#define ASCENDSIM_EVENS_ 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30
#define ASCENDSIM_ODDS_ 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31
#define ASCENDSIM_LOW_HALVES_ 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23
#define ASCENDSIM_HIGH_HALVES_ 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31
#elif defined(__AVX2__) && defined(__FMA__)
#define ASCENDSIM_EVENS_ 0, 2, 4, 6, 8, 10, 12, 14
#define ASCENDSIM_ODDS_ 1, 3, 5, 7, 9, 11, 13, 15
#define ASCENDSIM_LOW_HALVES_ 0, 8, 1, 9, 2, 10, 3, 11
#define ASCENDSIM_HIGH_HALVES_ 4, 12, 5, 13, 6, 14, 7, 15
#else
#define ASCENDSIM_EVENS_ 0, 2, 4, 6
#define ASCENDSIM_ODDS_ 1, 3, 5, 7
#define ASCENDSIM_LOW_HALVES_ 0, 4, 1, 5
#define ASCENDSIM_HIGH_HALVES_ 2, 6, 3, 7
#endif
ASCENDSIM_INLINE vf evens(vf a, vf b) { return ASCENDSIM_SHUFFLE2_(a, b, ASCENDSIM_EVENS_); }
ASCENDSIM_INLINE vf odds(vf a, vf b) { return ASCENDSIM_SHUFFLE2_(a, b, ASCENDSIM_ODDS_); }
// The even elements of the 2 kW floats at p: a stride-2 row in one shuffle.
ASCENDSIM_INLINE vf load_evens(const float* p) { return evens(load(p), load(p + kW)); }
// The lanes of a and b interleaved (a[0], b[0], a[1], b[1], ...): the first kW of them, and the last kW.
ASCENDSIM_INLINE vf interleave_low(vf a, vf b) { return ASCENDSIM_SHUFFLE2_(a, b, ASCENDSIM_LOW_HALVES_); }
ASCENDSIM_INLINE vf interleave_high(vf a, vf b) { return ASCENDSIM_SHUFFLE2_(a, b, ASCENDSIM_HIGH_HALVES_); }

// The lanes of v reduced by `op` (a max or a sum, on vectors of any width): the vector's 128-bit quarters in a tree,
// then two shuffles. A chain of 15 scalar ops per reduction had cost a 197-value softmax row as much as its exps.
using Quad = float __attribute__((vector_size(16)));
// Lanes i, j, k, l of the 8 of a and b, 4-lane vectors (GCC and Clang spell the shuffle differently).
#if defined(__clang__)
#define ASCENDSIM_SHUFFLE4_(a, b, i, j, k, l) __builtin_shufflevector(a, b, i, j, k, l)
#else
using lane_mask4 = int32_t __attribute__((vector_size(16)));
#define ASCENDSIM_SHUFFLE4_(a, b, i, j, k, l) __builtin_shuffle(a, b, lane_mask4{i, j, k, l})
#endif
template <class Op>
ASCENDSIM_INLINE float reduce_lanes(vf v, Op op) {
  constexpr int kQuads = kW / 4;
  Quad q[kQuads];
  __builtin_memcpy(q, &v, sizeof v);
  ASCENDSIM_UNROLL_TILE
  for (int width = kQuads / 2; width >= 1; width /= 2)
    ASCENDSIM_UNROLL_TILE
    for (int i = 0; i < width; ++i) q[i] = op(q[i], q[i + width]);
  Quad r = op(q[0], ASCENDSIM_SHUFFLE4_(q[0], q[0], 2, 3, 0, 1));
  r = op(r, ASCENDSIM_SHUFFLE4_(r, r, 1, 0, 3, 2));
  return r[0];
}
constexpr auto kMaxOf = [](auto a, auto b) { return a < b ? b : a; };  // as vmax, lane by lane
constexpr auto kSumOf = [](auto a, auto b) { return a + b; };

}  // namespace ascendsim::kernels::ASCENDSIM_ISA_NS
