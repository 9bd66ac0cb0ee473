#include "model/model_buffers.h"

#include <cstring>
#include <string>

#include "core/error.h"
#include "core/log.h"
#include "runtime/allocation_check.h"
#include "runtime/device.h"

namespace ascendsim {
namespace {

std::string label_of(const char* what, size_t index) {
  return index == SIZE_MAX ? std::string(what) : std::string(what) + " " + std::to_string(index);
}

}  // namespace

aclError check_device_buffer(Device* device, const char* label, const void* addr, size_t size, size_t needed,
                             aclError code, const char* api, Allocation* alloc) {
  if (addr == nullptr) return fail(code, "%s: %s: the buffer address is NULL", api, label);
  MemoryRegion region;
  const RegionFit fit = locate_region(addr, size < needed ? size : needed, &region);
  if (region.device != device || fit == RegionFit::kNotLive)
    return fail(code, "%s: %s: address %p is not device memory of device %d: %s", api, label, addr, device->id(),
                device->memory().describe(addr).c_str());
  *alloc = region.allocation;
  if (fit == RegionFit::kPastEnd) {
    const size_t offset = static_cast<size_t>(static_cast<const uint8_t*>(addr) - static_cast<uint8_t*>(alloc->base));
    return fail(code, "%s: %s: model expects %zu bytes, but the buffer at %p has only %zu bytes of device memory "
                "(its size says %zu): give the data buffer the size of its allocation", api, label, needed, addr,
                alloc->size - offset, size);
  }
  return ACL_SUCCESS;
}

aclError check_buffer(Device* device, const char* what, size_t index, const void* addr, size_t size,
                      size_t needed, const char* api) {
  const std::string label = label_of(what, index);
  if (size < needed)
    return fail(ACL_ERROR_GE_PARAM_INVALID, "%s: %s: model expects %zu bytes, given %zu", api, label.c_str(), needed,
                size);
  if (needed == 0) return ACL_SUCCESS;
  Allocation alloc{};
  return check_device_buffer(device, label.c_str(), addr, size, needed, ACL_ERROR_GE_PARAM_INVALID, api, &alloc);
}

aclError check_input(Device* device, const char* model, size_t index, const void* addr, size_t size,
                     size_t needed, bool gear_model, const char* api, std::vector<ShortInput>* short_inputs) {
  if (needed == 0) return ACL_SUCCESS;
  const std::string label = label_of("input", index);
  if (!gear_model) {
    if (size > needed)
      log(kLogWarning, "GE", "%s: model '%s' %s: the buffer has %zu bytes, more than the %zu the model reads; "
          "only those are used: check that this is the right input", api, model, label.c_str(), size, needed);
    if (size + kInputSizeAllowance < needed)
      return fail_as(ACL_ERROR_GE_FAILURE, "E13025",
                     "Input tensor is invalid. Reason: the memory size the user gave %s of model '%s' is too small: "
                     "%zu bytes of buffer, even with the %zu bytes allowed for alignment, are less than the %zu bytes "
                     "the model's tensor needs (%s); give it aclmdlGetInputSizeByIndex bytes",
                     label.c_str(), model, size, kInputSizeAllowance, needed, api);
  }
  Allocation alloc{};
  if (aclError ret = check_device_buffer(device, label.c_str(), addr, size, needed, ACL_ERROR_GE_PARAM_INVALID,
                                        api, &alloc))
    return ret;
  const size_t offset = static_cast<size_t>(static_cast<const uint8_t*>(addr) - static_cast<uint8_t*>(alloc.base));
  const size_t readable = alloc.extent - offset;  // the allocation's bytes from addr, its rounding included
  if (readable < needed) short_inputs->push_back({index, addr, readable, needed});
  return ACL_SUCCESS;
}

void stage_short_inputs(const std::vector<ShortInput>& short_inputs, std::vector<uint8_t>* staging,
                        const void** inputs) {
  constexpr size_t kAlign = 64;  // as device allocations are: the kernels' vector loads stay aligned
  size_t total = 0;
  for (const ShortInput& in : short_inputs) total += (in.needed + kAlign - 1) / kAlign * kAlign;
  staging->resize(total + kAlign);
  auto* at = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(staging->data()) + kAlign - 1) / kAlign * kAlign);
  for (const ShortInput& in : short_inputs) {
    std::memcpy(at, in.src, in.readable);
    std::memset(at + in.readable, 0, in.needed - in.readable);
    inputs[in.index] = at;
    at += (in.needed + kAlign - 1) / kAlign * kAlign;
  }
}

}  // namespace ascendsim
