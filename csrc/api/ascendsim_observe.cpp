// ascendsim's observability functions (include/ascendsim/ascendsim_ext.h): leak reports and memory
// snapshots as JSON text. The caller passes a buffer; *length always receives the text's length, so a first
// call with capacity 0 sizes the buffer (the text can change between two calls: callers retry until it fits).
#include <cstring>
#include <string>

#include "ascendsim/ascendsim_ext.h"
#include "core/error.h"
#include "runtime/device.h"
#include "runtime/leak_report.h"
#include "runtime/runtime.h"

using namespace ascendsim;

namespace {

// Copies `text` with its terminating NUL when it fits; ACL_ERROR_INVALID_PARAM (with the size needed) if not.
aclError copy_out(const std::string& text, char* out, size_t capacity, size_t* length, const char* api) {
  *length = text.size();
  if (capacity == 0) return ACL_SUCCESS;  // the size query
  ASCENDSIM_CHECK_NOT_NULL(out);
  if (capacity <= text.size())
    return fail(ACL_ERROR_INVALID_PARAM, "%s: capacity %zu is too small: the text needs %zu bytes with its NUL", api,
                capacity, text.size() + 1);
  std::memcpy(out, text.c_str(), text.size() + 1);
  return ACL_SUCCESS;
}

std::string snapshot_json(int device_id, const std::vector<MemorySegment>& segments) {
  std::string json = "{\"device\": " + std::to_string(device_id) + ", \"segments\": [";
  for (size_t s = 0; s < segments.size(); ++s) {
    const MemorySegment& segment = segments[s];
    json += s ? ", " : "";
    json += "{\"address\": " + std::to_string(segment.address) + ", \"size\": " + std::to_string(segment.size) +
            ", \"pool\": \"" + (segment.small_pool ? "small" : "large") +
            "\", \"stream\": " + std::to_string(segment.stream) + ", \"blocks\": [";
    for (size_t b = 0; b < segment.blocks.size(); ++b) {
      const MemoryBlock& block = segment.blocks[b];
      json += b ? ", " : "";
      json += "{\"address\": " + std::to_string(block.address) + ", \"size\": " + std::to_string(block.size) +
              ", \"requested\": " + std::to_string(block.requested) + ", \"state\": \"" +
              (block.allocated ? "allocated" : "free") + "\", \"api\": " +
              (block.api != nullptr ? "\"" + std::string(block.api) + "\"" : std::string("null")) +
              ", \"seq\": " + std::to_string(block.seq) + "}";
    }
    json += "]}";
  }
  return json + "]}";
}

}  // namespace

extern "C" {

aclError ascendsimGetLeakReport(int32_t live, char* json, size_t capacity, size_t* length) {
  ASCENDSIM_CHECK_NOT_NULL(length);
  const LeakReport report = live != 0 ? collect_leaks(-1, nullptr) : last_leak_report();
  return copy_out(leak_report_json(report), json, capacity, length, __func__);
}

aclError ascendsimGetMemorySnapshot(int32_t deviceId, char* json, size_t capacity, size_t* length) {
  ASCENDSIM_CHECK_NOT_NULL(length);
  Device* device = Runtime::instance().device(deviceId, __func__);
  if (device == nullptr) return ACL_ERROR_RT_INVALID_DEVICEID;
  return copy_out(snapshot_json(deviceId, device->memory().snapshot()), json, capacity, length, __func__);
}

}  // extern "C"
