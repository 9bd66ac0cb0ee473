// CANN's CPU-debug mode on ascendsim: a program built with the host compiler and -DASCENDC_CPU_DEBUG (older
// sources: -D__CCE_KT_TEST__) allocates global memory with AscendC::GmAlloc, runs a kernel with
// ICPU_RUN_KF(kernel, blockDim, args...) and links libascendcl. The blocks run concurrently on the emulator's
// thread pool, each with its own unified buffer; a block that faults is reported on stderr with its kernel,
// block index, API and address, and the program exits with status 1, as CANN's checker stops the run.
#ifndef ASCENDSIM_TIKICPULIB_H_
#define ASCENDSIM_TIKICPULIB_H_

#include <cstdio>
#include <cstdlib>

#include "acl/acl.h"
#include "kernel_operator.h"

namespace AscendC {

inline void* GmAlloc(size_t size) { return ascendsimGmAlloc(size); }
inline void GmFree(void* ptr) {
  if (ascendsimGmFree(ptr) != ACL_SUCCESS) {
    std::fprintf(stderr, "[ERROR] %s\n", aclGetRecentErrMsg());
    std::exit(EXIT_FAILURE);
  }
}

namespace ascendsim_detail {
template <typename... P, typename... A>
inline void cpu_run(void (*fn)(P...), const char* name, uint32_t block_dim, A&&... args) {
  const ascendsimKernel kernel = describe(fn, name);
  const std::vector<uint8_t> bytes = pack(fn, std::forward<A>(args)...);
  if (ascendsimKernelRun(&kernel, block_dim, bytes.data(), bytes.size(), cpu_tiling_key()) != ACL_SUCCESS) {
    std::fprintf(stderr, "[ERROR] %s\n", aclGetRecentErrMsg());
    std::exit(EXIT_FAILURE);
  }
}
}  // namespace ascendsim_detail
}  // namespace AscendC

#define ICPU_RUN_KF(kernel, blockDim, ...) \
  ::AscendC::ascendsim_detail::cpu_run(kernel, #kernel, blockDim, ##__VA_ARGS__)
#define ICPU_SET_TILING_KEY(key) (::AscendC::ascendsim_detail::cpu_tiling_key() = static_cast<int32_t>(key))

#endif  // ASCENDSIM_TIKICPULIB_H_
