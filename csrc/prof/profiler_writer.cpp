// Writing a profiling session: the records become
//   <output>/PROF_<pid>_<n>/trace.json   a Chrome trace-event file (Perfetto, chrome://tracing): process 1 is
//                                         the host (one track per thread: API calls), process d+2 is device d
//                                         (one track per stream with its tasks, model streams with their
//                                         nodes, and the "device memory" counter);
//   <output>/PROF_<pid>_<n>/summary.txt  msprof-style tables: time per op type (msprof's op_statistic
//                                         columns), the slowest nodes, stream tasks and host API calls;
//   <output>/PROF_<pid>_<n>/op_summary.csv, op_statistic.csv   msprof's two CSV files for the model nodes:
//                                         one row per node execution, one row per op type.
// Times are microseconds with nanosecond decimals; a span's parent comes before it (sorted by start time,
// then longest first), so viewers nest spans that start together correctly.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/json.h"
#include "prof/profiler_buffer.h"

namespace ascendsim::prof {
namespace {

// Trace process ids: the host is 1, device d is d + 2 (pid 0 means the idle task to some viewers).
int pid_of(int device) { return device == kHostProcess ? 1 : device + 2; }

std::string micros(uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
  return buf;
}

void write_trace(std::FILE* f, const std::vector<Record>& records, const std::vector<Track>& tracks) {
  std::set<uint32_t> used;  // tracks with spans (a counter belongs to its process, not to a track)
  std::set<int> processes;
  for (const Record& r : records) {
    if (r.phase != 'C') used.insert(r.track);
    processes.insert(tracks[r.track - 1].device);
  }
  std::fprintf(f, "{\"displayTimeUnit\": \"ns\", \"otherData\": {\"producer\": \"ascendsim\", \"clock\": "
                  "\"CLOCK_MONOTONIC\"},\n\"traceEvents\": [\n");
  const char* sep = "";
  for (int device : processes) {
    const std::string name = device == kHostProcess ? "Host" : "Device " + std::to_string(device);
    std::fprintf(f, "%s{\"ph\": \"M\", \"pid\": %d, \"name\": \"process_name\", \"args\": {\"name\": %s}}", sep,
                 pid_of(device), json_quote(name).c_str());
    sep = ",\n";
    std::fprintf(f, "%s{\"ph\": \"M\", \"pid\": %d, \"name\": \"process_sort_index\", \"args\": {\"sort_index\": %d}}",
                 sep, pid_of(device), pid_of(device));
  }
  for (uint32_t t : used) {
    const Track& track = tracks[t - 1];
    std::fprintf(f, "%s{\"ph\": \"M\", \"pid\": %d, \"tid\": %u, \"name\": \"thread_name\", \"args\": {\"name\": %s}}",
                 sep, pid_of(track.device), t, json_quote(track.name).c_str());
    std::fprintf(f, "%s{\"ph\": \"M\", \"pid\": %d, \"tid\": %u, \"name\": \"thread_sort_index\", \"args\": "
                 "{\"sort_index\": %" PRIu64 "}}", sep, pid_of(track.device), t, track.sort);
  }
  for (const Record& r : records) {
    std::string args;
    for (const Arg& a : {r.arg0, r.arg1})
      if (a.key != nullptr) args += (args.empty() ? "" : ", ") + json_quote(a.key) + ": " + std::to_string(a.value);
    if (r.text_key != nullptr)
      args += (args.empty() ? "" : ", ") + json_quote(r.text_key) + ": " + json_quote(r.text);
    const int pid = pid_of(tracks[r.track - 1].device);
    if (r.phase == 'C') {
      std::fprintf(f, "%s{\"ph\": \"C\", \"pid\": %d, \"ts\": %s, \"name\": %s, \"args\": {%s}}", sep, pid,
                   micros(r.start).c_str(), json_quote(r.name).c_str(), args.c_str());
    } else if (r.phase == 'i') {
      std::fprintf(f, "%s{\"ph\": \"i\", \"s\": \"t\", \"pid\": %d, \"tid\": %u, \"ts\": %s, \"name\": %s, "
                   "\"cat\": \"%s\"}", sep, pid, r.track, micros(r.start).c_str(), json_quote(r.name).c_str(),
                   r.category);
    } else if (r.phase == 'b') {
      for (const auto& [phase, t] : {std::make_pair("b", r.start), std::make_pair("e", r.end)})
        std::fprintf(f, "%s{\"ph\": \"%s\", \"pid\": %d, \"tid\": %u, \"ts\": %s, \"id\": %" PRIu64
                     ", \"name\": %s, \"cat\": \"%s\"}", sep, phase, pid, r.track, micros(t).c_str(),
                     r.arg0.value, json_quote(r.name).c_str(), r.category);
    } else {
      std::fprintf(f, "%s{\"ph\": \"X\", \"pid\": %d, \"tid\": %u, \"ts\": %s, \"dur\": %s, \"name\": %s, "
                   "\"cat\": \"%s\", \"args\": {%s}}", sep, pid, r.track, micros(r.start).c_str(),
                   micros(r.end - r.start).c_str(), json_quote(r.name).c_str(), r.category, args.c_str());
    }
  }
  std::fprintf(f, "\n]}\n");
}

struct Stat {
  uint64_t count = 0, total = 0, min = UINT64_MAX, max = 0;
  void add(uint64_t ns) {
    ++count;
    total += ns;
    min = std::min(min, ns);
    max = std::max(max, ns);
  }
};

// One table: rows sorted by total time, at most `limit` of them, with each row's share of the table's time.
void write_table(std::FILE* f, const char* title, const char* key_header, const std::map<std::string, Stat>& stats,
                 size_t limit) {
  std::vector<std::pair<std::string, Stat>> rows(stats.begin(), stats.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second.total > b.second.total; });
  uint64_t sum = 0;
  size_t width = std::strlen(key_header);
  for (const auto& row : rows) {
    sum += row.second.total;
    width = std::max(width, row.first.size());
  }
  std::fprintf(f, "%s\n", title);
  if (rows.empty()) {
    std::fprintf(f, "  (none)\n\n");
    return;
  }
  const int w = static_cast<int>(std::min<size_t>(width, 60));
  std::fprintf(f, "  %-*s %8s %16s %14s %14s %14s %9s\n", w, key_header, "Count", "Total Time(us)", "Avg Time(us)",
               "Min Time(us)", "Max Time(us)", "Ratio(%)");
  for (size_t i = 0; i < rows.size() && i < limit; ++i) {
    const Stat& s = rows[i].second;
    std::fprintf(f, "  %-*s %8" PRIu64 " %16.3f %14.3f %14.3f %14.3f %9.2f\n", w, rows[i].first.c_str(), s.count,
                 s.total / 1e3, s.total / 1e3 / s.count, s.min / 1e3, s.max / 1e3, sum ? 100.0 * s.total / sum : 0.0);
  }
  if (rows.size() > limit) std::fprintf(f, "  ... %zu more\n", rows.size() - limit);
  std::fprintf(f, "\n");
}

bool is_node(const Record& r) { return r.phase == 'X' && std::strcmp(r.category, "node") == 0; }

std::map<std::string, Stat> op_type_stats(const std::vector<Record>& records) {
  std::map<std::string, Stat> op_types;
  for (const Record& r : records)
    if (is_node(r)) op_types[r.text].add(r.end - r.start);
  return op_types;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// msprof's op_summary: one row per node execution, in time order. The wait time is the gap since the
// previous node on the same track ended (0 for the first).
void write_op_summary(std::FILE* f, const std::vector<Record>& records, const std::vector<Track>& tracks) {
  std::fprintf(f, "Op Name,OP Type,Stream,Task Start Time(us),Task Duration(us),Task Wait Time(us)\n");
  std::map<uint32_t, uint64_t> last_end;
  for (const Record& r : records) {
    if (!is_node(r)) continue;
    auto it = last_end.find(r.track);
    const uint64_t wait = it != last_end.end() && r.start > it->second ? r.start - it->second : 0;
    last_end[r.track] = r.end;
    std::fprintf(f, "%s,%s,%s,%s,%s,%s\n", csv_field(r.name).c_str(), csv_field(r.text).c_str(),
                 csv_field(tracks[r.track - 1].name).c_str(), micros(r.start).c_str(), micros(r.end - r.start).c_str(),
                 micros(wait).c_str());
  }
}

// msprof's op_statistic: per op type, slowest first.
void write_op_statistic(std::FILE* f, const std::vector<Record>& records) {
  const std::map<std::string, Stat> stats = op_type_stats(records);
  std::vector<std::pair<std::string, Stat>> rows(stats.begin(), stats.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second.total > b.second.total; });
  uint64_t sum = 0;
  for (const auto& row : rows) sum += row.second.total;
  std::fprintf(f, "OP Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%%)\n");
  for (const auto& [type, s] : rows)
    std::fprintf(f, "%s,%" PRIu64 ",%s,%s,%.3f,%s,%.2f\n", csv_field(type).c_str(), s.count, micros(s.total).c_str(),
                 micros(s.min).c_str(), s.total / 1e3 / s.count, micros(s.max).c_str(),
                 sum ? 100.0 * s.total / sum : 0.0);
}

void write_summary(std::FILE* f, const std::vector<Record>& records) {
  const std::map<std::string, Stat> op_types = op_type_stats(records);
  std::map<std::string, Stat> nodes, models, tasks, apis, ranges;
  for (const Record& r : records) {
    if (r.phase != 'X' && r.phase != 'b') continue;
    const uint64_t ns = r.end - r.start;
    const std::string category = r.category;
    if (category == "node") {
      nodes[r.name + " (" + r.text + ")"].add(ns);
    } else if (category == "model") {
      models[r.name].add(ns);
    } else if (category == "task") {
      tasks[r.name].add(ns);
    } else if (category == "api") {
      apis[r.name].add(ns);
    } else if (category == "msproftx") {
      ranges[r.name].add(ns);
    }
  }
  std::fprintf(f, "ascendsim profile summary (times in microseconds; trace.json holds every span)\n\n");
  write_table(f, "Op statistic: model node time per op type", "OP Type", op_types, SIZE_MAX);
  write_table(f, "Top nodes by total time", "Op Name (OP Type)", nodes, 20);
  write_table(f, "Model executions", "Model", models, SIZE_MAX);
  write_table(f, "Stream tasks", "Task", tasks, SIZE_MAX);
  write_table(f, "Host API calls", "API", apis, SIZE_MAX);
  write_table(f, "User ranges (msproftx push/pop and range start/stop)", "Message", ranges, SIZE_MAX);
}

template <typename Write>
bool write_file(const std::string& path, std::string* error, Write write) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    *error = "cannot create " + path + ": " + std::strerror(errno);
    return false;
  }
  write(f);
  if (std::fclose(f) != 0) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace

