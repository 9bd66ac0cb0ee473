// Context: what a thread works in: a device, a default stream, and the streams created in it.
// aclrtSetDevice makes the device's default context current; aclrtCreateContext makes a new one current.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>

#include "acl/acl_rt.h"

namespace ascendsim {

class Device;
class Stream;

class Context {
 public:
  Context(Device* device, bool is_default);
  ~Context();
  Device* device() const { return device_; }
  int device_id() const;
  bool is_default() const { return is_default_; }
  const std::shared_ptr<Stream>& default_stream() const { return default_stream_; }

  // Synchronizes and destroys the streams created in this context, then marks it destroyed.
  void destroy();
  bool destroyed() const { return destroyed_.load(std::memory_order_acquire); }

  // aclSysParamOpt values indexed by the option; kSysParamUnset until aclrtCtxSetSysParamOpt.
  static constexpr int64_t kSysParamUnset = INT64_MIN;
  std::array<std::atomic<int64_t>, 2> sys_params{{kSysParamUnset, kSysParamUnset}};

 private:
  Device* device_;
  bool is_default_;
  std::atomic<bool> destroyed_{false};
  std::shared_ptr<Stream> default_stream_;
};

}  // namespace ascendsim
