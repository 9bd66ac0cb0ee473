// Running one launch of an Ascend C kernel: blockDim blocks, each with its own unified buffer of the SoC's size,
// spread over the intra-op thread pool (blocks of one launch are independent: no cross-block synchronisation is
// emulated). The first block to fault (in block order) decides the launch's error code and message; a launch
// whose blocks all end well fails when two of them wrote the same global-memory bytes (write_log.h).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl_base.h"
#include "ascendsim/ascendc_abi.h"

namespace ascendsim::ascendc {

// A kernel and what keeps its code loaded (a kernel binary), with its own copy of the name (kernel.name points
// at it, in every copy).
struct KernelRef {
  KernelRef(const ascendsimKernel& k, std::shared_ptr<const void> owner);
  KernelRef(const KernelRef& other);
  KernelRef& operator=(const KernelRef&) = delete;
  ascendsimKernel kernel;
  std::string name;
  std::shared_ptr<const void> keep;
};

// Runs the launch; returns ACL_SUCCESS or the fault code, with the message recorded by fail() on this thread.
aclError run_blocks(const KernelRef& kernel, uint32_t block_dim, const void* args, int32_t tiling_key);

// The launch checks shared by aclrtLaunchKernel and the <<<>>> path: ACL_ERROR_INVALID_PARAM with a message.
aclError check_launch(const char* api, const ascendsimKernel& kernel, uint32_t block_dim, const void* args,
                      size_t args_size);

}  // namespace ascendsim::ascendc
