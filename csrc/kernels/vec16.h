// 16-float vectors for the hand-vectorized kernels (GCC vector extensions): one AVX-512 register in the
// x86-64-v4 clone of an ASCENDSIM_VECTOR_CLONES function, two AVX2 registers in the v3 clone, four SSE
// registers in the default one. Loads and stores go through memcpy (unaligned, no aliasing assumptions), and
// the helpers are macros: a function taking or returning a vector outside the per-ISA clones would fix its
// ABI to the baseline instruction set.
#pragma once

namespace ascendsim::kernels {

constexpr long kLanes = 16;
constexpr long kL1Floats = 8192;  // floats in a 32 KiB L1 data cache (the prefetch decisions' yardstick)
using v16 = float __attribute__((vector_size(64)));
using i16 = int __attribute__((vector_size(64)));

}  // namespace ascendsim::kernels

#define ASCENDSIM_LOAD16(v, p) __builtin_memcpy(&(v), (p), sizeof(::ascendsim::kernels::v16))
#define ASCENDSIM_STORE16(p, v) __builtin_memcpy((p), &(v), sizeof(::ascendsim::kernels::v16))
// The first n (<= 16) floats at p into v, its other lanes zero; and the first n lanes of v to p. A whole
// vector is one plain load or store (a copy of variable length is a library call).
#define ASCENDSIM_LOAD_FIRST(v, p, n)                                                           \
  do {                                                                                          \
    if ((n) == ::ascendsim::kernels::kLanes) {                                                  \
      ASCENDSIM_LOAD16(v, p);                                                                   \
    } else {                                                                                    \
      (v) = ::ascendsim::kernels::v16{};                                                        \
      __builtin_memcpy(&(v), (p), sizeof(float) * static_cast<unsigned long>(n));              \
    }                                                                                           \
  } while (0)
#define ASCENDSIM_STORE_FIRST(p, v, n)                                                          \
  do {                                                                                          \
    if ((n) == ::ascendsim::kernels::kLanes) {                                                  \
      ASCENDSIM_STORE16(p, v);                                                                  \
    } else {                                                                                    \
      __builtin_memcpy((p), &(v), sizeof(float) * static_cast<unsigned long>(n));              \
    }                                                                                           \
  } while (0)
// The even elements of vectors a and b taken as 32 floats (a[0], a[2], ..., b[14]).
#define ASCENDSIM_EVENS_OF(out, a, b) \
  (out) = __builtin_shuffle((a), (b), ::ascendsim::kernels::i16{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30})
// The even elements of the 32 floats at p (p[0], p[2], ..., p[30]): a stride-2 row in one shuffle.
#define ASCENDSIM_EVENS16(out, p)                   \
  do {                                              \
    ::ascendsim::kernels::v16 evens_lo_, evens_hi_; \
    ASCENDSIM_LOAD16(evens_lo_, (p));               \
    ASCENDSIM_LOAD16(evens_hi_, (p) + 16);          \
    ASCENDSIM_EVENS_OF(out, evens_lo_, evens_hi_);  \
  } while (0)
