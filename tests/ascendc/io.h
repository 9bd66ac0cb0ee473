// Reading the inputs the Python tests wrote and writing the outputs they compare with numpy: raw little-endian
// arrays, one file each, in the directory given as argv[1].
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

inline std::string io_path(const char* dir, const char* name) { return std::string(dir) + "/" + name; }

inline std::vector<char> read_file(const char* dir, const char* name) {
  std::FILE* f = std::fopen(io_path(dir, name).c_str(), "rb");
  if (f == nullptr) {
    std::fprintf(stderr, "cannot open %s\n", name);
    std::exit(2);
  }
  std::vector<char> bytes;
  char buffer[65536];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) bytes.insert(bytes.end(), buffer, buffer + n);
  std::fclose(f);
  return bytes;
}

inline void write_file(const char* dir, const char* name, const void* data, size_t size) {
  std::FILE* f = std::fopen(io_path(dir, name).c_str(), "wb");
  if (f == nullptr || std::fwrite(data, 1, size, f) != size) {
    std::fprintf(stderr, "cannot write %s\n", name);
    std::exit(2);
  }
  std::fclose(f);
}

// The shapes every launch path uses (tests/ascendc_cases.py holds the same numbers).
constexpr uint32_t kAddLength = 4099;  // not a multiple of 8: the last block ends in a DataCopyPad tail
constexpr uint32_t kAddTile = 256;
constexpr uint32_t kAddBlocks = 8;
constexpr uint32_t kStatRows = 37, kStatCols = 64, kStatBlocks = 4;
constexpr uint32_t kSoftmaxRows = 13, kSoftmaxCols = 128, kSoftmaxBlocks = 5;
