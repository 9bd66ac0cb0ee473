// The few-channel direct convolution's output loop (stem_conv.cpp has the algorithm). A tile is
// kStemChannelsPerTile output channels by kStemVectors vectors of output columns: each tap loads kStemVectors
// vectors of frame columns and broadcasts the four channels' weights, kStemVectors * 4 multiply-adds; the
// accumulators take half the register file (8 with the 16 registers of AVX2 and SSE2, 16 with AVX-512's and
// NEON's 32), which leaves room for the loads, the broadcast and, without FMA, the products.
#include "kernels/simd/stem_rows.h"

#include "kernels/simd/simd.h"

namespace ascendsim::kernels::ASCENDSIM_ISA_NS {
namespace {

constexpr int kTileChannels = static_cast<int>(kStemChannelsPerTile);
constexpr int kStemVectors = kRegisters / 2 / kTileChannels;
constexpr int64_t kStepColumns = kStemVectors * kW;

// One tile over all taps: acc[i][v] for channel m0 + i, columns col + v * kW.
ASCENDSIM_TILE void stem_tile(const StemBand& b, const float* row, const float* packed, const float* bias, int64_t m0,
                              int64_t r, int64_t col, float* out) {
  const int64_t channels = imin(kTileChannels, b.m - m0);
  vf acc[kTileChannels][kStemVectors];
  ASCENDSIM_UNROLL_TILE
  for (int i = 0; i < kTileChannels; ++i)
    ASCENDSIM_UNROLL_TILE
    for (int v = 0; v < kStemVectors; ++v) acc[i][v] = splat(bias != nullptr && i < channels ? bias[m0 + i] : 0.0f);
  const float* w = packed;
  for (int64_t t = 0; t < b.taps; ++t, w += kTileChannels) {
    const float* p = row + b.tap_offsets[t] + col;
    vf x[kStemVectors];
    ASCENDSIM_UNROLL_TILE
    for (int v = 0; v < kStemVectors; ++v) x[v] = load(p + v * kW);
    ASCENDSIM_UNROLL_TILE
    for (int i = 0; i < kTileChannels; ++i) {
      const float wi = w[i];  // scalar * vector: a broadcast load (splat's 0 + w is an add GCC must keep for -0)
      ASCENDSIM_UNROLL_TILE
      for (int v = 0; v < kStemVectors; ++v) acc[i][v] += wi * x[v];
    }
  }
  const vf lo = splat(b.lo), hi = splat(b.hi);
  if (channels == kTileChannels && col + kStepColumns <= b.ow) {  // the common tile: whole
    ASCENDSIM_UNROLL_TILE
    for (int i = 0; i < kTileChannels; ++i)
      ASCENDSIM_UNROLL_TILE
      for (int v = 0; v < kStemVectors; ++v) store(out + ((m0 + i) * b.oh + r) * b.ow + col + v * kW, clamp(acc[i][v], lo, hi));
    return;
  }
  // An edge tile goes through a buffer (constant indices keep acc in registers over the taps).
  float tile[kTileChannels][kStepColumns];
  ASCENDSIM_UNROLL_TILE
  for (int i = 0; i < kTileChannels; ++i)
    ASCENDSIM_UNROLL_TILE
    for (int v = 0; v < kStemVectors; ++v) store(&tile[i][v * kW], clamp(acc[i][v], lo, hi));
  const int64_t columns = imin(kStepColumns, b.ow - col);
  for (int64_t i = 0; i < channels; ++i) {
    float* dst = out + ((m0 + i) * b.oh + r) * b.ow + col;
    for (int64_t j = 0; j < columns; ++j) dst[j] = tile[i][j];
  }
}

void rows(const StemBand& b, const float* frame, int64_t r0, int64_t r1, const float* packed, const float* bias,
          float* out) {
  const int64_t tile_floats = b.taps * kTileChannels;
  for (int64_t r = r0; r < r1; ++r) {
    const float* row = frame + (r - r0) * b.row_step;
    for (int64_t m0 = 0; m0 < b.m; m0 += kTileChannels)
      for (int64_t col = 0; col < b.ow; col += kStepColumns)
        stem_tile(b, row, packed + m0 / kTileChannels * tile_floats, bias, m0, r, col, out);
  }
}

}  // namespace

extern const StemRows stem_rows_table;
const StemRows stem_rows_table = {kStepColumns, rows};

}  // namespace ascendsim::kernels::ASCENDSIM_ISA_NS
