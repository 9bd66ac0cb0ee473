// Events: creation (in the current context) with flags, record / reset / wait tasks on streams, host-side
// query and synchronize, elapsed time. The state machine is runtime/event.cpp.
#include <cstdio>
#include <new>

#include "acl/acl.h"
#include "api/sync_timeout.h"
#include "core/error.h"
#include "core/fault_injection.h"
#include "prof/profiler.h"
#include "runtime/event.h"
#include "runtime/runtime.h"
#include "runtime/stream.h"

using namespace ascendsim;

namespace {

aclError create_event(aclrtEvent* event, uint32_t flags, const char* api) {
  if (event == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'event' is NULL", api);
  if (flags == 0 || (flags & ~Event::kValidFlags) != 0)
    return fail(ACL_ERROR_RT_PARAM_INVALID,
                "%s: flag 0x%x is invalid: it must be a non-empty combination of ACL_EVENT_SYNC (0x1), "
                "ACL_EVENT_CAPTURE_STREAM_PROGRESS (0x2) and ACL_EVENT_TIME_LINE (0x8)",
                api, flags);
  std::shared_ptr<Context> context;
  if (aclError ret = require_current_context(api, &context)) return ret;
  try {
    *event = Runtime::instance().events.add(std::make_shared<Event>(flags), api);
  } catch (const std::bad_alloc&) {
    return fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: out of host memory", api);
  }
  return ACL_SUCCESS;
}

aclError find_event(aclrtEvent handle, const char* name, const char* api, std::shared_ptr<Event>* out) {
  if (handle == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument '%s' is NULL", api, name);
  *out = Runtime::instance().events.find(handle);
  if (*out) return ACL_SUCCESS;
  return fail(ACL_ERROR_RT_INVALID_HANDLE, "%s: %s %p is not a live event (destroyed or never created)", api, name,
              handle);
}

// The event and the stream (NULL: default stream) of a record / reset / wait call.
aclError find_event_and_stream(aclrtEvent event_handle, aclrtStream stream_handle, const char* api,
                               std::shared_ptr<Event>* event, std::shared_ptr<Stream>* stream) {
  if (aclError ret = find_event(event_handle, "event", api, event)) return ret;
  return resolve_stream(stream_handle, api, stream);
}

aclError synchronize(aclrtEvent handle, int32_t timeout, const char* api) {
  std::shared_ptr<Event> event;
  if (aclError ret = find_event(handle, "event", api, &event)) return ret;
  if (fault::Hit hit = fault::check(fault::Site::kEventSync)) {
    char what[80];
    std::snprintf(what, sizeof what, "event %p did not complete within %d ms", handle, timeout);
    return fault::report(hit, api, what);
  }
  const aclError ret = event->synchronize(timeout);  // no lock held while waiting
  if (ret == ACL_ERROR_RT_EVENT_SYNC_TIMEOUT)
    return fail(ret, "%s: event %p did not complete within %d ms", api, handle, timeout);
  if (ret != ACL_SUCCESS)
    return fail(ret, "%s: event %p: its record was discarded by its stream (error %d: the stream stopped on a "
                "failure or was force-destroyed)", api, handle, ret);
  return ACL_SUCCESS;
}

}  // namespace

aclError aclrtCreateEvent(aclrtEvent* event) {
  ASCENDSIM_PROFILE_API();
  return create_event(event, Event::kDefaultFlags, __func__);
}

aclError aclrtCreateEventWithFlag(aclrtEvent* event, uint32_t flag) {
  ASCENDSIM_PROFILE_API();
  return create_event(event, flag, __func__);
}

// "Ex" events are not bound to a hardware event resource on real chips; the emulator has no such limit, so
// they behave like the others.
aclError aclrtCreateEventExWithFlag(aclrtEvent* event, uint32_t flag) {
  ASCENDSIM_PROFILE_API();
  return create_event(event, flag, __func__);
}

aclError aclrtDestroyEvent(aclrtEvent handle) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(handle);
  // Records and waits still queued keep the object alive; they complete normally.
  if (Runtime::instance().events.remove(handle)) return ACL_SUCCESS;
  return fail(ACL_ERROR_RT_INVALID_HANDLE, "%s: event %p is not a live event (destroyed or never created)", __func__,
              handle);
}

aclError aclrtRecordEvent(aclrtEvent event_handle, aclrtStream stream_handle) {
  ASCENDSIM_PROFILE_API();
  std::shared_ptr<Event> event;
  std::shared_ptr<Stream> stream;
  if (aclError ret = find_event_and_stream(event_handle, stream_handle, __func__, &event, &stream)) return ret;
  return event->record(*stream);
}

aclError aclrtResetEvent(aclrtEvent event_handle, aclrtStream stream_handle) {
  ASCENDSIM_PROFILE_API();
  std::shared_ptr<Event> event;
  std::shared_ptr<Stream> stream;
  if (aclError ret = find_event_and_stream(event_handle, stream_handle, __func__, &event, &stream)) return ret;
  return event->reset(*stream);
}

aclError aclrtStreamWaitEvent(aclrtStream stream_handle, aclrtEvent event_handle) {
  ASCENDSIM_PROFILE_API();
  std::shared_ptr<Event> event;
  std::shared_ptr<Stream> stream;
  if (aclError ret = find_event_and_stream(event_handle, stream_handle, __func__, &event, &stream)) return ret;
  return event->wait_on(*stream);  // the stream's worker waits, the caller does not
}

aclError aclrtQueryEvent(aclrtEvent handle, aclrtEventStatus* status) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(status);
  std::shared_ptr<Event> event;
  if (aclError ret = find_event(handle, "event", __func__, &event)) return ret;
  *status = event->query();
  return ACL_SUCCESS;
}

aclError aclrtQueryEventStatus(aclrtEvent handle, aclrtEventRecordedStatus* status) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(status);
  std::shared_ptr<Event> event;
  if (aclError ret = find_event(handle, "event", __func__, &event)) return ret;
  *status = event->recorded_status();
  return ACL_SUCCESS;
}

aclError aclrtQueryEventWaitStatus(aclrtEvent handle, aclrtEventWaitStatus* status) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(status);
  std::shared_ptr<Event> event;
  if (aclError ret = find_event(handle, "event", __func__, &event)) return ret;
  *status = event->wait_status();
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeEvent(aclrtEvent event) {
  ASCENDSIM_PROFILE_API();
  return synchronize(event, -1, __func__);
}

aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout) {
  ASCENDSIM_PROFILE_API();
  if (aclError ret = check_sync_timeout(timeout, __func__)) return ret;
  return synchronize(event, timeout, __func__);
}

aclError aclrtEventElapsedTime(float* ms, aclrtEvent start_handle, aclrtEvent end_handle) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(ms);
  std::shared_ptr<Event> start;
  std::shared_ptr<Event> end;
  if (aclError ret = find_event(start_handle, "startEvent", __func__, &start)) return ret;
  if (aclError ret = find_event(end_handle, "endEvent", __func__, &end)) return ret;
  return Event::elapsed_ms(*start, *end, ms, __func__);
}
