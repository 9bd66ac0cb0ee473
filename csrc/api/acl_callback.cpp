// Host callbacks on streams (aclrtSubscribeReport, aclrtLaunchCallback, aclrtProcessReport,
// aclrtUnSubscribeReport; the machinery is runtime/report_queue.cpp) and the task-failure callback
// (aclrtSetExceptionInfoCallback and the getters of the aclrtExceptionInfo it receives).
#include "acl/acl.h"
#include "core/error.h"
#include "prof/profiler.h"
#include "runtime/context.h"
#include "runtime/exception_info.h"
#include "runtime/report_queue.h"
#include "runtime/runtime.h"
#include "runtime/stream.h"

using namespace ascendsim;

namespace {

constexpr uint32_t kInvalidExceptionInfo = 0xFFFFFFFF;  // what the getters return for a NULL info

// One field of the record, or kInvalidExceptionInfo (with a message) for NULL or a pointer that is not
// being delivered to an exception callback right now, instead of reading through it.
template <uint32_t rtExceptionInfo::*Field>
uint32_t read_info(const aclrtExceptionInfo* info, const char* api) {
  if (info == nullptr) {
    fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'info' is NULL", api);
    return kInvalidExceptionInfo;
  }
  if (!is_live_exception_info(info)) {
    fail(ACL_ERROR_INVALID_PARAM,
         "%s: info %p is not an exception info being delivered to the aclrtSetExceptionInfoCallback callback "
         "(it is valid only during that call)",
         api, static_cast<const void*>(info));
    return kInvalidExceptionInfo;
  }
  return info->*Field;
}

}  // namespace

aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback) {
  ASCENDSIM_PROFILE_API();
  Stream::set_exception_callback(callback);  // NULL unregisters
  return ACL_SUCCESS;
}

uint32_t aclrtGetTaskIdFromExceptionInfo(const aclrtExceptionInfo* info) {
  ASCENDSIM_PROFILE_API();
  return read_info<&rtExceptionInfo::taskid>(info, __func__);
}

uint32_t aclrtGetStreamIdFromExceptionInfo(const aclrtExceptionInfo* info) {
  ASCENDSIM_PROFILE_API();
  return read_info<&rtExceptionInfo::streamid>(info, __func__);
}

uint32_t aclrtGetThreadIdFromExceptionInfo(const aclrtExceptionInfo* info) {
  ASCENDSIM_PROFILE_API();
  return read_info<&rtExceptionInfo::tid>(info, __func__);
}

uint32_t aclrtGetDeviceIdFromExceptionInfo(const aclrtExceptionInfo* info) {
  ASCENDSIM_PROFILE_API();
  return read_info<&rtExceptionInfo::deviceid>(info, __func__);
}

uint32_t aclrtGetErrorCodeFromExceptionInfo(const aclrtExceptionInfo* info) {
  ASCENDSIM_PROFILE_API();
  return read_info<&rtExceptionInfo::retcode>(info, __func__);
}

aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream handle) {
  ASCENDSIM_PROFILE_API();
  std::shared_ptr<Stream> stream;
  if (aclError ret = resolve_stream(handle, __func__, &stream)) return ret;
  return ReportHub::instance().subscribe(threadId, *stream, __func__);
}

aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream handle) {
  ASCENDSIM_PROFILE_API();
  std::shared_ptr<Stream> stream;
  if (aclError ret = resolve_stream(handle, __func__, &stream)) return ret;
  return ReportHub::instance().unsubscribe(threadId, *stream, __func__);
}

aclError aclrtProcessReport(int32_t timeout) {
  ASCENDSIM_PROFILE_API();
  if (timeout < -1 || timeout == 0)
    return fail(ACL_ERROR_INVALID_PARAM,
                "%s: timeout %d is invalid: -1 waits forever, a positive value is a limit in ms", __func__, timeout);
  return ReportHub::instance().process(timeout, __func__);  // no lock held while waiting or running callbacks
}

aclError aclrtLaunchCallback(aclrtCallback fn, void* userData, aclrtCallbackBlockType blockType, aclrtStream handle) {
  ASCENDSIM_PROFILE_API();
  if (blockType != ACL_CALLBACK_BLOCK && blockType != ACL_CALLBACK_NO_BLOCK)
    return fail(ACL_ERROR_INVALID_PARAM,
                "%s: blockType %d is not ACL_CALLBACK_NO_BLOCK (0) or ACL_CALLBACK_BLOCK (1)", __func__,
                static_cast<int>(blockType));
  if (fn == nullptr) return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: argument 'fn' is NULL", __func__);
  std::shared_ptr<Context> context;
  if (aclError ret = require_current_context(__func__, &context)) return ret;
  std::shared_ptr<Stream> stream;
  if (aclError ret = resolve_stream(handle, __func__, &stream)) return ret;
  if (stream->context() != context.get())
    return fail(ACL_ERROR_RT_STREAM_CONTEXT,
                "%s: stream %p belongs to another context than the calling thread's current context", __func__,
                handle);
  if (stream->report_thread.load() == 0)
    return fail(ACL_ERROR_RT_STREAM_NO_CB_REG,
                "%s: no thread is subscribed to stream %p (id %u): call aclrtSubscribeReport first", __func__, handle,
                stream->id());
  const bool block = blockType == ACL_CALLBACK_BLOCK;
  // The raw pointer is safe: a task only runs while its stream exists (teardown discards the rest).
  Stream* target = stream.get();
  return stream->enqueue(
      [target, fn, userData, block] { return ReportHub::instance().deliver(*target, fn, userData, block); }, nullptr,
      prof::TaskLabel{"Callback", {"blocking", block ? 1u : 0u}, {}});
}
