// The aclprof* collection API: aclprofInit (output directory) -> aclprofCreateConfig -> aclprofStart ...
// aclprofStop -> aclprofFinalize (writes the trace and summary, see prof/profiler.h). The checks and their
// codes follow CANN's profiling manager: a null or mis-sized path is ACL_ERROR_INVALID_PARAM; init while the
// command-line mode (aclInit's JSON, the environment) runs is ACL_ERROR_PROF_ALREADY_RUN, a second init
// ACL_ERROR_REPEAT_INITIALIZE; start / stop / finalize without init are ACL_ERROR_PROF_NOT_RUN (in the
// command-line mode ACL_ERROR_PROF_ALREADY_RUN); an empty data-type mask is ACL_ERROR_INVALID_PARAM and an
// unknown bit ACL_ERROR_PROF_MODULES_UNSUPPORTED; a null config starts every device with the defaults and
// stops whatever runs. aclprofFinalize also stops a running collection. Configs live in a handle registry, so
// a destroyed or foreign one is an error code, not a crash.
#include <cstring>
#include <memory>
#include <vector>

#include "acl/acl_prof.h"
#include "core/error.h"
#include "core/handle_registry.h"
#include "prof/profiler.h"
#include "prof/profiler_buffer.h"
#include "prof/profiler_session.h"
#include "runtime/runtime.h"

struct aclprofConfig {
  std::vector<uint32_t> devices;
  aclprofAicoreMetrics metrics;
  uint64_t data_types;
};

using namespace ascendsim;

namespace {

constexpr size_t kMaxPathLength = 4096;
constexpr uint64_t kKnownDataTypes = ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_AICORE_METRICS | ACL_PROF_AICPU |
                                     ACL_PROF_L2CACHE | ACL_PROF_HCCL_TRACE | ACL_PROF_TRAINING_TRACE |
                                     ACL_PROF_MSPROFTX | ACL_PROF_RUNTIME_API;
constexpr uint64_t kDefaultDataTypes = ACL_PROF_ACL_API | ACL_PROF_TASK_TIME;

HandleRegistry<aclprofConfig>& configs() {
  static auto* registry = new HandleRegistry<aclprofConfig>("profiling config");  // outlives late destructors
  return *registry;
}

bool known_metrics(aclprofAicoreMetrics m) {
  return (m >= ACL_AICORE_ARITHMETIC_UTILIZATION && m <= ACL_AICORE_MEMORY_UB) || m == ACL_AICORE_NONE;
}

// The precheck of start / stop / finalize: the API mode must be on. Called with the session locked.
aclError require_api_mode(const prof::Session& s, const char* api) {
  if (s.mode == prof::Mode::kApi) return ACL_SUCCESS;
  if (s.mode == prof::Mode::kCommand)
    return fail(ACL_ERROR_PROF_ALREADY_RUN, "%s: profiling was turned on by aclInit's configuration or the "
                "environment; the aclprof* API cannot control it", api);
  return fail(ACL_ERROR_PROF_NOT_RUN, "%s: call aclprofInit first", api);
}

// The config to start or stop with: the user's (checked), or null's defaults (every device).
aclError resolve_config(const aclprofConfig* handle, const char* api, aclprofConfig* out) {
  if (handle == nullptr) {
    out->devices.clear();
    for (int d = 0; d < Runtime::instance().device_count(); ++d) out->devices.push_back(static_cast<uint32_t>(d));
    out->metrics = ACL_AICORE_NONE;
    out->data_types = kDefaultDataTypes;
    return ACL_SUCCESS;
  }
  std::shared_ptr<aclprofConfig> config = configs().find(handle);
  if (!config)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: profilerConfig %p is not a live aclprofConfig", api,
                static_cast<const void*>(handle));
  if (config->data_types == 0)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: the config's dataTypeConfig is 0: nothing to collect", api);
  if ((config->data_types & ~kKnownDataTypes) != 0)
    return fail(ACL_ERROR_PROF_MODULES_UNSUPPORTED, "%s: dataTypeConfig 0x%llx has unsupported bits 0x%llx "
                "(supported: 0x%llx)", api, static_cast<unsigned long long>(config->data_types),
                static_cast<unsigned long long>(config->data_types & ~kKnownDataTypes),
                static_cast<unsigned long long>(kKnownDataTypes));
  *out = *config;
  return ACL_SUCCESS;
}

uint64_t device_mask(const std::vector<uint32_t>& devices) {
  uint64_t mask = 0;
  for (uint32_t d : devices) mask |= uint64_t{1} << d;
  return mask;
}

// What is recorded for an ACL_PROF_* mask; the other bits name hardware counters the emulator has not got.
uint32_t switches_for(uint64_t data_types) {
  uint32_t switches = 0;
  if ((data_types & (ACL_PROF_ACL_API | ACL_PROF_RUNTIME_API)) != 0) switches |= prof::kApi;
  if ((data_types & ACL_PROF_TASK_TIME) != 0) switches |= prof::kTaskTime;
  if ((data_types & ACL_PROF_MSPROFTX) != 0) switches |= prof::kTx;
  return switches;
}

// aclprofStart / aclprofStop: the config resolved, then `body(session, config)` under the session's lock once
// the API mode is checked.
template <typename Body>
aclError with_api_session(const aclprofConfig* handle, const char* api, Body body) {
  aclprofConfig config;
  if (aclError ret = resolve_config(handle, api, &config)) return ret;
  prof::Session& s = prof::session();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (aclError ret = require_api_mode(s, api)) return ret;
  return body(s, config);
}

}  // namespace

