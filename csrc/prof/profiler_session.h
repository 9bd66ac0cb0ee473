// Who turned profiling on, as CANN's profiling manager tracks it: nobody (off); the "command-line" mode, from
// aclInit to aclFinalize (the `profiler` section of aclInit's JSON file, CANN's PROFILING_MODE /
// PROFILING_OPTIONS environment, or ASCENDSIM_PROFILE=<dir>); or the aclprof* API (acl_prof.cpp). The modes
// exclude each other with CANN's error codes. profiler_config.cpp implements the command-line mode.
#pragma once
#include <cstdint>
#include <mutex>
#include <vector>

#include "acl/acl_base.h"

namespace ascendsim {
struct JsonValue;
}

namespace ascendsim::prof {

enum class Mode { kOff, kCommand, kApi };

struct Session {
  std::mutex mutex;
  Mode mode = Mode::kOff;
  // kApi: the configuration of the running aclprofStart (no devices: not started).
  std::vector<uint32_t> devices;
  uint64_t data_types = 0;
};

Session& session();

// aclInit: `config` is the parsed JSON file (null or a Null value: none). Starts the command-line mode if the
// environment or the `profiler` section asks for it; returns ACL_ERROR_INVALID_PROFILING_CONFIG (message
// recorded) for a malformed section or PROFILING_OPTIONS.
aclError configure_at_init(const JsonValue* config);
// aclFinalize: ends whatever mode is on and writes its trace (a failure to write is logged).
void finish_at_finalize();

}  // namespace ascendsim::prof
