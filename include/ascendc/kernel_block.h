// The block a kernel runs as, and how it faults. The library hands each block an ascendsimBlock (index,
// count, unified buffer) and the launch glue (kernel_launch.h) makes it this thread's current block. A check
// that fails (kernel_check.h) throws a Fault naming the kernel, the block, the API and the address; the
// glue catches it at the kernel's boundary and the launch fails with the SoC's AI Core exception code.
#pragma once
#include <cstdarg>
#include <cstdio>
#include <string>

#include "ascendc/kernel_types.h"
#include "ascendsim/ascendc_abi.h"

namespace AscendC {
class TPipe;

namespace ascendsim_detail {

struct Fault {
  aclError code;
  std::string message;
};

// What one block keeps besides its unified buffer: the SetFlag state of every event id, the vector mask
// (SetVectorMask / SetMaskCount), the pipe, the UB bump pointer of TPipe::InitBuffer.
struct BlockState {
  const ascendsimBlock* block = nullptr;
  uint8_t flags[static_cast<int>(HardEvent::MAX)] = {};  // bit id set: SetFlag<event>(id) not yet waited
  uint64_t mask[2] = {~0ull, ~0ull};
  bool counter_mode = false;
  TPipe* pipe = nullptr;
  size_t ub_used = 0;
  uint32_t buffers = 0;  // buffers carved by InitBuffer (CANN's limit: 64)
};

inline thread_local BlockState tls_state;

inline BlockState& state() { return tls_state; }

// A kernel called outside a launch (plain host code) still runs: block 0 of 1, with no unified buffer.
inline const ascendsimBlock& block() {
  static const ascendsimBlock none{0, 1, nullptr, 0, "(no launch)", 0, ACL_ERROR_RT_VECTOR_CORE_EXCEPTION, nullptr};
  return tls_state.block != nullptr ? *tls_state.block : none;
}

[[noreturn]] inline void fault(const char* api, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
[[noreturn]] inline void fault(const char* api, const char* fmt, ...) {
  char detail[768];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(detail, sizeof detail, fmt, args);
  va_end(args);
  const ascendsimBlock& b = block();
  char message[1024];
  std::snprintf(message, sizeof message, "kernel %s, block %u of %u: %s: %s", b.kernel, b.index, b.count, api, detail);
  throw Fault{b.fault_code, message};
}

// GM accesses must lie in one live global-memory allocation (aclrtMalloc or GmAlloc); writes are recorded for
// the check that no two blocks of a launch write the same bytes.
inline void check_global(const char* api, const void* addr, size_t bytes, bool write) {
  char what[256];
  if (bytes == 0 || ascendsimGlobalMemoryCheck(tls_state.block, api, addr, bytes, write ? 1 : 0, what, sizeof what) != 0)
    return;
  fault(api, "%s %zu bytes of global memory at %p: %s", write ? "writes" : "reads", bytes, addr, what);
}

}  // namespace ascendsim_detail

__aicore__ inline int64_t GetBlockIdx() { return ascendsim_detail::block().index; }
__aicore__ inline int64_t GetBlockNum() { return ascendsim_detail::block().count; }
__aicore__ inline int64_t GetSubBlockIdx() { return 0; }
__aicore__ inline int64_t GetTaskRatio() { return 1; }

}  // namespace AscendC
