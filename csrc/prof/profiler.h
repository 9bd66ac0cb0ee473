// The timeline profiler: what the runtime records while profiling is on, and the switches that turn it on.
//
// Recording: every producer appends a Record (a span or a counter sample) to one process-wide
// buffer under a mutex; the buffer is written out as a Chrome trace plus a text summary when profiling ends
// (profiler_writer.cpp). Records name their track by index: tracks are (device, name) pairs registered on
// first use (a device stream, a model stream, a host thread), so a trace has one track per stream and per
// host thread without the producers knowing about each other.
//
// Cost when off: every hot path asks `on(kTaskTime)` or `on(kApi)`, one relaxed atomic load and a branch;
// nothing is allocated, timed or locked. The switches come from three places (profiler_config.cpp): the
// `profiler` section of aclInit's JSON file or the environment (CANN's "command-line" mode: on from aclInit
// to aclFinalize), or the aclprof* API (acl_prof.cpp: on between aclprofStart and aclprofStop).
//
// Timestamps are CLOCK_MONOTONIC nanoseconds (the executor's node observer uses the same clock).
#pragma once
#include <atomic>
#include <cstdint>
#include <string>

namespace ascendsim::prof {

// What is being recorded: a mask of these bits (the ACL_PROF_* values they come from are in acl_prof.cpp).
enum Switch : uint32_t {
  kApi = 1u << 0,       // host API calls (ACL_PROF_ACL_API, ACL_PROF_RUNTIME_API)
  kTaskTime = 1u << 1,  // stream tasks, model nodes and the device memory counter (ACL_PROF_TASK_TIME)
  kTx = 1u << 2,        // the user's msproftx marks and ranges (ACL_PROF_MSPROFTX)
};

extern std::atomic<uint32_t> g_switches;
extern std::atomic<uint64_t> g_devices;  // bit d: device d is profiled (aclprofCreateConfig's list)
inline bool on(uint32_t bits) { return (g_switches.load(std::memory_order_relaxed) & bits) != 0; }
// Task-time recording for a device: checked once `on(kTaskTime)` said yes.
inline bool device_on(int device) {
  return device >= 0 && device < 64 && ((g_devices.load(std::memory_order_relaxed) >> device) & 1u) != 0;
}

uint64_t now_ns();

// A numeric argument of a record ("bytes": 4096); a null key is no argument.
struct Arg {
  const char* key = nullptr;
  uint64_t value = 0;
};

// What a stream task is, given by whoever enqueues it: a static name and up to two numeric arguments.
// A task without a name is recorded as "Task".
struct TaskLabel {
  const char* name = nullptr;
  Arg arg0, arg1;
};

// Tracks. A device's tracks live in the trace's process "Device d", the host's in process "Host".
uint32_t stream_track(int device, uint32_t stream_id, bool is_default);
uint32_t named_track(int device, const std::string& name);
// The track of the stream task running on this thread (0: none), set by the stream worker around a task.
uint32_t current_track();

// For a task whose effect is published to other threads before it returns (an event record): called just
// before publishing, makes the task's span end there, so that whoever waited for it ends after it.
void note_task_end();
inline void task_completes_now() {
  if (on(kTaskTime)) note_task_end();
}
uint64_t take_task_end();  // the stream worker: the time task_completes_now() noted, or 0 (and clears it)

// Makes `track` this thread's current task track for the scope's life (the stream worker, around a task).
class TrackScope {
 public:
  explicit TrackScope(uint32_t track);
  ~TrackScope();
  TrackScope(const TrackScope&) = delete;
  TrackScope& operator=(const TrackScope&) = delete;
  uint32_t id() const { return track_; }

 private:
  uint32_t track_, previous_;
};

// Appends a complete span. `text_key`/`text` add a string argument (a node's op type).
void span(uint32_t track, std::string name, const char* category, uint64_t start_ns, uint64_t end_ns, Arg arg0 = {},
          Arg arg1 = {}, const char* text_key = nullptr, std::string text = {});
// The user's annotations (msproftx) on the calling thread's host track: an instant, or a range from
// `start_ns` to now that may end on another thread than it started on (a Chrome async span, `id` unique).
void host_mark(const std::string& message);
void host_span(const std::string& message, uint64_t start_ns);
void host_range(const std::string& message, uint64_t id, uint64_t start_ns);
// Appends the device's memory counter sample (bytes held by allocations, bytes reserved by segments).
void memory_sample(int device, uint64_t allocated, uint64_t reserved);

// Times one host API call on the calling thread's host track, when kApi is on.
class ApiScope {
 public:
  explicit ApiScope(const char* api) : api_(on(kApi) ? api : nullptr), start_(api_ != nullptr ? now_ns() : 0) {}
  ~ApiScope() {
    if (api_ != nullptr) end();
  }
  ApiScope(const ApiScope&) = delete;
  ApiScope& operator=(const ApiScope&) = delete;

 private:
  void end();
  const char* api_;
  uint64_t start_;
};

// Session control, for profiler_config.cpp and acl_prof.cpp. begin_session() clears the buffer and remembers
// the output directory (every device recorded); set_switches() turns recording on or off, set_devices()
// picks the devices recorded; end_session() turns recording off, writes the trace and summary into a new
// directory under the output directory (PROF_<pid>_<n>) and clears the buffer. Returns false with a message
// in *error when the files cannot be written.
void begin_session(const std::string& output_dir);
void set_switches(uint32_t switches);
void set_devices(uint64_t mask);
bool end_session(std::string* error);

}  // namespace ascendsim::prof

// First line of an API function: its call appears on the host API track while profiling.
#define ASCENDSIM_PROFILE_API() const ::ascendsim::prof::ApiScope ascendsim_api_scope_(__func__)
