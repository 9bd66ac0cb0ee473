#include "runtime/runtime.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/byte_size.h"
#include "core/error.h"
#include "core/fault_injection.h"
#include "core/json.h"
#include "prof/profiler_session.h"
#include "runtime/context.h"
#include "runtime/device.h"
#include "runtime/event.h"
#include "runtime/leak_report.h"
#include "runtime/stream.h"

namespace ascendsim {
namespace {

constexpr int kDefaultDeviceCount = 8;
constexpr size_t kDefaultDeviceMemory = size_t{32} << 30;
constexpr const char* kDefaultSocName = "Ascend910B1";

int env_device_count() {
  const char* text = std::getenv("ASCENDSIM_DEVICE_COUNT");
  if (text == nullptr) return kDefaultDeviceCount;
  const long n = std::strtol(text, nullptr, 10);
  return n >= 1 && n <= kMaxDevices ? static_cast<int>(n) : kDefaultDeviceCount;
}

size_t env_device_memory() {
  const char* text = std::getenv("ASCENDSIM_DEVICE_MEMORY");
  const size_t bytes = text != nullptr ? parse_byte_size(text) : 0;
  return bytes != 0 ? bytes : kDefaultDeviceMemory;
}

std::string env_soc_name() {
  const char* text = std::getenv("ASCENDSIM_SOC_NAME");
  return text != nullptr && text[0] != '\0' ? text : kDefaultSocName;
}

thread_local std::shared_ptr<Context> tls_current_context;

}  // namespace

Runtime::Runtime()
    : device_count_(env_device_count()),
      device_capacity_(env_device_memory()),
      soc_name_(env_soc_name()) {}

Runtime& Runtime::instance() {
  // Never destroyed: worker threads and late destructors (Python at shutdown) may still call in.
  static Runtime* runtime = new Runtime();
  return *runtime;
}

aclError Runtime::init(const char* config_path) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (initialized()) return fail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit: already initialized (call aclFinalize first)");
  JsonValue config;  // stays Null without a file
  if (config_path != nullptr && config_path[0] != '\0') {
    std::ifstream file(config_path, std::ios::binary);
    if (!file) return fail(ACL_ERROR_INVALID_FILE, "aclInit: cannot open config file \"%s\"", config_path);
    std::stringstream text;
    text << file.rdbuf();
    const std::string content = text.str();
    std::string error;
    if (!content.empty() && !parse_json(content, &config, &error))
      return fail(ACL_ERROR_PARSE_FILE, "aclInit: config file \"%s\" is not valid JSON: %s", config_path, error.c_str());
    if (!content.empty() && config.kind != JsonValue::Kind::Object)
      return fail(ACL_ERROR_PARSE_FILE, "aclInit: config file \"%s\" must hold a JSON object", config_path);
  }
  // ASCENDSIM_FAULTS is read by the first aclInit that accepts it (docs/fault-injection.md).
  if (!faults_read_) {
    if (aclError ret = fault::add_rules(std::getenv("ASCENDSIM_FAULTS"), "aclInit: ASCENDSIM_FAULTS")) return ret;
    faults_read_ = true;
  }
  if (aclError ret = prof::configure_at_init(&config)) return ret;
  initialized_.store(true, std::memory_order_release);
  return ACL_SUCCESS;
}

aclError Runtime::finalize() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!initialized()) {
    return ever_finalized_ ? fail(ACL_ERROR_REPEAT_FINALIZE, "aclFinalize: already finalized")
                           : fail(ACL_ERROR_REPEAT_FINALIZE, "aclFinalize: aclInit was never called");
  }
  report_leaks(-1, "aclFinalize");  // what the user did not destroy, before finalizing releases it
  // Like the real runtime, finalizing releases what the devices still hold: contexts, streams, memory.
  for_each_device([](Device& device) { device.release_all("aclFinalize"); });
  // Events are not released by a device reset (programs use them across one), but after aclFinalize no
  // handle is valid any more; dropping them keeps init/finalize cycles from leaking the events a program did
  // not destroy. Tasks still holding one keep it alive until they finish.
  for (auto& event : events.snapshot()) events.remove(event.get());
  prof::finish_at_finalize();  // after the devices drained their streams: every task is in the trace
  tls_current_context.reset();
  initialized_.store(false, std::memory_order_release);
  ever_finalized_ = true;
  return ACL_SUCCESS;
}

Device* Runtime::device(int32_t id, const char* api) {
  if (id < 0 || id >= device_count_) {
    fail(ACL_ERROR_RT_INVALID_DEVICEID, "%s: device id %d is out of range: there are %d devices (ids 0..%d; "
         "ASCENDSIM_DEVICE_COUNT sets how many the emulator has)", api, id, device_count_, device_count_ - 1);
    return nullptr;
  }
  Device* existing = devices_[id].load(std::memory_order_acquire);
  if (existing != nullptr) return existing;
  std::lock_guard<std::mutex> lock(mutex_);
  existing = devices_[id].load(std::memory_order_acquire);
  if (existing == nullptr) {
    existing = new Device(id, device_capacity_);  // lives as long as the process, like the card
    devices_[id].store(existing, std::memory_order_release);
  }
  return existing;
}

Device* Runtime::device_of_address(const void* p) const {
  for (int i = 0; i < device_count_; ++i) {
    Device* d = devices_[i].load(std::memory_order_acquire);
    if (d != nullptr && d->memory().in_range(p)) return d;
  }
  return nullptr;
}

aclError require_initialized(const char* api) {
  if (Runtime::instance().initialized()) return ACL_SUCCESS;
  return fail(ACL_ERROR_UNINITIALIZE, "%s: aclInit has not been called (call it once, before this)", api);
}

std::shared_ptr<Context> current_context() {
  if (tls_current_context && tls_current_context->destroyed()) tls_current_context.reset();
  return tls_current_context;
}

void set_current_context(std::shared_ptr<Context> context) { tls_current_context = std::move(context); }

aclError require_current_context(const char* api, std::shared_ptr<Context>* out) {
  *out = current_context();
  if (*out) return ACL_SUCCESS;
  return fail(ACL_ERROR_RT_CONTEXT_NULL,
              "%s: the calling thread has no current context (call aclrtSetDevice or aclrtSetCurrentContext first)",
              api);
}

aclError resolve_stream(aclrtStream handle, const char* api, std::shared_ptr<Stream>* out) {
  if (handle == nullptr) {
    std::shared_ptr<Context> context;
    if (aclError ret = require_current_context(api, &context)) return ret;
    *out = context->default_stream();
    return ACL_SUCCESS;
  }
  *out = Runtime::instance().streams.find(handle);
  if (*out) return ACL_SUCCESS;
  return fail(ACL_ERROR_RT_INVALID_HANDLE, "%s: stream %p is not a live stream (destroyed or never created)", api,
              handle);
}

}  // namespace ascendsim
