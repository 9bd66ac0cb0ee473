// The one allocation check of the runtime: "these bytes lie inside a live allocation". Copies, memsets and
// cache flushes (csrc/api), single operators (csrc/op) and models (csrc/model) all call it, each with the
// error code its API returns (ACL_ERROR_RT_PARAM_INVALID for aclrt*, ACL_ERROR_INVALID_PARAM for aclop*, the
// GE codes for aclmdl*), so a pointer is judged the same way everywhere.
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
