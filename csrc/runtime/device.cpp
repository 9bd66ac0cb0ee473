#include "runtime/device.h"

#include "core/error.h"
#include "core/host_wait.h"
#include "runtime/context.h"
#include "runtime/leak_report.h"
#include "runtime/runtime.h"
#include "runtime/stream.h"

namespace ascendsim {

Device::Device(int id, size_t capacity_bytes)
    : id_(id), memory_(id, capacity_bytes, [this] {
        HostWaitScope waiting;  // the allocator waits for the device: let an embedding interpreter run
        synchronize();
      }) {}

std::shared_ptr<Context> Device::retain_default_context() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!default_context_) {
    default_context_ = std::make_shared<Context>(this, true);
    Runtime::instance().contexts.add(default_context_, "aclrtSetDevice", Owner::kRuntime);
  }
  ++default_refs_;
  return default_context_;
}

aclError Device::release_default_context(bool force, const char* api) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (default_refs_ == 0)
    return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: device %d is not set in this process (call aclrtSetDevice first)",
                api, id_);
  default_refs_ = force ? 0 : default_refs_ - 1;
  if (default_refs_ > 0) return ACL_SUCCESS;
  default_context_.reset();
  lock.unlock();
  report_leaks(id_, api);  // what the user did not destroy before the reset releases it
  release_resources(api);
  return ACL_SUCCESS;
}

void Device::release_all(const char* api) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    default_refs_ = 0;
    default_context_.reset();
  }
  release_resources(api);
}

void Device::release_resources(const char* api) {
  // Every context of the device, the default one and those created explicitly, after their streams have
  // finished; then the device memory still allocated.
  auto& runtime = Runtime::instance();
  for (auto& context : runtime.contexts.snapshot()) {
    if (context->device() != this) continue;
    context->destroy();
    runtime.contexts.remove(context.get());
  }
  memory_.release_all(api);
}

aclError Device::synchronize(int32_t timeout_ms, Stream::Failure* failure) {
  aclError first_failure = ACL_SUCCESS;
  for (auto& stream : Runtime::instance().streams.snapshot()) {
    if (stream->device_id() != id_) continue;
    Stream::Failure this_one;
    const aclError ret = stream->synchronize(timeout_ms, &this_one);
    if (first_failure != ACL_SUCCESS || ret == ACL_SUCCESS) continue;
    first_failure = ret;
    if (failure != nullptr) *failure = std::move(this_one);
  }
  return first_failure;
}

}  // namespace ascendsim
