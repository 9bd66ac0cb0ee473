// AscendC::printf / PRINTF, DumpTensor, ascendc_assert and Trap. Output of concurrent blocks is serialised line
// by line; printf's %d and friends take their argument as the host printf does, with 16-bit floats promoted to
// double. A failed assertion or a Trap faults the block like a hardware check.
#pragma once
#include <cstdio>
#include <type_traits>

#include "ascendc/kernel_tensor.h"

namespace AscendC {
namespace ascendsim_detail {
template <typename A>
inline auto printable(A a) {
  if constexpr (std::is_same_v<A, half> || std::is_same_v<A, bfloat16_t>)
    return static_cast<double>(static_cast<float>(a));
  else
    return a;
}
struct PrintLock {
  PrintLock() { ascendsimKernelPrintLock(1); }
  ~PrintLock() { ascendsimKernelPrintLock(0); }
};
}  // namespace ascendsim_detail

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-security"
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
template <typename... Args>
__aicore__ inline void printf(const char* fmt, Args... args) {
  ascendsim_detail::PrintLock lock;
  if constexpr (sizeof...(Args) == 0)
    std::fputs(fmt, stdout);
  else
    std::printf(fmt, ascendsim_detail::printable(args)...);
  std::fflush(stdout);
}
#pragma GCC diagnostic pop

template <typename T>
__aicore__ inline void DumpTensor(const LocalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize) {
  ascendsim_detail::PrintLock lock;
  std::printf("DumpTensor: desc=%u, addr=%llu, data_type=%zu bytes, position=%d\n[", desc,
              static_cast<unsigned long long>(ascendsim_detail::ub_offset(tensor.data())), sizeof(T),
              static_cast<int>(tensor.GetPosition()));
  const uint32_t n = dumpSize < tensor.GetSize() ? dumpSize : tensor.GetSize();
  for (uint32_t i = 0; i < n; ++i)
    std::printf(i + 1 < n ? "%g, " : "%g", static_cast<double>(static_cast<float>(tensor.data()[i])));
  std::printf("]\n");
  std::fflush(stdout);
}
template <typename T>
__aicore__ inline void DumpTensor(const GlobalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize) {
  ascendsim_detail::check_global("DumpTensor", tensor.data(), dumpSize * sizeof(T), false);
  ascendsim_detail::PrintLock lock;
  std::printf("DumpTensor: desc=%u, addr=%p, data_type=%zu bytes, position=GM\n[", desc,
              static_cast<const void*>(tensor.data()), sizeof(T));
  for (uint32_t i = 0; i < dumpSize; ++i)
    std::printf(i + 1 < dumpSize ? "%g, " : "%g", static_cast<double>(static_cast<float>(tensor.data()[i])));
  std::printf("]\n");
  std::fflush(stdout);
}

__aicore__ inline void Trap() { ascendsim_detail::fault("Trap", "the kernel trapped"); }

}  // namespace AscendC

#define PRINTF AscendC::printf
#define ascendc_assert(expr, ...)                                                                          \
  do {                                                                                                     \
    if (!(expr)) ::AscendC::ascendsim_detail::fault("ascendc_assert", "[ASSERT] %s:%d: Assertion `%s'", __FILE__, \
                                                    __LINE__, #expr);                                      \
  } while (0)
