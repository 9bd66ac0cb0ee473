// The users' buffers of a model execution: where they lie, and GE's size rules for them.
//
// Outputs and work memory must hold what the model writes. Inputs follow GE's DavinciModel
// (CheckUserAndModelSize): a buffer may be up to kInputSizeAllowance (64) bytes smaller than the model's input,
// since the runtime's allocations are rounded up and padded; smaller than that is E13025
// (ACL_ERROR_GE_FAILURE); larger is a warning. Gear models skip the check (their sizes are the largest gear's).
// The model reads the input's full size from the buffer's address. When the allocation holding the buffer
// (with the runtime's rounding) ends before that, the input is staged instead: the bytes the allocation has
// are copied, the rest is zeros, and the model reads the copy. Nothing reads past an allocation.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "acl/acl_base.h"

namespace ascendsim {

class Device;
struct Allocation;

constexpr size_t kInputSizeAllowance = 64;  // GE's kDataMemAlignSizeCompare

// The runtime's allocation check (runtime/allocation_check.h) for a buffer of `size` bytes at `addr` (`label`
// names it) that the model touches min(size, needed) bytes of: inside one live allocation of `device`'s memory,
// else `code` with GE's wording. Writes the allocation.
aclError check_device_buffer(Device* device, const char* label, const void* addr, size_t size, size_t needed,
                             aclError code, const char* api, Allocation* alloc);

// Checks a user buffer (`what` `index`, or just `what` when index is SIZE_MAX) of `size` bytes at `addr` that
// the model reads or writes `needed` bytes of: at least `needed` bytes, in device memory of `device` that holds
// them. Failures are ACL_ERROR_GE_PARAM_INVALID, naming the buffer.
aclError check_buffer(Device* device, const char* what, size_t index, const void* addr, size_t size,
                      size_t needed, const char* api);

// An input the model reads more bytes of than its allocation has (see above).
struct ShortInput {
  size_t index;
  const void* src;
  size_t readable;  // bytes from src to the end of its allocation (< needed)
  size_t needed;
};

// Checks input `index` (`size` bytes at `addr`, the model reads `needed`) by GE's rules; `gear_model` skips the
// size rule. An input whose allocation ends before `needed` bytes is appended to `short_inputs`.
aclError check_input(Device* device, const char* model, size_t index, const void* addr, size_t size,
                     size_t needed, bool gear_model, const char* api, std::vector<ShortInput>* short_inputs);

// Copies each short input into `staging` (its readable bytes, then zeros up to its size) and points its entry of
// `inputs` there. Called when the execution runs, so that a queued execution reads what its stream wrote.
void stage_short_inputs(const std::vector<ShortInput>& short_inputs, std::vector<uint8_t>* staging,
                        const void** inputs);

}  // namespace ascendsim
