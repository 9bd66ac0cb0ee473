// The profiler's record buffer and tracks (the design is described in profiler.h).
#include "prof/profiler.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <utility>

#include "prof/profiler_buffer.h"

namespace ascendsim::prof {

std::atomic<uint32_t> g_switches{0};
std::atomic<uint64_t> g_devices{~uint64_t{0}};

namespace {
thread_local uint32_t t_task_track = 0;
thread_local uint32_t t_host_track = 0;
}  // namespace

Buffer& buffer() {
  static Buffer* b = new Buffer();  // never destroyed: stream workers may record during process exit
  return *b;
}

uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

namespace {

// Index + 1 of the track (device, name), registered on first use; `sort` orders tracks within a process.
uint32_t track_locked(Buffer& b, int device, const std::string& name, uint64_t sort) {
  auto key = std::make_pair(device, name);
  auto it = b.track_index.find(key);
  if (it != b.track_index.end()) return it->second;
  b.tracks.push_back(Track{device, name, sort});
  const auto id = static_cast<uint32_t>(b.tracks.size());
  b.track_index.emplace(std::move(key), id);
  return id;
}

}  // namespace

uint32_t stream_track(int device, uint32_t stream_id, bool is_default) {
  std::string name = "stream " + std::to_string(stream_id);
  if (is_default) name += " (default)";
  Buffer& b = buffer();
  std::lock_guard<std::mutex> lock(b.mutex);
  return track_locked(b, device, name, stream_id);
}

uint32_t named_track(int device, const std::string& name) {
  Buffer& b = buffer();
  std::lock_guard<std::mutex> lock(b.mutex);
  return track_locked(b, device, name, uint64_t{1} << 32);  // after the user's streams
}

uint32_t current_track() { return t_task_track; }

namespace {
thread_local uint64_t t_task_end = 0;
}

void note_task_end() {
  if (t_task_track != 0) t_task_end = now_ns();
}

uint64_t take_task_end() {
  const uint64_t end = t_task_end;
  t_task_end = 0;
  return end;
}

TrackScope::TrackScope(uint32_t track) : track_(track), previous_(t_task_track) { t_task_track = track; }
TrackScope::~TrackScope() { t_task_track = previous_; }

void span(uint32_t track, std::string name, const char* category, uint64_t start_ns, uint64_t end_ns, Arg arg0,
          Arg arg1, const char* text_key, std::string text) {
  Buffer& b = buffer();
  std::lock_guard<std::mutex> lock(b.mutex);
  b.records.push_back(Record{'X', track, start_ns, end_ns, std::move(name), category, arg0, arg1, text_key,
                             std::move(text)});
}

void memory_sample(int device, uint64_t allocated, uint64_t reserved) {
  const uint64_t t = now_ns();
  Buffer& b = buffer();
  std::lock_guard<std::mutex> lock(b.mutex);
  const uint32_t track = track_locked(b, device, "device memory", uint64_t{2} << 32);
  b.records.push_back(Record{'C', track, t, t, "device memory", "memory", Arg{"allocated", allocated},
                             Arg{"reserved", reserved}, nullptr, {}});
}

namespace {

uint32_t host_track() {
  if (t_host_track == 0) {
    const auto tid = static_cast<uint64_t>(::syscall(SYS_gettid));
    Buffer& b = buffer();
    std::lock_guard<std::mutex> lock(b.mutex);
    t_host_track = track_locked(b, kHostProcess, "host thread " + std::to_string(tid), tid);
  }
  return t_host_track;
}

void append(Record record) {
  Buffer& b = buffer();
  std::lock_guard<std::mutex> lock(b.mutex);
  b.records.push_back(std::move(record));
}

}  // namespace

void ApiScope::end() {
  const uint64_t stop = now_ns();
  span(host_track(), api_, "api", start_, stop);
}

void host_mark(const std::string& message) {
  const uint64_t t = now_ns();
  append(Record{'i', host_track(), t, t, message, "msproftx", {}, {}, nullptr, {}});
}

void host_span(const std::string& message, uint64_t start_ns) {
  span(host_track(), message, "msproftx", start_ns, now_ns());
}

void host_range(const std::string& message, uint64_t id, uint64_t start_ns) {
  append(Record{'b', host_track(), start_ns, now_ns(), message, "msproftx", {"id", id}, {}, nullptr, {}});
}

void begin_session(const std::string& output_dir) {
  Buffer& b = buffer();
  std::lock_guard<std::mutex> lock(b.mutex);
  b.records.clear();
  b.output_dir = output_dir;
  g_devices.store(~uint64_t{0}, std::memory_order_relaxed);
}

void set_switches(uint32_t switches) { g_switches.store(switches, std::memory_order_relaxed); }
void set_devices(uint64_t mask) { g_devices.store(mask, std::memory_order_relaxed); }

}  // namespace ascendsim::prof
