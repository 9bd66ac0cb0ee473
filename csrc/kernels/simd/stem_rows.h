// The output loop of the few-channel direct convolution (stem_conv.h), one table per kernel variant
// (simd/stem_rows.cpp), and the band layout it shares with stem_conv.cpp.
#pragma once
#include <cstdint>

namespace ascendsim::kernels {

constexpr int64_t kStemChannelsPerTile = 4;  // output channels of one register tile (the packed weights' unit)

// One band of output rows: where its taps read the band's frame, and where it writes.
struct StemBand {
  const int64_t* tap_offsets;  // per tap (c, ki, kj), its first float in the frame of the band's first output row
  int64_t taps;
  int64_t row_step;    // frame floats from one output row to the next (stride-h frame rows)
  int64_t m, oh, ow;   // output channels and plane
  float lo, hi;        // the fused Relu / Clip bounds (else -inf, inf)
};

struct StemRows {
  // Columns one step of the loop computes: the frame's rows are read up to the output width rounded up to it.
  int64_t step_columns;
  // Output rows [r0, r1) of all channels from the frame of the band that starts at r0: out[m][r][ow] = bias[m] +
  // sum over the taps t of packed[m / 4][t][m % 4] * frame[tap_offsets[t] + (r - r0) * row_step + ow], clamped;
  // `packed` holds kStemChannelsPerTile weights per tile and tap (zeros past m), `bias` m values or null.
  void (*rows)(const StemBand& b, const float* frame, int64_t r0, int64_t r1, const float* packed, const float* bias,
               float* out);
};

const StemRows& stem_rows();

}  // namespace ascendsim::kernels
