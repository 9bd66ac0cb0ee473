// ascendsim's observability functions (include/ascendsim/ascendsim_ext.h): leak reports, memory snapshots and
// the kernels of a loaded model as JSON text. The caller passes a buffer; *length always receives the text's length, so a first
// call with capacity 0 sizes the buffer (the text can change between two calls: callers retry until it fits).
#include <cstring>
#include <string>

#include "ascendsim/ascendsim_ext.h"
#include "core/error.h"
#include "core/json.h"
#include "kernels/isa.h"
#include "model/loaded_model.h"
#include "model/model_registry.h"
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

std::string kernels_json(uint32_t model_id, const model::LoadedModel& loaded) {
  const model::ModelDef& def = *loaded.def();
  std::string json = "{\"model\": " + std::to_string(model_id) + ", \"variant\": " +
                     json_quote(kernels::active_isa_name()) + ", \"plans\": [";
  for (size_t p = 0; p < loaded.plan_count(); ++p) {
    const std::vector<std::string> paths = loaded.kernel_paths(p);
    json += std::string(p ? ", " : "") + "{\"nodes\": [";
    for (size_t n = 0; n < paths.size(); ++n) {
      const model::NodeDef& node = def.plans[p].nodes[n];
      json += std::string(n ? ", " : "") + "{\"name\": " + json_quote(node.name) + ", \"op\": " +
              json_quote(node.op_type) + ", \"path\": " + json_quote(paths[n]) + "}";
    }
    json += "]}";
  }
  return json + "]}";
}

}  // namespace

extern "C" {

aclError ascendsimGetModelKernels(uint32_t modelId, char* json, size_t capacity, size_t* length) {
  ASCENDSIM_CHECK_NOT_NULL(length);
  const std::shared_ptr<model::LoadedModel> loaded = model::find_loaded_model(modelId);
  if (loaded == nullptr)
    return fail(ACL_ERROR_GE_EXEC_MODEL_ID_INVALID, "%s: model id %u is not loaded", __func__, modelId);
  return copy_out(kernels_json(modelId, *loaded), json, capacity, length, __func__);
}

aclError ascendsimGetModelMemory(uint32_t modelId, ascendsimModelMemory* memory) {
  ASCENDSIM_CHECK_NOT_NULL(memory);
  const std::shared_ptr<model::LoadedModel> loaded = model::find_loaded_model(modelId);
  if (loaded == nullptr)
    return fail(ACL_ERROR_GE_EXEC_MODEL_ID_INVALID, "%s: model id %u is not loaded", __func__, modelId);
  *memory = {};
  if (const model::HybridModel* hybrid = loaded->hybrid()) {
    const model::HybridModel::MemoryPeaks peaks = hybrid->memory_peaks();
    memory->runtime = 2;
    memory->last_peak_bytes = peaks.last;
    memory->max_peak_bytes = peaks.max;
    memory->executions = peaks.executions;
  } else {
    memory->runtime = 1;
    memory->planned_bytes = loaded->def()->plans[loaded->last_plan()].feature_map_size;
    memory->last_peak_bytes = memory->max_peak_bytes = memory->planned_bytes;
  }
  return ACL_SUCCESS;
}

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
