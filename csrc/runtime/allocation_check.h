// The one allocation check of the runtime: "these bytes lie inside a live allocation". Copies, memsets and
// cache flushes (csrc/api), single operators (csrc/op) and models (csrc/model) all judge a pointer with it:
// locate_region answers where the bytes lie and whether they fit; check_region records the runtime's message
// with the error code its caller returns. The model's buffers keep GE's wording (model/model_buffers.h), on
// the same answer.
#pragma once
#include <cstddef>

#include "acl/acl_base.h"
#include "device/device_memory.h"

namespace ascendsim {

class Device;

struct MemoryRegion {
  Device* device = nullptr;  // null: host memory
  bool pinned = false;       // device memory or an aclrtMallocHost buffer: safe for work queued on a stream
  Allocation allocation{};   // the allocation holding the bytes (when pinned)
  bool is_device() const { return device != nullptr; }
};

enum class RegionFit {
  kFits,     // inside the allocation (or unchecked caller memory)
  kNotLive,  // in a device's range but in no live allocation
  kPastEnd,  // starts inside the allocation but runs past its end
};

// Where [p, p + count) lies (out: the device or host, and the allocation holding p) and whether it fits; records
// nothing.
RegionFit locate_region(const void* p, size_t count, MemoryRegion* out);

// Checks that [p, p + count) may be touched as argument `arg` of `api`:
//  - device memory must lie inside one live allocation (interior pointers are fine; freed memory is not);
//  - a host pointer inside an aclrtMallocHost buffer must stay inside that buffer;
//  - any other host pointer is the caller's own memory (a numpy array, a bytes object) and is not checked.
// Callers that need device memory check out->is_device() (and which device) themselves.
// On failure records `code` with a message naming api, arg and the allocation.
aclError check_region(const void* p, size_t count, aclError code, const char* api, const char* arg,
                      MemoryRegion* out);

// "(the allocation ...)" helpers for messages: "host memory" / "device 3 memory".
const char* region_name(const MemoryRegion& region, char* buffer, size_t size);

}  // namespace ascendsim
