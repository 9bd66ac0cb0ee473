// Contexts: create (becomes current for the calling thread), destroy, per-thread current context.
#include "acl/acl.h"
#include "core/error.h"
#include "prof/profiler.h"
#include "runtime/context.h"
#include "runtime/device.h"
#include "runtime/runtime.h"

using namespace ascendsim;

aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(context);
  Device* device = Runtime::instance().device(deviceId, __func__);
  if (device == nullptr) return ACL_ERROR_RT_INVALID_DEVICEID;
  auto created = std::make_shared<Context>(device, false);
  *context = Runtime::instance().contexts.add(created);
  set_current_context(std::move(created));
  return ACL_SUCCESS;
}

static aclError find_context(aclrtContext handle, const char* api, std::shared_ptr<Context>* out) {
  ASCENDSIM_CHECK_NOT_NULL(handle);
  *out = Runtime::instance().contexts.find(handle);
  if (*out && !(*out)->destroyed()) return ACL_SUCCESS;
  return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: context %p is not a live context (destroyed, reset or never created)",
              api, handle);
}

aclError aclrtDestroyContext(aclrtContext handle) {
  ASCENDSIM_PROFILE_API();
  std::shared_ptr<Context> context;
  if (aclError ret = find_context(handle, __func__, &context)) return ret;
  if (context->is_default())
    return fail(ACL_ERROR_RT_PARAM_INVALID,
                "%s: context %p is the default context of device %d; it is released by aclrtResetDevice", __func__,
                handle, context->device_id());
  context->destroy();
  Runtime::instance().contexts.remove(handle);
  return ACL_SUCCESS;
}

aclError aclrtSetCurrentContext(aclrtContext handle) {
  ASCENDSIM_PROFILE_API();
  std::shared_ptr<Context> context;
  if (aclError ret = find_context(handle, __func__, &context)) return ret;
  set_current_context(std::move(context));
  return ACL_SUCCESS;
}

aclError aclrtGetCurrentContext(aclrtContext* handle) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(handle);
  std::shared_ptr<Context> context;
  if (aclError ret = require_current_context(__func__, &context)) return ret;
  *handle = context.get();
  return ACL_SUCCESS;
}

static aclError check_sys_param(aclSysParamOpt opt, const char* api) {
  if (opt != ACL_OPT_DETERMINISTIC && opt != ACL_OPT_ENABLE_DEBUG_KERNEL)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: opt %d is not ACL_OPT_DETERMINISTIC (0) or ACL_OPT_ENABLE_DEBUG_KERNEL (1)",
                api, static_cast<int>(opt));
  return ACL_SUCCESS;
}

aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
  ASCENDSIM_PROFILE_API();
  if (aclError ret = check_sys_param(opt, __func__)) return ret;
  std::shared_ptr<Context> context;
  if (aclError ret = require_current_context(__func__, &context)) return ret;
  context->sys_params[opt].store(value);
  return ACL_SUCCESS;
}

aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t* value) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(value);
  if (aclError ret = check_sys_param(opt, __func__)) return ret;
  std::shared_ptr<Context> context;
  if (aclError ret = require_current_context(__func__, &context)) return ret;
  const int64_t stored = context->sys_params[opt].load();
  if (stored == Context::kSysParamUnset)
    return fail(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, "%s: option %d was never set in this context", __func__,
                static_cast<int>(opt));
  *value = stored;
  return ACL_SUCCESS;
}