bool make_directory(const std::string& path, std::string* error) {
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i < path.size() && path[i] != '/') continue;
    if (::mkdir(path.substr(0, i).c_str(), 0755) != 0 && errno != EEXIST) {
      *error = "cannot create the directory " + path.substr(0, i) + ": " + std::strerror(errno);
      return false;
    }
  }
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return true;
  *error = path + " is not a directory";
  return false;
}

bool end_session(std::string* error) {
  set_switches(0);
  std::vector<Record> records;
  std::vector<Track> tracks;
  std::string dir;
  {
    Buffer& b = buffer();
    std::lock_guard<std::mutex> lock(b.mutex);
    records.swap(b.records);
    tracks = b.tracks;
    struct stat st;
    do {
      dir = b.output_dir + "/PROF_" + std::to_string(::getpid()) + "_" + std::to_string(++b.sessions);
    } while (::stat(dir.c_str(), &st) == 0);
  }
  std::stable_sort(records.begin(), records.end(), [](const Record& a, const Record& b) {
    return a.start != b.start ? a.start < b.start : a.end > b.end;
  });
  if (!make_directory(dir, error)) return false;
  return write_file(dir + "/trace.json", error, [&](std::FILE* f) { write_trace(f, records, tracks); }) &&
         write_file(dir + "/summary.txt", error, [&](std::FILE* f) { write_summary(f, records); }) &&
         write_file(dir + "/op_summary.csv", error, [&](std::FILE* f) { write_op_summary(f, records, tracks); }) &&
         write_file(dir + "/op_statistic.csv", error, [&](std::FILE* f) { write_op_statistic(f, records); });
}

}  // namespace ascendsim::prof
