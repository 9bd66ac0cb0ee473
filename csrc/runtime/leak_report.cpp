// Leak reports (see leak_report.h). Device allocations are read from the allocator's snapshot; an allocation
// made by a model API (aclmdlLoad*, a concurrent aclmdlExecute's feature map) is the memory of a loaded model
// and is reported as kind "model memory", so a leaked model is not mistaken for a leaked aclrtMalloc.
#include "runtime/leak_report.h"

#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <map>
#include <mutex>

#include "core/log.h"
#include "runtime/device.h"
#include "runtime/runtime.h"

namespace ascendsim {
namespace {

struct Stored {
  std::mutex mutex;
  LeakReport report;
};

Stored& stored() {
  static auto* s = new Stored();  // outlives late destructors at exit
  return *s;
}

void collect_allocations(Device& device, std::vector<LiveObject>* out) {
  for (const MemorySegment& segment : device.memory().snapshot())
    for (const MemoryBlock& block : segment.blocks) {
      if (!block.allocated) continue;
      const bool model_memory = block.api != nullptr && std::strncmp(block.api, "aclmdl", 6) == 0;
      out->push_back(LiveObject{model_memory ? "model memory" : "allocation", reinterpret_cast<void*>(block.address),
                                0, device.id(), block.requested, CreationSite{block.api, block.seq}});
    }
}

void log_report(const LeakReport& report) {
  if (!log_enabled(kLogWarning)) return;
  char scope[32] = "";
  if (report.device >= 0) std::snprintf(scope, sizeof scope, " of device %d", report.device);
  std::map<std::string, size_t> counts;
  uint64_t bytes = 0;
  for (const LiveObject& o : report.objects) {
    ++counts[o.kind];
    bytes += o.size;
    char where[48] = "";
    if (o.device >= 0) std::snprintf(where, sizeof where, " on device %d", o.device);
    char what[64];
    if (o.handle != nullptr)
      std::snprintf(what, sizeof what, "%p", o.handle);
    else
      std::snprintf(what, sizeof what, "id %" PRIu64, o.id);
    char size[40] = "";
    if (o.size != 0) std::snprintf(size, sizeof size, " (%" PRIu64 " bytes)", o.size);
    log(kLogWarning, "ASCENDCL", "%s%s: leaked %s %s%s%s, created by %s (#%" PRIu64 ")", report.trigger, scope, o.kind,
        what, size, where, o.site.api != nullptr ? o.site.api : "?", o.site.seq);
  }
  if (report.objects.empty()) return;
  std::string summary;
  for (auto& [kind, n] : counts) summary += (summary.empty() ? "" : ", ") + std::to_string(n) + " " + kind;
  log(kLogWarning, "ASCENDCL", "%s%s: %zu leaked objects (%s), %" PRIu64 " bytes of device memory", report.trigger,
      scope, report.objects.size(), summary.c_str(), bytes);
}

}  // namespace

LeakReport collect_leaks(int device, const char* trigger) {
  LeakReport report;
  report.trigger = trigger;
  report.device = device;
  for (LiveObject& o : collect_live_objects())
    if (device < 0 || o.device == device) report.objects.push_back(o);
  Runtime::instance().for_each_device([&](Device& d) {
    if (device < 0 || d.id() == device) collect_allocations(d, &report.objects);
  });
  std::stable_sort(report.objects.begin(), report.objects.end(),
                   [](const LiveObject& a, const LiveObject& b) { return a.site.seq < b.site.seq; });
  return report;
}

void report_leaks(int device, const char* trigger) {
  LeakReport report = collect_leaks(device, trigger);
  log_report(report);
  Stored& s = stored();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.report = std::move(report);
}

LeakReport last_leak_report() {
  Stored& s = stored();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.report;
}

std::string leak_report_json(const LeakReport& report) {
  // Every string is an identifier-like literal of the runtime (kinds, API names): nothing to escape.
  std::string json = "{\"trigger\": ";
  json += report.trigger != nullptr ? "\"" + std::string(report.trigger) + "\"" : "null";
  json += ", \"device\": " + std::to_string(report.device) + ", \"objects\": [";
  for (size_t i = 0; i < report.objects.size(); ++i) {
    const LiveObject& o = report.objects[i];
    json += i ? ", " : "";
    json += "{\"kind\": \"" + std::string(o.kind) + "\", \"handle\": " +
            std::to_string(reinterpret_cast<uintptr_t>(o.handle)) + ", \"id\": " + std::to_string(o.id) +
            ", \"device\": " + std::to_string(o.device) + ", \"size\": " + std::to_string(o.size) + ", \"api\": " +
            (o.site.api != nullptr ? "\"" + std::string(o.site.api) + "\"" : std::string("null")) +
            ", \"seq\": " + std::to_string(o.site.seq) + "}";
  }
  return json + "]}";
}

}  // namespace ascendsim
