// Streams: creation in the current context, destruction (draining or forced), synchronization, query, the
// failure mode, the overflow switch, and the config handle of aclrtCreateStreamV2. The engine itself is
// runtime/stream.cpp; events and aclrtStreamWaitEvent are in acl_event.cpp.
#include <cstdio>
#include <mutex>
#include <new>
#include <unordered_set>

#include "acl/acl.h"
#include "api/sync_timeout.h"
#include "core/enum_value.h"
#include "core/error.h"
#include "core/fault_injection.h"
#include "prof/profiler.h"
#include "runtime/context.h"
#include "runtime/runtime.h"
#include "runtime/stream.h"

using namespace ascendsim;

namespace {

constexpr int kMaxStreamsPerDevice = 1024;  // streams per device on 910/310P-class chips
constexpr uint32_t kMaxPriority = 7;        // stream priorities are 0 (highest) .. 7

// Config handles from aclrtCreateStreamConfigHandle. The struct is public, so Set and CreateV2 accept a struct
// the program filled itself, as CANN does; but a destroyed handle must be refused (writing or reading it was a
// use after free). So Destroy does not free: it keeps the handle as a tombstone, which no other object can then
// occupy, and the next Create reuses it. Memory stays bounded by the most handles alive at once.
std::mutex g_config_mutex;
std::unordered_set<const aclrtStreamConfigHandle*> g_config_handles;     // live
std::unordered_set<aclrtStreamConfigHandle*> g_destroyed_config_handles;  // tombstones, reused by Create

// The error Set and CreateV2 give for a destroyed handle (and Destroy for any other); the caller holds the lock.
aclError dead_config_handle(const aclrtStreamConfigHandle* handle, const char* api) {
  return fail(ACL_ERROR_INVALID_PARAM, "%s: handle %p was not created by aclrtCreateStreamConfigHandle or is already "
              "destroyed", api, static_cast<const void*>(handle));
}

bool destroyed_config_handle(const aclrtStreamConfigHandle* handle) {
  return g_destroyed_config_handles.count(const_cast<aclrtStreamConfigHandle*>(handle)) != 0;
}

aclError create_stream(aclrtStream* stream, uint32_t priority, uint32_t flags, const char* api) {
  if (stream == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'stream' is NULL", api);
  std::shared_ptr<Context> context;
  if (aclError ret = require_current_context(api, &context)) return ret;
  const int device = context->device_id();
  if (Stream::live_count(device) >= kMaxStreamsPerDevice)
    return fail(ACL_ERROR_RT_NO_STREAM_RESOURCE, "%s: device %d already has %d streams, the most it supports", api,
                device, kMaxStreamsPerDevice);
  try {
    *stream = Runtime::instance().streams.add(std::make_shared<Stream>(context.get(), false, priority, flags), api);
  } catch (const std::bad_alloc&) {
    return fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: out of host memory", api);
  }
  return ACL_SUCCESS;
}

// Unregisters a stream created by the user, for aclrtDestroyStream(Force).
aclError take_stream(aclrtStream handle, const char* api, std::shared_ptr<Stream>* out) {
  if (handle == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'stream' is NULL", api);
  auto& streams = Runtime::instance().streams;
  std::shared_ptr<Stream> found = streams.find(handle);
  if (found && found->is_default())
    return fail(ACL_ERROR_RT_PARAM_INVALID,
                "%s: stream %p is the default stream of its context; it is released with the context", api, handle);
  if (found) *out = streams.remove(handle);
  if (*out) return ACL_SUCCESS;  // null: never created, already destroyed, or destroyed by another thread now
  return fail(ACL_ERROR_RT_INVALID_HANDLE, "%s: stream %p is not a live stream (destroyed or never created)", api,
              handle);
}

aclError report_failure(const char* api, aclrtStream handle, const Stream& stream, aclError code,
                        const Stream::Failure& failure) {
  if (failure.task != 0)
    fail(code, "%s: stream %p (id %u): task %llu failed with error %d", api, handle, stream.id(),
         static_cast<unsigned long long>(failure.task), code);
  else
    fail(code, "%s: stream %p (id %u) failed with error %d", api, handle, stream.id(), code);
  if (!failure.message.empty()) add_error_context("%s", failure.message.c_str());
  return code;
}

}  // namespace

aclError ascendsim::synchronize_stream(aclrtStream handle, int32_t timeout, const char* api) {
  std::shared_ptr<Stream> stream;
  if (aclError ret = resolve_stream(handle, api, &stream)) return ret;
  if (fault::Hit hit = fault::check(fault::Site::kStreamSync)) {
    char what[96];
    std::snprintf(what, sizeof what, "stream %p (id %u) still has tasks running after %d ms", handle, stream->id(),
                  timeout);
    return fault::report(hit, api, what);
  }
  Stream::Failure failure;
  const aclError ret = stream->synchronize(timeout, &failure);  // no lock held while waiting
  if (ret == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)
    return fail(ret, "%s: stream %p (id %u) still has tasks running after %d ms", api, handle, stream->id(), timeout);
  if (ret != ACL_SUCCESS) return report_failure(api, handle, *stream, ret, failure);
  return ACL_SUCCESS;
}

aclrtStreamConfigHandle* aclrtCreateStreamConfigHandle(void) {
  ASCENDSIM_PROFILE_API();
  std::lock_guard<std::mutex> lock(g_config_mutex);
  aclrtStreamConfigHandle* handle = nullptr;
  if (!g_destroyed_config_handles.empty()) {
    handle = *g_destroyed_config_handles.begin();
    g_destroyed_config_handles.erase(handle);
    *handle = aclrtStreamConfigHandle{};
  } else {
    handle = new (std::nothrow) aclrtStreamConfigHandle{};
  }
  try {
    if (handle != nullptr) g_config_handles.insert(handle);
  } catch (const std::bad_alloc&) {
    delete handle;
    handle = nullptr;
  }
  if (handle == nullptr) fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", __func__);
  return handle;
}

aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle* handle) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(handle);
  {
    std::lock_guard<std::mutex> lock(g_config_mutex);
    if (g_config_handles.count(handle) == 0) return dead_config_handle(handle, __func__);
    try {
      g_destroyed_config_handles.insert(handle);
    } catch (const std::bad_alloc&) {  // no room for the tombstone: stays live rather than becoming a dangling one
      return fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", __func__);
    }
    g_config_handles.erase(handle);
  }
  return ACL_SUCCESS;
}

aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle* handle, aclrtStreamConfigAttr attr, const void* attrValue,
                                 size_t valueSize) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(handle);
  ASCENDSIM_CHECK_NOT_NULL(attrValue);
  const int32_t which = enum_int(attr);  // any int from C: switched on as an int
  // Each attribute has one exact value size, as in the real implementation.
  const auto check_size = [&](size_t expected, const char* type) {
    if (valueSize == expected) return ACL_SUCCESS;
    return fail(ACL_ERROR_INVALID_PARAM, "%s: valueSize %zu for attr %d is invalid: it must be sizeof(%s) = %zu",
                __func__, valueSize, which, type, expected);
  };
  // Under the lock, so that a concurrent Destroy cannot free the handle while it is written.
  std::lock_guard<std::mutex> lock(g_config_mutex);
  if (destroyed_config_handle(handle)) return dead_config_handle(handle, __func__);
  switch (which) {
    case ACL_RT_STREAM_WORK_ADDR_PTR:
      if (aclError ret = check_size(sizeof(void*), "void*")) return ret;
      handle->workptr = *static_cast<void* const*>(attrValue);
      return ACL_SUCCESS;
    case ACL_RT_STREAM_WORK_SIZE:
      if (aclError ret = check_size(sizeof(size_t), "size_t")) return ret;
      handle->workSize = *static_cast<const size_t*>(attrValue);
      return ACL_SUCCESS;
    case ACL_RT_STREAM_FLAG:
      if (aclError ret = check_size(sizeof(size_t), "size_t")) return ret;
      handle->flag = *static_cast<const size_t*>(attrValue);
      return ACL_SUCCESS;
    case ACL_RT_STREAM_PRIORITY: {
      if (aclError ret = check_size(sizeof(uint32_t), "uint32_t")) return ret;
      const uint32_t priority = *static_cast<const uint32_t*>(attrValue);
      if (priority > kMaxPriority)
        return fail(ACL_ERROR_INVALID_PARAM, "%s: priority %u is out of range [0, %u]", __func__, priority,
                    kMaxPriority);
      handle->priority = priority;
      return ACL_SUCCESS;
    }
    default:
      return fail(ACL_ERROR_INVALID_PARAM, "%s: attr %d is not an aclrtStreamConfigAttr (0..3)", __func__, which);
  }
}

