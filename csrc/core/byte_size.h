// Byte counts written by people: "32G", "512M", "64MiB", "1048576". Shared by the environment settings
// (ASCENDSIM_DEVICE_MEMORY) and the fault-injection grammar (memory_cap:bytes=...).
#pragma once
#include <cstddef>

namespace ascendsim {

// A decimal count with an optional K/M/G/T suffix (powers of 1024, case-insensitive), optionally followed by
// "B" or "iB"; 0 if malformed or too large for size_t.
size_t parse_byte_size(const char* text);

}  // namespace ascendsim