extern "C" {

aclError aclprofInit(const char* profilerResultPath, size_t length) {
  if (profilerResultPath == nullptr)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'profilerResultPath' is NULL", __func__);
  if (length == 0 || length > kMaxPathLength)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: length %zu is out of range [1, %zu]", __func__, length, kMaxPathLength);
  if (strnlen(profilerResultPath, length + 1) != length)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: length %zu is not the length of profilerResultPath \"%.*s\"", __func__,
                length, static_cast<int>(length), profilerResultPath);
  prof::Session& s = prof::session();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.mode == prof::Mode::kCommand)
    return fail(ACL_ERROR_PROF_ALREADY_RUN, "%s: profiling was turned on by aclInit's configuration or the "
                "environment", __func__);
  if (s.mode == prof::Mode::kApi)
    return fail(ACL_ERROR_REPEAT_INITIALIZE, "%s: already initialized (call aclprofFinalize first)", __func__);
  const std::string path(profilerResultPath, length);
  std::string error;
  if (!prof::make_directory(path, &error)) return fail(ACL_ERROR_INVALID_FILE, "%s: %s", __func__, error.c_str());
  prof::begin_session(path);
  s.mode = prof::Mode::kApi;
  return ACL_SUCCESS;
}

aclprofConfig* aclprofCreateConfig(uint32_t* deviceIdList, uint32_t deviceNums, aclprofAicoreMetrics aicoreMetrics,
                                   const aclprofAicoreEvents* aicoreEvents, uint64_t dataTypeConfig) {
  const int count = Runtime::instance().device_count();
  if (deviceIdList == nullptr) {
    fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'deviceIdList' is NULL", __func__);
    return nullptr;
  }
  if (deviceNums == 0 || deviceNums > static_cast<uint32_t>(count)) {
    fail(ACL_ERROR_INVALID_PARAM, "%s: deviceNums %u is out of range [1, %d]", __func__, deviceNums, count);
    return nullptr;
  }
  if (!known_metrics(aicoreMetrics)) {
    fail(ACL_ERROR_INVALID_PARAM, "%s: aicoreMetrics %d is not an aclprofAicoreMetrics value", __func__,
         static_cast<int>(aicoreMetrics));
    return nullptr;
  }
  if (aicoreEvents != nullptr) {
    fail(ACL_ERROR_INVALID_PARAM, "%s: aicoreEvents must be NULL", __func__);
    return nullptr;
  }
  auto config = std::make_shared<aclprofConfig>();
  for (uint32_t i = 0; i < deviceNums; ++i) {
    const uint32_t d = deviceIdList[i];
    if (d >= static_cast<uint32_t>(count)) {
      fail(ACL_ERROR_INVALID_PARAM, "%s: deviceIdList[%u] = %u is not a device id (0..%d)", __func__, i, d, count - 1);
      return nullptr;
    }
    for (uint32_t seen : config->devices)
      if (seen == d) {
        fail(ACL_ERROR_INVALID_PARAM, "%s: device %u is listed twice", __func__, d);
        return nullptr;
      }
    config->devices.push_back(d);
  }
  config->metrics = aicoreMetrics;
  config->data_types = dataTypeConfig;
  return static_cast<aclprofConfig*>(configs().add(std::move(config)));
}

aclError aclprofDestroyConfig(const aclprofConfig* profilerConfig) {
  ASCENDSIM_CHECK_NOT_NULL(profilerConfig);
  if (!configs().remove(profilerConfig))
    return fail(ACL_ERROR_INVALID_PARAM, "%s: profilerConfig %p is not a live aclprofConfig", __func__,
                static_cast<const void*>(profilerConfig));
  return ACL_SUCCESS;
}

aclError aclprofStart(const aclprofConfig* profilerConfig) {
  return with_api_session(profilerConfig, __func__, [](prof::Session& s, const aclprofConfig& config) {
    if (!s.devices.empty())
      return fail(ACL_ERROR_PROF_ALREADY_RUN, "%s: profiling is already started (call aclprofStop first)",
                  "aclprofStart");
    s.devices = config.devices;
    s.data_types = config.data_types;
    prof::set_devices(device_mask(config.devices));
    prof::set_switches(switches_for(config.data_types));
    return ACL_SUCCESS;
  });
}

aclError aclprofStop(const aclprofConfig* profilerConfig) {
  return with_api_session(profilerConfig, __func__, [&](prof::Session& s, const aclprofConfig&) {
    if (s.devices.empty()) {
      if (profilerConfig == nullptr) return ACL_SUCCESS;  // CANN: stopping "whatever runs" when nothing does
      return fail(ACL_ERROR_PROF_NOT_RUN, "%s: profiling was not started (call aclprofStart first)", "aclprofStop");
    }
    prof::set_switches(0);
    s.devices.clear();
    s.data_types = 0;
    return ACL_SUCCESS;
  });
}

aclError aclprofFinalize() {
  prof::Session& s = prof::session();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (aclError ret = require_api_mode(s, __func__)) return ret;
  s.mode = prof::Mode::kOff;
  s.devices.clear();
  s.data_types = 0;
  std::string error;
  if (!prof::end_session(&error)) return fail(ACL_ERROR_INVALID_FILE, "%s: %s", __func__, error.c_str());
  return ACL_SUCCESS;
}

}  // extern "C"
