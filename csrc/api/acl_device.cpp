// Device selection, reset, synchronization and device-wide settings.
#include "acl/acl.h"
#include "core/error.h"
#include "prof/profiler.h"
#include "runtime/context.h"
#include "runtime/device.h"
#include "runtime/runtime.h"

using namespace ascendsim;

aclError aclrtSetDevice(int32_t deviceId) {
  ASCENDSIM_PROFILE_API();
  Device* device = Runtime::instance().device(deviceId, __func__);
  if (device == nullptr) return ACL_ERROR_RT_INVALID_DEVICEID;
  set_current_context(device->retain_default_context());
  return ACL_SUCCESS;
}

static aclError reset_device(int32_t deviceId, bool force, const char* api) {
  Device* device = Runtime::instance().device(deviceId, api);
  if (device == nullptr) return ACL_ERROR_RT_INVALID_DEVICEID;
  return device->release_default_context(force, api);
}

aclError aclrtResetDevice(int32_t deviceId) {
  ASCENDSIM_PROFILE_API();
  return reset_device(deviceId, false, __func__);
}

aclError aclrtResetDeviceForce(int32_t deviceId) {
  ASCENDSIM_PROFILE_API();
  return reset_device(deviceId, true, __func__);
}

aclError aclrtGetDevice(int32_t* deviceId) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(deviceId);
  std::shared_ptr<Context> context;
  if (aclError ret = require_current_context(__func__, &context)) return ret;
  *deviceId = context->device_id();
  return ACL_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t* count) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(count);
  *count = static_cast<uint32_t>(Runtime::instance().device_count());
  return ACL_SUCCESS;
}

aclError aclrtGetRunMode(aclrtRunMode* runMode) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(runMode);
  *runMode = ACL_HOST;  // an application on the host driving a card over PCIe: copies are real copies
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeDevice(void) {
  ASCENDSIM_PROFILE_API();
  std::shared_ptr<Context> context;
  if (aclError ret = require_current_context(__func__, &context)) return ret;
  Stream::Failure failure;
  const aclError ret = context->device()->synchronize(-1, &failure);
  if (ret == ACL_SUCCESS) return ACL_SUCCESS;
  if (failure.task != 0)
    fail(ret, "%s: device %d: task %llu of one of its streams failed with error %d", __func__, context->device_id(),
         static_cast<unsigned long long>(failure.task), ret);
  else
    fail(ret, "%s: device %d: one of its streams failed with error %d", __func__, context->device_id(), ret);
  if (!failure.message.empty()) add_error_context("%s", failure.message.c_str());
  return ret;
}

aclError aclrtSetTsDevice(aclrtTsId tsId) {
  ASCENDSIM_PROFILE_API();
  if (tsId != ACL_TS_ID_AICORE && tsId != ACL_TS_ID_AIVECTOR)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: tsId %d is not ACL_TS_ID_AICORE (0) or ACL_TS_ID_AIVECTOR (1)",
                __func__, static_cast<int>(tsId));
  return ACL_SUCCESS;
}

aclError aclrtGetDeviceUtilizationRate(int32_t deviceId, aclrtUtilizationInfo* utilizationInfo) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(utilizationInfo);
  if (Runtime::instance().device(deviceId, __func__) == nullptr) return ACL_ERROR_RT_INVALID_DEVICEID;
  // The emulated cores are the host's CPUs; report busy memory only, as a fraction of capacity.
  const MemoryStats stats = Runtime::instance().device(deviceId, __func__)->memory().stats();
  utilizationInfo->cubeUtilization = 0;
  utilizationInfo->vectorUtilization = 0;
  utilizationInfo->aicpuUtilization = 0;
  utilizationInfo->memoryUtilization =
      static_cast<int32_t>(stats.capacity_bytes ? 100.0 * stats.allocated_bytes / stats.capacity_bytes : 0);
  utilizationInfo->utilizationExtend = nullptr;
  return ACL_SUCCESS;
}

aclError aclrtQueryDeviceStatus(int32_t deviceId, aclrtDeviceStatus* deviceStatus) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(deviceStatus);
  if (Runtime::instance().device(deviceId, __func__) == nullptr) return ACL_ERROR_RT_INVALID_DEVICEID;
  *deviceStatus = ACL_RT_DEVICE_STATUS_NORMAL;
  return ACL_SUCCESS;
}

// All emulated devices share the host's memory, so every pair can reach each other.
aclError aclrtDeviceCanAccessPeer(int32_t* canAccessPeer, int32_t deviceId, int32_t peerDeviceId) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(canAccessPeer);
  auto& runtime = Runtime::instance();
  if (runtime.device(deviceId, __func__) == nullptr || runtime.device(peerDeviceId, __func__) == nullptr)
    return ACL_ERROR_RT_INVALID_DEVICEID;
  if (deviceId == peerDeviceId)
    return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: deviceId and peerDeviceId are both %d", __func__, deviceId);
  *canAccessPeer = 1;
  return ACL_SUCCESS;
}

static aclError check_peer(int32_t peerDeviceId, const char* api) {
  std::shared_ptr<Context> context;
  if (aclError ret = require_current_context(api, &context)) return ret;
  if (Runtime::instance().device(peerDeviceId, api) == nullptr) return ACL_ERROR_RT_INVALID_DEVICEID;
  if (peerDeviceId == context->device_id())
    return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: peer device %d is the current device", api, peerDeviceId);
  return ACL_SUCCESS;
}

aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags) {
  ASCENDSIM_PROFILE_API();
  if (flags != 0) return fail(ACL_ERROR_INVALID_PARAM, "%s: flags must be 0, got %u", __func__, flags);
  return check_peer(peerDeviceId, __func__);
}

aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId) {
  ASCENDSIM_PROFILE_API();
  return check_peer(peerDeviceId, __func__);
}

// Timeouts of device-side waits and kernels: accepted and kept; the emulator's tasks never hang.
aclError aclrtSetOpWaitTimeout(uint32_t) {
  ASCENDSIM_PROFILE_API();
  return ACL_SUCCESS;
}
aclError aclrtSetOpExecuteTimeOut(uint32_t) {
  ASCENDSIM_PROFILE_API();
  return ACL_SUCCESS;
}

aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode) {
  ASCENDSIM_PROFILE_API();
  if (mode != ACL_RT_OVERFLOW_MODE_SATURATION && mode != ACL_RT_OVERFLOW_MODE_INFNAN)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: mode %d is not SATURATION (0) or INFNAN (1)", __func__,
                static_cast<int>(mode));
  std::shared_ptr<Context> context;
  if (aclError ret = require_current_context(__func__, &context)) return ret;
  context->device()->sat_mode.store(mode);
  return ACL_SUCCESS;
}

aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode* mode) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(mode);
  std::shared_ptr<Context> context;
  if (aclError ret = require_current_context(__func__, &context)) return ret;
  *mode = static_cast<aclrtFloatOverflowMode>(context->device()->sat_mode.load());
  return ACL_SUCCESS;
}
