// The register tiles of the NC1HWC0 convolutions (blocked_conv.cpp), one table per kernel variant
// (simd/blocked_conv_tiles.cpp). Tensors are NC1HWC0: channels in blocks of C0 = kUnit = 16, a pixel's 16
// channels of a block one contiguous line; weights are packed per output block as [in block][tap][16 in][16 out].
#pragma once
#include <cstdint>

namespace ascendsim::kernels {

struct BlockedConvArgs {
  const float* weights;      // the packed weights of the tile's first output block
  int64_t weight_block;      // floats between two output blocks' weights
  const int64_t* taps;       // each tap's offset in floats from a pixel's origin
  int64_t tap_count;
  const int64_t* weight_taps;  // each tap's place among the kernel's taps, in the weights
  int64_t kernel_taps;         // the kernel's taps: the weights of one input block
  int64_t in_blocks;         // input channel blocks summed by this call
  int64_t in_block_stride;   // floats between two input blocks
  int64_t origin_offset;     // floats from each origin to the first of those blocks
  bool accumulate;           // add to the output's partial sums (else start from the bias)
  bool last;                 // the call that sums the last input blocks: the fused sum and the clamp apply
  const float* bias;         // 16 per output block (zero past the channels), from the tile's first block
  const float* sum;          // a fused residual laid out as the output (null: none)
  int64_t out_block_stride;  // floats between two output blocks (of the output and of the sum)
  float lo, hi;              // the clamp of a fused Relu / Clip (infinite: none)
};

// A run of taps that read consecutive columns of one input row (a kernel row's columns, stem and depthwise tiles).
struct TapRun {
  int64_t offset;   // floats from the first pixel's origin to the run's first column
  int64_t weight;   // floats from the weights to the first column's
  int64_t columns;  // taps in the run: pixel p reads column j at offset + (p * stride + j) * (a column's floats)
};

// A stem's tile (BlockedConv on an NCHW image of a few channels, stem_conv.cpp): output pixels along one row of
// a frame of the image's rows, zero-padded, `stride` (1 or 2) columns apart.
struct BlockedStemArgs {
  const float* weights;          // [tap][16] of the tile's first output block
  int64_t weight_block;          // floats between two output blocks' weights
  const int64_t* taps;           // each tap's offset in floats from the first pixel's
  int64_t tap_count;
  const TapRun* runs;            // the same taps in runs (a column: one float)
  int64_t run_count;
  int64_t stride;                // frame columns between two output pixels
  const float* bias;             // 16 per output block (zero past the channels), from the tile's first block
  int64_t out_block_stride;      // floats between two output blocks
  float lo, hi;                  // the clamp of a fused Relu / Clip (infinite: none)
};

struct BlockedDepthwiseArgs {
  const float* weights;        // [tap][16] of the block
  const int64_t* taps;         // offsets in floats of the taps read, from the first pixel's origin
  const int64_t* weight_taps;  // their weights' offsets in floats
  int64_t tap_count;
  const TapRun* runs;          // the same taps in runs of neighbouring pixels (a column: 16 floats), or none
  int64_t run_count;
  int64_t stride;        // floats between two adjacent output pixels' origins
  const float* bias;     // 16 (zero past the channels)
  float lo, hi;
};

constexpr int kMaxTileBlocks = 4;  // output blocks of a dense tile, at most, in any variant

struct BlockedConvTiles {
  const char* shape;  // of the register tiles, for the kernel-variant log ("6 pixels x 16 channels (AVX2)")
  int64_t pixels[kMaxTileBlocks + 1];  // output pixels of a tile of b output blocks (b = 1 .. blocks): fewer or as many as b rises
  int64_t blocks;     // output blocks per tile, at most
  // Output pixels [0, count) (count <= pixels[nb]) of output blocks [0, nb) (nb <= blocks): pixel p's origin in
  // the first input block is origins[p]; it is written at out + p * 16 (+ b * out_block_stride), as is its sum.
  void (*conv)(const BlockedConvArgs& a, const float* const* origins, int64_t count, int64_t nb, float* out);
  // The same where pixel p's origin is first + p * 16 (neighbours at stride 1).
  void (*conv_contiguous)(const BlockedConvArgs& a, const float* first, int64_t count, int64_t nb, float* out);
  // A stem's output pixels [0, count) (count <= pixels[nb]) of output blocks [0, nb), written at out + p * 16
  // (+ b * out_block_stride).
  void (*stem)(const BlockedStemArgs& a, const float* first, int64_t count, int64_t nb, float* out);
  // One block of a depthwise conv along a run of `count` output pixels: pixel p's origin is first + p * stride,
  // its 16 outputs at out + p * 16.
  void (*depthwise)(const BlockedDepthwiseArgs& a, const float* first, int64_t count, float* out);
};

const BlockedConvTiles& blocked_conv_tiles();

}  // namespace ascendsim::kernels
