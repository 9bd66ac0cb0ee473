// The profiler's internal state, shared by profiler.cpp (recording) and profiler_writer.cpp (output).
#pragma once
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "prof/profiler.h"

namespace ascendsim::prof {

constexpr int kHostProcess = -1;  // the "device" of host tracks

struct Record {
  char phase;  // 'X': a span from start to end; 'C': a counter sample at start; 'i': an instant at start;
               // 'b': an async span from start to end with the id arg0.value
  uint32_t track;
  uint64_t start, end;
  std::string name;
  const char* category;
  Arg arg0, arg1;
  const char* text_key;
  std::string text;
};

struct Track {
  int device;  // kHostProcess for host threads
  std::string name;
  uint64_t sort;  // order within the process
};

struct Buffer {
  std::mutex mutex;
  std::vector<Record> records;
  std::vector<Track> tracks;  // track id = index + 1; kept across sessions (ids are cached by threads)
  std::map<std::pair<int, std::string>, uint32_t> track_index;
  std::string output_dir;
  uint32_t sessions = 0;  // written so far by this process
};

Buffer& buffer();

// mkdir -p; false with the reason in *error.
bool make_directory(const std::string& path, std::string* error);

}  // namespace ascendsim::prof
