// Validation shared by the memory APIs: where a pointer argument lies (host, or which device) and whether
// the bytes a call would touch stay inside the allocation the pointer belongs to.
#pragma once
#include <cstddef>

#include "acl/acl_rt.h"

namespace ascendsim {

class Device;

struct MemoryRegion {
  Device* device = nullptr;  // null: host memory
  bool pinned = false;       // device memory or an aclrtMallocHost buffer: safe for work queued on a stream
  bool is_device() const { return device != nullptr; }
};

// Checks that [p, p + count) (count > 0) may be touched as argument `arg` of `api`:
//  - device memory must lie inside one live allocation (interior pointers are fine; freed memory is not);
//  - a host pointer inside an aclrtMallocHost buffer must stay inside that buffer;
//  - any other host pointer is the caller's own memory (a numpy array, a bytes object) and is not checked.
// On failure records ACL_ERROR_RT_PARAM_INVALID with a message naming api, arg and the allocation.
aclError check_region(const void* p, size_t count, const char* api, const char* arg, MemoryRegion* out);

bool valid_memcpy_kind(int kind);
const char* memcpy_kind_name(int kind);  // "ACL_MEMCPY_HOST_TO_DEVICE", or "?" for an invalid value
// The copy direction the two regions imply.
aclrtMemcpyKind implied_memcpy_kind(const MemoryRegion& dst, const MemoryRegion& src);

// "(the allocation ...)" helpers for messages: "host memory" / "device 3 memory".
const char* region_name(const MemoryRegion& region, char* buffer, size_t size);

}  // namespace ascendsim
