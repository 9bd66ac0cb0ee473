// The per-plane loops of the depthwise convolution (depthwise.cpp has the algorithm and picks the path), one
// table per kernel variant (simd/depthwise_planes.cpp), and the shapes of the buffers they share with it.
#pragma once
#include <cstdint>

#include "kernels/conv_geometry.h"

namespace ascendsim::kernels {

constexpr int64_t kDepthwiseStep = 64;     // floats a step of the same / polyphase loops may cover (buffers pad to it)
constexpr int64_t kDepthwiseChunk = 1024;  // accumulator floats of one chunk of polyphase output rows (4 KiB)
constexpr int64_t kStride2Rows = 4;        // output rows per step of the stride-2 loop

// The zero-framed copy of a plane for the same path: `lead` zeros, the plane (hw floats), then zeros up to
// `floats` (the last step's overrun plus the rows below).
struct SameShape {
  int64_t hw, padded;  // plane size, and rounded up to whole kDepthwiseStep
  int64_t lead, floats;
  float lo, hi;
};

// The phases of the polyphase path.
struct PlaneShape {
  int64_t hpp, wpp;  // rows and row pitch of each phase
  float lo, hi;      // bounds of the fused epilogue
};

constexpr int64_t kRowsBlock = 4;   // output rows per step of the stride-1 rows loop
constexpr int64_t kRowsStep = 32;   // the most output columns a step of it covers (its frame pads to them)

// The kernels the stride-1 rows loop is instantiated for.
static constexpr bool depthwise_rows_suit(int64_t kh, int64_t kw) {
  return kh == kw && (kh == 3 || kh == 5 || kh == 7);
}

// The zero-padded frame of the stride-1 rows path: rows and pitch (padded so that every step's reads stay in it).
struct RowsShape {
  int64_t rows, pitch;
  float lo, hi;
};

// The window of the stride-2 path: the `rows` zero-padded rows of the plane that one step reads, their columns
// deinterleaved: a row holds its even padded columns (padded column c is input column c - pw), then `half`
// floats on its odd ones; rows `pitch` apart.
struct FrameShape {
  int64_t rows, half, pitch;
  float lo, hi;
};

struct DepthwisePlanes {
  // out = same conv of one plane; masks[kj * padded + i] is 1 where tap column kj stays in the row of output i.
  void (*same)(const ConvGeometry& g, const SameShape& s, const float* in, const float* k, float bias, float* frame,
               const float* masks, float* out);
  // out = conv of one plane through its phases (any stride and dilation); acc holds one chunk of rows.
  void (*polyphase)(const ConvGeometry& g, const PlaneShape& s, const float* in, const float* k, float bias,
                    float* phases, float* acc, float* out);
  // out = stride-2 conv of one plane through the window.
  void (*stride2)(const ConvGeometry& g, const FrameShape& s, const float* in, const float* k, float bias,
                  float* window, float* out);
  // out = stride-1, dilation-1 conv of one plane through its zero-padded frame (zeroed by the caller once per run
  // of planes: only the input positions are written); square kernels of 3, 5 or 7 only (depthwise_rows_suit).
  // Null except on x86 with FMA (see depthwise_planes.cpp).
  void (*rows)(const ConvGeometry& g, const RowsShape& s, const float* in, const float* k, float bias, float* frame,
               float* out);
};

const DepthwisePlanes& depthwise_planes();

}  // namespace ascendsim::kernels