aclError aclrtCreateStream(aclrtStream* stream) {
  ASCENDSIM_PROFILE_API();
  return create_stream(stream, 0, 0, __func__);
}

aclError aclrtCreateStreamV2(aclrtStream* stream, const aclrtStreamConfigHandle* handle) {
  ASCENDSIM_PROFILE_API();
  if (handle == nullptr) return create_stream(stream, 0, 0, __func__);  // NULL: default configuration
  uint32_t priority = 0, flag = 0;
  {
    std::lock_guard<std::mutex> lock(g_config_mutex);
    if (destroyed_config_handle(handle)) return dead_config_handle(handle, __func__);
    priority = handle->priority;  // the user may also have written the public struct directly
    flag = static_cast<uint32_t>(handle->flag);
  }
  if (priority > kMaxPriority)
    return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: handle priority %u is out of range [0, %u]", __func__, priority,
                kMaxPriority);
  return create_stream(stream, priority, flag, __func__);
}

aclError aclrtCreateStreamWithConfig(aclrtStream* stream, uint32_t priority, uint32_t flag) {
  ASCENDSIM_PROFILE_API();
  // Unknown flag bits are ignored, as the ACL layer translates only the flags it knows.
  if (stream != nullptr && priority > kMaxPriority)
    return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: priority %u is out of range [0, %u]", __func__, priority,
                kMaxPriority);
  return create_stream(stream, priority, flag, __func__);
}

aclError aclrtDestroyStream(aclrtStream handle) {
  ASCENDSIM_PROFILE_API();
  std::shared_ptr<Stream> stream;
  if (aclError ret = take_stream(handle, __func__, &stream)) return ret;
  // Like the real runtime, waits for the queued tasks; a task failure is dropped with the stream. Callbacks
  // not yet run are cancelled (see report_queue.cpp), so this cannot wait for a callback that never runs.
  stream->close(false);
  return ACL_SUCCESS;
}

aclError aclrtDestroyStreamForce(aclrtStream handle) {
  ASCENDSIM_PROFILE_API();
  std::shared_ptr<Stream> stream;
  if (aclError ret = take_stream(handle, __func__, &stream)) return ret;
  stream->close(true);  // queued tasks are discarded; a running one finishes, a blocked one is interrupted
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  ASCENDSIM_PROFILE_API();
  return synchronize_stream(stream, -1, __func__);
}

aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout) {
  ASCENDSIM_PROFILE_API();
  if (aclError ret = check_sync_timeout(timeout, __func__)) return ret;
  return synchronize_stream(stream, timeout, __func__);
}

aclError aclrtStreamQuery(aclrtStream handle, aclrtStreamStatus* status) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(status);
  std::shared_ptr<Stream> stream;
  if (aclError ret = resolve_stream(handle, __func__, &stream)) return ret;
  *status = stream->idle() ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
  return ACL_SUCCESS;
}

aclError aclrtSetStreamFailureMode(aclrtStream handle, uint64_t mode) {
  ASCENDSIM_PROFILE_API();
  std::shared_ptr<Stream> stream;
  if (aclError ret = resolve_stream(handle, __func__, &stream)) return ret;
  if (stream->set_failure_mode(mode) != ACL_SUCCESS)
    return fail(ACL_ERROR_RT_PARAM_INVALID,
                "%s: mode %llu is not ACL_CONTINUE_ON_FAILURE (0) or ACL_STOP_ON_FAILURE (1)", __func__,
                static_cast<unsigned long long>(mode));
  return ACL_SUCCESS;
}

aclError aclrtSetStreamOverflowSwitch(aclrtStream handle, uint32_t flag) {
  ASCENDSIM_PROFILE_API();
  if (flag > 1) return fail(ACL_ERROR_INVALID_PARAM, "%s: flag %u is not 0 (off) or 1 (on)", __func__, flag);
  std::shared_ptr<Stream> stream;
  if (aclError ret = resolve_stream(handle, __func__, &stream)) return ret;
  stream->overflow_switch.store(flag);
  return ACL_SUCCESS;
}

aclError aclrtGetStreamOverflowSwitch(aclrtStream handle, uint32_t* flag) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(flag);
  std::shared_ptr<Stream> stream;
  if (aclError ret = resolve_stream(handle, __func__, &stream)) return ret;
  *flag = stream->overflow_switch.load();
  return ACL_SUCCESS;
}
