// Profiling switched on for the whole run, the way CANN's command-line mode is: decided at aclInit, written
// at aclFinalize. The sources, first match wins:
//   ASCENDSIM_PROFILE=<dir>                         everything, into <dir>;
//   PROFILING_MODE=true, PROFILING_OPTIONS=<json>   CANN's environment (what msprof sets for the program);
//   aclInit's JSON file: {"profiler": {"switch": "on", ...}}.
// PROFILING_OPTIONS and the `profiler` section share one reader: "output" (the directory, default the working
// directory), "task_time" ("on"/"l0"/"l1"/"off": stream tasks, model nodes, memory counter) and "ascendcl"
// ("on"/"off": host API calls), both on by default, and "msproftx" ("on"/"off", default off: the user's marks
// and ranges); CANN's other keys (aicpu, aic_metrics, l2, hccl, ...) are accepted and add nothing, there
// being no such hardware counters to read.
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/error.h"
#include "core/json.h"
#include "core/log.h"
#include "prof/profiler.h"
#include "prof/profiler_session.h"

namespace ascendsim::prof {
namespace {

// An optional "on"/"off"-style string option; false (message recorded) for anything else.
bool read_switch(const JsonValue& section, const char* key, const char* where, const char* const* on_values,
                 bool* value) {
  const JsonValue* v = section.get(key);
  if (v == nullptr) return true;
  if (v->kind == JsonValue::Kind::String) {
    if (v->string == "off") {
      *value = false;
      return true;
    }
    for (const char* const* on = on_values; *on != nullptr; ++on)
      if (v->string == *on) {
        *value = true;
        return true;
      }
  }
  fail(ACL_ERROR_INVALID_PROFILING_CONFIG, "aclInit: %s: \"%s\" must be one of \"on\", \"off\"%s", where, key,
       on_values[1] != nullptr ? " (or \"l0\", \"l1\")" : "");
  return false;
}

aclError read_options(const JsonValue& section, const char* where, std::string* output, uint32_t* switches) {
  if (section.kind != JsonValue::Kind::Object)
    return fail(ACL_ERROR_INVALID_PROFILING_CONFIG, "aclInit: %s must be a JSON object", where);
  if (const JsonValue* out = section.get("output")) {
    if (out->kind != JsonValue::Kind::String || out->string.empty())
      return fail(ACL_ERROR_INVALID_PROFILING_CONFIG, "aclInit: %s: \"output\" must be a non-empty directory path",
                  where);
    *output = out->string;
  }
  static const char* const kOn[] = {"on", nullptr};
  static const char* const kTaskLevels[] = {"on", "l0", "l1", nullptr};
  bool tasks = true, api = true, tx = false;
  if (!read_switch(section, "task_time", where, kTaskLevels, &tasks) ||
      !read_switch(section, "ascendcl", where, kOn, &api) || !read_switch(section, "msproftx", where, kOn, &tx))
    return ACL_ERROR_INVALID_PROFILING_CONFIG;
  *switches = (tasks ? kTaskTime : 0u) | (api ? kApi : 0u) | (tx ? kTx : 0u);
  return ACL_SUCCESS;
}

// The command-line mode's output and switches, from the first source that asks; false: none asks.
aclError command_line_request(const JsonValue* config, bool* requested, std::string* output, uint32_t* switches) {
  *requested = false;
  *output = ".";
  if (const char* dir = std::getenv("ASCENDSIM_PROFILE"); dir != nullptr && dir[0] != '\0') {
    *requested = true;
    *output = dir;
    *switches = kApi | kTaskTime | kTx;
    return ACL_SUCCESS;
  }
  if (const char* mode = std::getenv("PROFILING_MODE"); mode != nullptr && std::strcmp(mode, "true") == 0) {
    const char* options = std::getenv("PROFILING_OPTIONS");
    JsonValue parsed;
    std::string error;
    if (options == nullptr || !parse_json(options, &parsed, &error))
      return fail(ACL_ERROR_INVALID_PROFILING_CONFIG, "aclInit: PROFILING_MODE=true but PROFILING_OPTIONS is %s%s",
                  options == nullptr ? "not set" : "not valid JSON: ", error.c_str());
    *requested = true;
    return read_options(parsed, "PROFILING_OPTIONS", output, switches);
  }
  const JsonValue* section = config != nullptr ? config->get("profiler") : nullptr;
  if (section == nullptr) return ACL_SUCCESS;
  const JsonValue* sw = section->get("switch");
  if (sw != nullptr && (sw->kind != JsonValue::Kind::String || (sw->string != "on" && sw->string != "off")))
    return fail(ACL_ERROR_INVALID_PROFILING_CONFIG, "aclInit: profiler: \"switch\" must be \"on\" or \"off\"");
  if (aclError ret = read_options(*section, "the \"profiler\" section", output, switches)) return ret;
  *requested = sw != nullptr && sw->string == "on";
  return ACL_SUCCESS;
}

}  // namespace

Session& session() {
  static Session* s = new Session();  // never destroyed, like the runtime
  return *s;
}

aclError configure_at_init(const JsonValue* config) {
  bool requested = false;
  std::string output;
  uint32_t switches = 0;
  if (aclError ret = command_line_request(config, &requested, &output, &switches)) return ret;
  if (!requested) return ACL_SUCCESS;
  Session& s = session();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.mode != Mode::kOff) return ACL_SUCCESS;  // the aclprof* API got there first (init before aclInit)
  s.mode = Mode::kCommand;
  begin_session(output);
  set_switches(switches);
  log(kLogInfo, "ASCENDCL", "aclInit: profiling on, output directory \"%s\"", output.c_str());
  return ACL_SUCCESS;
}

void finish_at_finalize() {
  Session& s = session();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.mode == Mode::kOff) return;
  s.mode = Mode::kOff;
  s.devices.clear();
  s.data_types = 0;
  std::string error;
  if (!end_session(&error))
    log(kLogError, "ASCENDCL", "aclFinalize: the profiling data could not be written: %s", error.c_str());
}

}  // namespace ascendsim::prof
