// Picks the kernel variant (see isa.h) once per process: the highest of ASCENDSIM_FOR_EACH_ISA's list that the
// CPU runs (x86: the CPUID features, with the operating system's support for the wide registers, that
// simd/variants.txt compiles the variant for), unless ASCENDSIM_ISA names another. A name that is not a
// variant of this build, or one the CPU cannot run, is reported on stderr and the best variant is used.
#include "kernels/isa.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/log.h"

namespace ascendsim::kernels {
namespace {

#define ASCENDSIM_ISA_NAME_(isa, unused) #isa,
constexpr const char* kIsaNames[] = {ASCENDSIM_FOR_EACH_ISA(ASCENDSIM_ISA_NAME_, unused)};
#undef ASCENDSIM_ISA_NAME_
constexpr int kIsaCount = static_cast<int>(sizeof kIsaNames / sizeof kIsaNames[0]);

bool cpu_runs(const char* name) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                    __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("f16c");
  if (std::strcmp(name, "avx2") == 0) return avx2;
  if (std::strcmp(name, "avx512") == 0)
    return avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#endif
  (void)name;
  return true;  // the architecture's first variant needs nothing beyond it
}

int best_isa() {
  int best = 0;
  for (int i = 0; i < kIsaCount; ++i)
    if (cpu_runs(kIsaNames[i])) best = i;
  return best;
}

std::string variant_list() {
  std::string list;
  for (int i = 0; i < kIsaCount; ++i) list += std::string(i > 0 ? ", " : "") + kIsaNames[i];
  return list;
}

int choose_isa() {
  const int best = best_isa();
  const char* wanted = std::getenv("ASCENDSIM_ISA");
  if (wanted == nullptr || wanted[0] == '\0') {
    log(kLogInfo, "KERNELS", "kernel variant %s (the best this CPU runs)", kIsaNames[best]);
    return best;
  }
  for (int i = 0; i < kIsaCount; ++i) {
    if (std::strcmp(wanted, kIsaNames[i]) != 0) continue;
    if (i <= best) {
      log(kLogInfo, "KERNELS", "kernel variant %s (ASCENDSIM_ISA; the best this CPU runs: %s)", kIsaNames[i],
          kIsaNames[best]);
      return i;
    }
    std::fprintf(stderr, "[ascendsim] ASCENDSIM_ISA=%s: this CPU cannot run that variant; using %s\n", wanted,
                 kIsaNames[best]);
    return best;
  }
  std::fprintf(stderr, "[ascendsim] ASCENDSIM_ISA=%s is not a kernel variant of this build (%s); using %s\n", wanted,
               variant_list().c_str(), kIsaNames[best]);
  return best;
}

}  // namespace

int active_isa() {
  static const int chosen = choose_isa();
  return chosen;
}

const char* active_isa_name() { return kIsaNames[active_isa()]; }

std::vector<std::string> runnable_isas() {
  std::vector<std::string> names;
  for (int i = 0; i <= best_isa(); ++i) names.emplace_back(kIsaNames[i]);
  return names;
}

}  // namespace ascendsim::kernels
