// Device: one emulated NPU: its memory, its default context (reference counted by aclrtSetDevice /
// aclrtResetDevice) and its device-wide settings.
#pragma once
#include <atomic>
#include <memory>
#include <mutex>

#include "acl/acl_rt.h"
#include "device/device_memory.h"
#include "runtime/stream.h"

namespace ascendsim {

class Context;

class Device {
 public:
  Device(int id, size_t capacity_bytes);
  int id() const { return id_; }
  DeviceMemory& memory() { return memory_; }

  // aclrtSetDevice: the default context, created on the first call.
  std::shared_ptr<Context> retain_default_context();
  // aclrtResetDevice: drops one reference (all of them if `force`); the last one synchronizes the device
  // and destroys the default context with its streams. Fails if the device was never set.
  aclError release_default_context(bool force, const char* api);
  // aclFinalize: drops every reference and releases the device's resources.
  void release_all(const char* api);

  // Waits for every stream of every context on this device; returns the first task failure (and, if
  // `failure`, what its stream said about it).
  aclError synchronize(int32_t timeout_ms = -1, Stream::Failure* failure = nullptr);

  std::atomic<int> sat_mode{ACL_RT_OVERFLOW_MODE_SATURATION};

 private:
  // What the last reset does: destroys the device's contexts (and so their streams), frees its memory.
  void release_resources(const char* api);

  int id_;
  DeviceMemory memory_;
  mutable std::mutex mutex_;
  std::shared_ptr<Context> default_context_;
  int default_refs_ = 0;
};

}  // namespace ascendsim
