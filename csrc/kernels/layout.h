// Layout constants shared by the kernels and their per-instruction-set loops (simd/): data is laid out in
// units of 16 floats (a row of a packed GEMM panel, a block of Winograd tiles, a channel block), which is one
// AVX-512 vector, two AVX2 vectors or four SSE / NEON vectors; every variant covers a unit in whole vectors.
#pragma once
#include <cstdint>

namespace ascendsim::kernels {

constexpr int64_t kUnit = 16;        // floats of a layout unit
constexpr int64_t kL1Floats = 8192;  // floats in a 32 KiB L1 data cache (the prefetch decisions' yardstick)

// Units of 16 that hold `channels` (an NC1HWC0 tensor's C1).
constexpr int64_t unit_blocks(int64_t channels) { return (channels + kUnit - 1) / kUnit; }

}  // namespace ascendsim::kernels
