// The instruction-set variants of the hot kernels (docs/kernels.md). Every csrc/kernels/simd/*.cpp is compiled
// once per variant of the target architecture (flags in simd/variants.txt) into namespace isa_<name>, where its
// register tiles are sized for that variant's vector width and register count; each such file defines a table
// of function pointers (simd/*.h). One variant serves the whole process, chosen at the first kernel build: the
// best one the CPU runs, or the one ASCENDSIM_ISA names (a lower one, to test or compare it).
#pragma once
#include <string>
#include <vector>

// The variants of this architecture, lowest first (the names of simd/variants.txt).
#if defined(__x86_64__)
#define ASCENDSIM_FOR_EACH_ISA(M, ...) M(baseline, __VA_ARGS__) M(avx2, __VA_ARGS__) M(avx512, __VA_ARGS__)
#elif defined(__aarch64__)
#define ASCENDSIM_FOR_EACH_ISA(M, ...) M(neon, __VA_ARGS__)
#else
#define ASCENDSIM_FOR_EACH_ISA(M, ...) M(generic, __VA_ARGS__)
#endif

namespace ascendsim::kernels {

// Index of the active variant in ASCENDSIM_FOR_EACH_ISA's list, and its name.
int active_isa();
const char* active_isa_name();
// The variants this CPU can run, lowest first.
std::vector<std::string> runnable_isas();

}  // namespace ascendsim::kernels

// Defines `const T& name()`, the table `name_table` of the active variant (each simd/*.cpp defines its own in
// namespace isa_<variant>). Used once per table, in isa_tables.cpp.
#define ASCENDSIM_DECLARE_ISA_TABLE_(isa, T, name) \
  namespace isa_##isa {                            \
  extern const T name##_table;                     \
  }
#define ASCENDSIM_ISA_TABLE_ADDRESS_(isa, T, name) &isa_##isa::name##_table,
#define ASCENDSIM_ISA_TABLE_ACCESSOR(T, name)                                                        \
  ASCENDSIM_FOR_EACH_ISA(ASCENDSIM_DECLARE_ISA_TABLE_, T, name)                                      \
  const T& name() {                                                                                  \
    static const T* const tables[] = {ASCENDSIM_FOR_EACH_ISA(ASCENDSIM_ISA_TABLE_ADDRESS_, T, name)}; \
    static const T* const active = tables[active_isa()];                                            \
    return *active;                                                                                  \
  }
