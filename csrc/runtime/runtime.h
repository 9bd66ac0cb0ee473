// Runtime: the process-wide state behind every API call. Devices are created on first use; contexts,
// streams and events live in handle registries so that a destroyed or foreign handle is an error code,
// not a crash. The current context is per thread.
#pragma once
#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "acl/acl_rt.h"
#include "core/handle_registry.h"

namespace ascendsim {

class Context;
class Device;
class Event;
class Stream;

constexpr int kMaxDevices = 64;

class Runtime {
 public:
  static Runtime& instance();

  aclError init(const char* config_path);
  aclError finalize();
  bool initialized() const { return initialized_.load(std::memory_order_acquire); }

  int device_count() const { return device_count_; }
  const std::string& soc_name() const { return soc_name_; }
  size_t device_capacity() const { return device_capacity_; }

  // The device with this id, created on first use; null with a recorded error if the id is invalid.
  Device* device(int32_t id, const char* api);
  // The device that owns this address (device memory), or null for host memory.
  Device* device_of_address(const void* p) const;
  // Every device created so far.
  template <typename F>
  void for_each_device(F&& f) const {
    for (int i = 0; i < device_count_; ++i)
      if (Device* d = devices_[i].load(std::memory_order_acquire)) f(*d);
  }

  HandleRegistry<Context> contexts{"context"};
  HandleRegistry<Stream> streams{"stream"};
  HandleRegistry<Event> events{"event"};

 private:
  Runtime();
  std::atomic<bool> initialized_{false};
  bool ever_finalized_ = false;
  bool faults_read_ = false;  // ASCENDSIM_FAULTS installed (once per process)
  std::mutex mutex_;
  int device_count_;
  size_t device_capacity_;
  std::string soc_name_;
  std::array<std::atomic<Device*>, kMaxDevices> devices_{};
};

// Fails with ACL_ERROR_UNINITIALIZE unless aclInit has been called.
aclError require_initialized(const char* api);

// The calling thread's current context (null if none or destroyed).
std::shared_ptr<Context> current_context();
void set_current_context(std::shared_ptr<Context> context);
// Fails with ACL_ERROR_RT_CONTEXT_NULL when the thread has no current context.
aclError require_current_context(const char* api, std::shared_ptr<Context>* out);
// NULL means the default stream of the current context; anything else must be a live stream handle.
aclError resolve_stream(aclrtStream handle, const char* api, std::shared_ptr<Stream>* out);

}  // namespace ascendsim
