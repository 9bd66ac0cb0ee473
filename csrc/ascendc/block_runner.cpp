#include "ascendc/block_runner.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "acl/error_codes/rt_error_codes.h"
#include "ascendc/soc_spec.h"
#include "ascendc/write_log.h"
#include "core/error.h"
#include "kernels/thread_pool.h"

namespace ascendsim::ascendc {
namespace {

constexpr uint32_t kMaxBlockDim = 65535;

// This thread's unified buffer, reused by every block it runs (contents are undefined on the device too).
uint8_t* unified_buffer(size_t size) {
  struct Buffer {
    uint8_t* data = nullptr;
    ~Buffer() { std::free(data); }
  };
  thread_local Buffer buffer;
  if (buffer.data == nullptr) buffer.data = static_cast<uint8_t*>(std::aligned_alloc(64, size));
  return buffer.data;
}

}  // namespace

KernelRef::KernelRef(const ascendsimKernel& k, std::shared_ptr<const void> owner)
    : kernel(k), name(k.name != nullptr ? k.name : "(unnamed)"), keep(std::move(owner)) {
  kernel.name = name.c_str();
}

KernelRef::KernelRef(const KernelRef& other) : kernel(other.kernel), name(other.name), keep(other.keep) {
  kernel.name = name.c_str();
}

aclError check_launch(const char* api, const ascendsimKernel& kernel, uint32_t block_dim, const void* args,
                      size_t args_size) {
  if (kernel.abi_version != ASCENDSIM_ASCENDC_ABI_VERSION)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: kernel %s was built for Ascend C ABI %u, this runtime has %u: rebuild it",
                api, kernel.name, kernel.abi_version, ASCENDSIM_ASCENDC_ABI_VERSION);
  if (block_dim == 0 || block_dim > kMaxBlockDim)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: blockDim %u of kernel %s is outside [1, %u]", api, block_dim, kernel.name,
                kMaxBlockDim);
  if (args_size < kernel.args_size)
    return fail(ACL_ERROR_INVALID_PARAM,
                "%s: argsSize %zu is smaller than the %zu bytes the parameters of kernel %s take (packed in order, "
                "each aligned to its own alignment)", api, args_size, kernel.args_size, kernel.name);
  if (args == nullptr && kernel.args_size != 0)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: argsData is NULL, kernel %s takes %zu bytes of arguments", api,
                kernel.name, kernel.args_size);
  return ACL_SUCCESS;
}

aclError run_blocks(const KernelRef& ref, uint32_t block_dim, const void* args, int32_t tiling_key) {
  const SocSpec& soc = current_soc();
  std::mutex mutex;
  uint32_t failed_block = block_dim;
  aclError failed_code = ACL_SUCCESS;
  std::string failed_message;
  WriteLog writes(block_dim);
  kernels::parallel_for(block_dim, 1, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      uint8_t* ub = unified_buffer(soc.ub_size);
      if (ub == nullptr) {
        std::lock_guard<std::mutex> lock(mutex);
        failed_code = ACL_ERROR_RT_MEMORY_ALLOCATION;
        failed_message = "out of host memory for a unified buffer";
        failed_block = 0;
        return;
      }
      const ascendsimBlock block{static_cast<uint32_t>(b), block_dim, ub, soc.ub_size, ref.kernel.name, tiling_key,
                                 soc.fault_code, &writes};
      char message[1024] = {0};
      const aclError code = ref.kernel.entry(&ref.kernel, args, &block, message, sizeof message);
      if (code == ACL_SUCCESS) continue;
      std::lock_guard<std::mutex> lock(mutex);
      if (static_cast<uint32_t>(b) < failed_block) {
        failed_block = static_cast<uint32_t>(b);
        failed_code = code;
        failed_message = message;
      }
    }
  });
  if (failed_code == ACL_SUCCESS) {
    WriteLog::Conflict c;
    if (!writes.conflict(&c)) return ACL_SUCCESS;
    char message[1024];
    std::snprintf(message, sizeof message,
                  "kernel %s, block %u of %u: %s: writes the %zu bytes of global memory at %p that block %u writes too "
                  "(%s): blocks of one launch must write disjoint bytes, the result would depend on their order",
                  ref.name.c_str(), c.block, block_dim, c.api, c.size, c.addr, c.other_block, c.other_api);
    failed_code = soc.fault_code;
    failed_message = message;
  }
  return fail(failed_code, "%s exception: %s",
              failed_code == ACL_ERROR_RT_VECTOR_CORE_EXCEPTION ? "vector core" : "AI Core", failed_message.c_str());
}

}  // namespace ascendsim::ascendc
