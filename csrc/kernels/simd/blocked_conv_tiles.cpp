// Register tiles of the NC1HWC0 convolutions (see blocked_conv_tiles.h; blocked_conv.cpp packs the weights and
// shares the work out).
//
// Dense conv: a tile is some output pixels by up to kBlocks output blocks of 16 channels, its accumulators held
// in registers over the whole sum (every input block, every tap, the 16 channels of a block). Per input channel,
// blocks x kU vectors of weights (16 output channels each) and one broadcast of each pixel's input, used by every
// weight vector. The pixels of a tile need not be neighbours (each has its own origin), so a tile runs across
// output rows and a 7x7 plane fills its tiles as well as a 56x56 one. AVX-512 takes up to 4 blocks, and fewer
// pixels the more blocks (kPixelsFor: 12 x 16 or 32 channels, 8 x 48, 6 x 64, 24 accumulators of its 32
// registers at 2 blocks or more): a broadcast feeds one multiply-add per block, so 4 blocks need a third of the
// broadcasts per multiply-add that 2 did (MobileNetV2's 320 -> 1280 1x1 on 7x7, Zen 5: 204-210 -> 178-180 us,
// onnxruntime's 6 x 64 tile 176 us), while a layer of one or two blocks keeps 12 pixels. AVX2: 6 x 16 in 12 of
// its 16 registers; NEON: 5 x 16 in 20 of 32; SSE2: 2 x 16.
//
// Stem (an NCHW image of a few channels, stem_conv.cpp): the dense tile's shapes, summing over the window's
// taps (channel, row, column) instead of input channels, its pixels sw columns apart along an output row; a few
// columns of a window row at a time, so that an input broadcast serves each of them (stem_columns).
//
// Depthwise: per block, kDepthwisePixels adjacent output pixels by 16 channels; per tap, the tap's weights (kU
// vectors) and one input line per pixel, or, along a row of interior pixels, a kernel row's columns together so
// that each input line serves every column that reads it (depthwise_columns).
#include "kernels/simd/blocked_conv_tiles.h"

#include "kernels/simd/simd.h"

namespace ascendsim::kernels::ASCENDSIM_ISA_NS {
namespace {

#if defined(__AVX512F__)
constexpr int kBlocks = 4;
constexpr int kPixelsFor[kMaxTileBlocks + 1] = {0, 12, 12, 8, 6};  // by the tile's blocks
#define ASCENDSIM_BLOCKED_SHAPE "12 pixels x 16-32 channels, 8 x 48, 6 x 64 (AVX-512)"
#elif defined(__AVX2__) && defined(__FMA__)
constexpr int kBlocks = 1;
constexpr int kPixelsFor[kMaxTileBlocks + 1] = {0, 6};
#define ASCENDSIM_BLOCKED_SHAPE "6 pixels x 16 channels (AVX2)"
#elif defined(__aarch64__)
constexpr int kBlocks = 1;
constexpr int kPixelsFor[kMaxTileBlocks + 1] = {0, 5};
#define ASCENDSIM_BLOCKED_SHAPE "5 pixels x 16 channels (NEON)"
#else
constexpr int kBlocks = 1;
constexpr int kPixelsFor[kMaxTileBlocks + 1] = {0, 2};
#define ASCENDSIM_BLOCKED_SHAPE "2 pixels x 16 channels (SSE2)"
#endif
// Accumulators + one input channel's weight vectors + the broadcast (NEON: by-element fmla reads a float of a
// register: count one per pixel) + a product without FMA; and no more pixels with more blocks.
constexpr int broadcast_registers(int pixels) {
#if defined(__aarch64__)
  return pixels;
#else
  return pixels > 0 ? 1 : 0;  // (one register, reused)
#endif
}
template <int kB>
constexpr bool tile_fits() {
  constexpr int kP = kPixelsFor[kB];
  if constexpr (kB > 1) {
    if (kP > kPixelsFor[kB - 1] || !tile_fits<kB - 1>()) return false;
  }
  return kP > 0 && kP * kB * kU + kB * kU + broadcast_registers(kP) + (kFma ? 0 : 1) <= kRegisters;
}
static_assert(tile_fits<kBlocks>(), "a blocked conv tile spills");
// The depthwise tile: on NEON GCC's schedule loads a tap's every input line before its multiply-adds (5 x 4
// and 4 x 4 tiles spilled), so 3 pixels there: 12 accumulators, 4 weights, 12 lines.
#if defined(__aarch64__)
constexpr int kDepthwisePixels = 3;
#else
constexpr int kDepthwisePixels = kPixelsFor[1];
#endif
static_assert(kDepthwisePixels * kU + kU + 1 + (kFma ? 0 : 1) <= kRegisters, "the blocked depthwise tile spills");

constexpr int64_t kLine = kUnit;            // floats of one pixel's channel block
constexpr int64_t kSquare = kUnit * kUnit;  // floats of one tap's weights of an (input, output) block pair

// Where a tile's pixels start: each at its own origin (a tile across output rows, a stride, patches), or one after
// another (neighbours at stride 1: a 1x1 conv's plane, a row of a frame), every pixel then at a constant offset
// from one pointer (AVX-512, a 32 -> 16 1x1 conv on 112x112: 76 -> 70 us; 16 -> 64 122 -> 115).
struct Gathered {
  const float* const* origins;
  template <int kP>
  struct Lines {
    const float* line[kP];
    ASCENDSIM_INLINE const float* at(int p) const { return line[p]; }
  };
  template <int kP>
  ASCENDSIM_INLINE Lines<kP> lines(int64_t offset) const {
    Lines<kP> l;
    ASCENDSIM_UNROLL_TILE
    for (int p = 0; p < kP; ++p) l.line[p] = origins[p] + offset;
    return l;
  }
};
struct Contiguous {
  const float* first;
  template <int kP>
  struct Lines {
    const float* line0;
    ASCENDSIM_INLINE const float* at(int p) const { return line0 + p * kLine; }
  };
  template <int kP>
  ASCENDSIM_INLINE Lines<kP> lines(int64_t offset) const { return {first + offset}; }
};

// `out` __restrict: for all the compiler knew, a store to it could change `a`, and the epilogue reloaded a.last and
// a.out_block_stride for each of its stores (MobileNetV2 ~5% slower on a Zen 5; a local copy of `a` instead made
// the accumulators spill). True: a conv's output never shares memory with its inputs (the memory planner writes
// no conv in place, compiler/memory.py) nor with the caller's arguments.
template <int kP, int kB, class Source>
ASCENDSIM_TILE void conv_tile(const BlockedConvArgs& a, Source origin, float* __restrict out) {
  vf acc[kP][kB][kU];
  ASCENDSIM_UNROLL_TILE
  for (int b = 0; b < kB; ++b)
    ASCENDSIM_UNROLL_TILE
    for (int p = 0; p < kP; ++p)
      ASCENDSIM_UNROLL_TILE
      for (int u = 0; u < kU; ++u)
        acc[p][b][u] = a.accumulate ? load(out + b * a.out_block_stride + p * kLine + u * kW) : load(a.bias + b * kLine + u * kW);
  for (int64_t ib = 0; ib < a.in_blocks; ++ib) {
    const float* wb = a.weights + ib * a.kernel_taps * kSquare;
    const int64_t block_offset = a.origin_offset + ib * a.in_block_stride;
    // The tile's lines of the next input block, a plane away (a stream per block, which the hardware prefetchers
    // did not follow: ResNet-50 on a Zen 5, 33.7 -> 32.2 ms at 1 thread, MobileNetV2 3.81 -> 3.76; two blocks
    // ahead, ResNet-50 a little faster and MobileNetV2, its 1x1 convs of 2-9 input blocks, slower).
    if (ib + 1 < a.in_blocks) {
      const auto next = origin.template lines<kP>(block_offset + a.in_block_stride);
      ASCENDSIM_UNROLL_TILE
      for (int p = 0; p < kP; ++p) __builtin_prefetch(next.at(p), 0, 3);
    }
    for (int64_t t = 0; t < a.tap_count; ++t) {
      const auto src = origin.template lines<kP>(block_offset + a.taps[t]);
      const float* wt = wb + a.weight_taps[t] * kSquare;
      auto channel = [&](int c) __attribute__((always_inline)) {
        vf w[kB][kU];
        ASCENDSIM_UNROLL_TILE
        for (int b = 0; b < kB; ++b)
          ASCENDSIM_UNROLL_TILE
          for (int u = 0; u < kU; ++u) w[b][u] = load(wt + b * a.weight_block + c * kLine + u * kW);
        ASCENDSIM_UNROLL_TILE
        for (int p = 0; p < kP; ++p) {
          const float x = src.at(p)[c];  // (a float times a vector: a broadcast load, not an add to a zero vector)
          ASCENDSIM_UNROLL_TILE
          for (int b = 0; b < kB; ++b)
            ASCENDSIM_UNROLL_TILE
            for (int u = 0; u < kU; ++u) acc[p][b][u] += x * w[b][u];
        }
      };
      // Unrolled by 8 (16: GCC's schedule then needs more registers than AVX2 has, and spills); by 2 for a tile
      // of few pixels, whose weight loads GCC hoists for the whole step (3 pixels x 64 channels spilled at 8 and 4).
      if constexpr (kP >= 4) {
#pragma GCC unroll 8
        for (int c = 0; c < kLine; ++c) channel(c);
      } else {
#pragma GCC unroll 2
        for (int c = 0; c < kLine; ++c) channel(c);
      }
    }
  }
  const vf lo = splat(a.lo), hi = splat(a.hi);
  ASCENDSIM_UNROLL_TILE
  for (int b = 0; b < kB; ++b) {
    ASCENDSIM_UNROLL_TILE
    for (int p = 0; p < kP; ++p) {
      float* at = out + b * a.out_block_stride + p * kLine;
      ASCENDSIM_UNROLL_TILE
      for (int u = 0; u < kU; ++u) {
        vf v = acc[p][b][u];
        if (a.last) {
          if (a.sum != nullptr) v += load(a.sum + b * a.out_block_stride + p * kLine + u * kW);
          v = clamp(v, lo, hi);
        }
        store(at + u * kW, v);
      }
    }
  }
}

// How many columns of a run a stem tile of kP pixels and kB blocks takes at once: their weight vectors stay in
// registers beside the accumulators, so that one broadcast input serves every column that reads it (at stride 1,
// pixel p of column j reads what pixel p + 1 of column j - 1 reads; at stride 2, column j - 2's): kP + kJ - 1
// broadcasts (stride 2: 2 kP + 1 for 3 columns) per kP * kJ multiply-adds per block, where a broadcast per
// multiply-add left the 16-channel stem of the default model waiting on loads (its tiles 54 -> 46 us, Zen 5).
// Only while the accumulators leave half the registers: GCC's schedule of 2 blocks of 12 pixels by 2 or 3 columns
// spilled (slower than a tap at a time). At most 4.
template <int kP, int kB>
constexpr int stem_columns() {
  constexpr int spare = (kRegisters / 2 - kP * kB * kU) / (kB * kU);
  return spare < 1 ? 1 : spare > 4 ? 4 : spare;
}

// kJ columns of a run from src, their weights from w: acc[p] += src[p * kS + j] * w[j] for every pixel and
// column, by input column q = p * kS + j so that each input is broadcast once.
template <int kS, int kJ, int kP, int kB>
ASCENDSIM_INLINE void stem_run(const BlockedStemArgs& a, const float* src, const float* w, vf (&acc)[kP][kB][kU]) {
  vf wv[kJ][kB][kU];
  ASCENDSIM_UNROLL_TILE
  for (int j = 0; j < kJ; ++j)
    ASCENDSIM_UNROLL_TILE
    for (int b = 0; b < kB; ++b)
      ASCENDSIM_UNROLL_TILE
      for (int u = 0; u < kU; ++u) wv[j][b][u] = load(w + b * a.weight_block + j * kLine + u * kW);
  constexpr int kInputs = (kP - 1) * kS + kJ;
  static_assert(kInputs <= 32, "the inputs' loop below is unrolled by 32");
#pragma GCC unroll 32
  for (int q = 0; q < kInputs; ++q) {
    const float x = src[q];  // (at stride 2 and one column, the odd q are read by no pixel: no load)
    ASCENDSIM_UNROLL_TILE
    for (int j = 0; j < kJ; ++j) {
      const int p = (q - j) / kS;
      if (q < j || (q - j) % kS != 0 || p >= kP) continue;
      ASCENDSIM_UNROLL_TILE
      for (int b = 0; b < kB; ++b)
        ASCENDSIM_UNROLL_TILE
        for (int u = 0; u < kU; ++u) acc[p][b][u] += x * wv[j][b][u];
    }
  }
}

// The last columns of a run, fewer than the tile takes at once.
template <int kS, int kJ, int kP, int kB>
ASCENDSIM_INLINE void stem_run_of(const BlockedStemArgs& a, const float* src, const float* w, int64_t columns,
                                  vf (&acc)[kP][kB][kU]) {
  if constexpr (kJ > 1) {
    if (columns < kJ) return stem_run_of<kS, kJ - 1>(a, src, w, columns, acc);
  }
  stem_run<kS, kJ>(a, src, w, acc);
}

// A stem's tile: per tap, or per run of taps stem_columns' columns at a time; its pixels kS apart in a row of the
// frame, one pointer serves them all.
template <int kS, int kP, int kB>
ASCENDSIM_TILE void stem_block_tile(const BlockedStemArgs& a, const float* first, float* out) {
  constexpr int kJ = stem_columns<kP, kB>();
  vf acc[kP][kB][kU];
  ASCENDSIM_UNROLL_TILE
  for (int b = 0; b < kB; ++b)
    ASCENDSIM_UNROLL_TILE
    for (int p = 0; p < kP; ++p)
      ASCENDSIM_UNROLL_TILE
      for (int u = 0; u < kU; ++u) acc[p][b][u] = load(a.bias + b * kLine + u * kW);
  if constexpr (kJ == 1) {
    // Tap by tap from the offsets' table: a loop over a run's columns here, GCC carries the broadcasts from one
    // column to the next in registers it then spills (predictive commoning).
    for (int64_t t = 0; t < a.tap_count; ++t) stem_run<kS, 1>(a, first + a.taps[t], a.weights + t * kLine, acc);
  } else {
    for (int64_t r = 0; r < a.run_count; ++r) {
      const TapRun& run = a.runs[r];
      for (int64_t j = 0; j < run.columns; j += kJ)
        stem_run_of<kS, kJ>(a, first + run.offset + j, a.weights + run.weight + j * kLine, run.columns - j, acc);
    }
  }
  const vf lo = splat(a.lo), hi = splat(a.hi);
  ASCENDSIM_UNROLL_TILE
  for (int b = 0; b < kB; ++b)
    ASCENDSIM_UNROLL_TILE
    for (int p = 0; p < kP; ++p)
      ASCENDSIM_UNROLL_TILE
      for (int u = 0; u < kU; ++u) store(out + b * a.out_block_stride + p * kLine + u * kW, clamp(acc[p][b][u], lo, hi));
}

struct ConvTile {
  template <int kP, int kB>
  static void run(const BlockedConvArgs& a, const float* const* origins, float* out) { conv_tile<kP, kB>(a, Gathered{origins}, out); }
};
struct ContiguousConvTile {
  template <int kP, int kB>
  static void run(const BlockedConvArgs& a, const float* first, float* out) { conv_tile<kP, kB>(a, Contiguous{first}, out); }
};
template <int kS>
struct StemTile {
  template <int kP, int kB>
  static void run(const BlockedStemArgs& a, const float* first, float* out) { stem_block_tile<kS, kP, kB>(a, first, out); }
};

// Tile's kernel of `count` pixels and `nb` blocks: the last pixels of a run and the last blocks take smaller tiles.
template <class Tile, int kP, int kB, class Args, class Source>
ASCENDSIM_INLINE void pick_pixels(const Args& a, Source source, int64_t count, float* out) {
  if constexpr (kP > 1) {
    if (count < kP) return pick_pixels<Tile, kP - 1, kB>(a, source, count, out);
  }
  Tile::template run<kP, kB>(a, source, out);
}

template <class Tile, int kB, class Args, class Source>
ASCENDSIM_INLINE void pick_blocks(const Args& a, Source source, int64_t count, int64_t nb, float* out) {
  if constexpr (kB > 1) {
    if (nb < kB) return pick_blocks<Tile, kB - 1>(a, source, count, nb, out);
  }
  pick_pixels<Tile, kPixelsFor[kB], kB>(a, source, count, out);
}

void conv(const BlockedConvArgs& a, const float* const* origins, int64_t count, int64_t nb, float* out) {
  pick_blocks<ConvTile, kBlocks>(a, origins, count, nb, out);
}

void conv_contiguous(const BlockedConvArgs& a, const float* first, int64_t count, int64_t nb, float* out) {
  pick_blocks<ContiguousConvTile, kBlocks>(a, first, count, nb, out);
}

void stem(const BlockedStemArgs& a, const float* first, int64_t count, int64_t nb, float* out) {
  if (a.stride == 2) return pick_blocks<StemTile<2>, kBlocks>(a, first, count, nb, out);
  pick_blocks<StemTile<1>, kBlocks>(a, first, count, nb, out);
}

// How many columns of a run a depthwise tile of kP pixels takes at once, their weights in registers, so that one
// input line serves every column that reads it (at stride 1, pixel p's column j is pixel p + 1's column j - 1):
// kP + kJ - 1 line loads per kP * kJ multiply-adds where a tap at a time loaded a line per multiply-add (AVX-512:
// a kernel row of 3, 5 or 7 at once beside 12 accumulators; the tile at a tap a time was bound by its loads).
// Only where 8 registers stay free for the lines and GCC's schedule (one column elsewhere).
template <int kP>
constexpr int depthwise_columns() {
  constexpr int spare = (kRegisters - 8 - kP * kU) / kU;
  return spare < 1 ? 1 : spare > 7 ? 7 : spare;
}

// kJ columns of a run from src (pixel p, column j: src + (p * kS + j) * 16), their weights from w: by input line
// q = p * kS + j, each loaded once.
template <int kS, int kJ, int kP>
ASCENDSIM_INLINE void depthwise_run(const float* src, const float* w, vf (&acc)[kP][kU]) {
  vf wv[kJ][kU];
  ASCENDSIM_UNROLL_TILE
  for (int j = 0; j < kJ; ++j)
    ASCENDSIM_UNROLL_TILE
    for (int u = 0; u < kU; ++u) wv[j][u] = load(w + j * kLine + u * kW);
  constexpr int kInputs = (kP - 1) * kS + kJ;
  static_assert(kInputs <= 32, "the lines' loop below is unrolled by 32");
#pragma GCC unroll 32
  for (int q = 0; q < kInputs; ++q) {
    vf x[kU];
    ASCENDSIM_UNROLL_TILE
    for (int u = 0; u < kU; ++u) x[u] = load(src + q * kLine + u * kW);
    ASCENDSIM_UNROLL_TILE
    for (int j = 0; j < kJ; ++j) {
      const int p = (q - j) / kS;
      if (q < j || (q - j) % kS != 0 || p >= kP) continue;
      ASCENDSIM_UNROLL_TILE
      for (int u = 0; u < kU; ++u) acc[p][u] += x[u] * wv[j][u];
    }
  }
}

// The last columns of a run, fewer than the tile takes at once.
template <int kS, int kJ, int kP>
ASCENDSIM_INLINE void depthwise_run_of(const float* src, const float* w, int64_t columns, vf (&acc)[kP][kU]) {
  if constexpr (kJ > 1) {
    if (columns < kJ) return depthwise_run_of<kS, kJ - 1>(src, w, columns, acc);
  }
  depthwise_run<kS, kJ>(src, w, acc);
}

// kS: the pixels' stride in lines (1 or 2), or 0: a.stride floats, known only at run time (then tap by tap).
template <int kS, int kP>
ASCENDSIM_TILE void depthwise_tile(const BlockedDepthwiseArgs& a, const float* first, float* out) {
  constexpr int kJ = kS > 0 ? depthwise_columns<kP>() : 1;
  vf acc[kP][kU];
  ASCENDSIM_UNROLL_TILE
  for (int p = 0; p < kP; ++p)
    ASCENDSIM_UNROLL_TILE
    for (int u = 0; u < kU; ++u) acc[p][u] = load(a.bias + u * kW);
  if (kJ > 1 && a.run_count > 0) {
    for (int64_t r = 0; r < a.run_count; ++r) {
      const TapRun& run = a.runs[r];
      for (int64_t j = 0; j < run.columns; j += kJ)
        depthwise_run_of<kS, kJ>(first + run.offset + j * kLine, a.weights + run.weight + j * kLine, run.columns - j, acc);
    }
  } else {
    const int64_t stride = kS > 0 ? kS * kLine : a.stride;
    for (int64_t t = 0; t < a.tap_count; ++t) {
      vf w[kU];
      ASCENDSIM_UNROLL_TILE
      for (int u = 0; u < kU; ++u) w[u] = load(a.weights + a.weight_taps[t] + u * kW);
      const float* at = first + a.taps[t];
      ASCENDSIM_UNROLL_TILE
      for (int p = 0; p < kP; ++p)
        ASCENDSIM_UNROLL_TILE
        for (int u = 0; u < kU; ++u) acc[p][u] += load(at + p * stride + u * kW) * w[u];
    }
  }
  const vf lo = splat(a.lo), hi = splat(a.hi);
  ASCENDSIM_UNROLL_TILE
  for (int p = 0; p < kP; ++p)
    ASCENDSIM_UNROLL_TILE
    for (int u = 0; u < kU; ++u) store(out + p * kLine + u * kW, clamp(acc[p][u], lo, hi));
}

template <int kS, int kP>
ASCENDSIM_INLINE void depthwise_pixels(const BlockedDepthwiseArgs& a, const float* first, int64_t count, float* out) {
  if constexpr (kP > 1) {
    if (count < kP) return depthwise_pixels<kS, kP - 1>(a, first, count, out);
  }
  depthwise_tile<kS, kP>(a, first, out);
}

template <int kS>
void depthwise_strided(const BlockedDepthwiseArgs& a, const float* first, int64_t count, float* out) {
  for (int64_t p = 0; p < count; p += kDepthwisePixels)
    depthwise_pixels<kS, kDepthwisePixels>(a, first + p * a.stride, imin(kDepthwisePixels, count - p), out + p * kLine);
}

void depthwise(const BlockedDepthwiseArgs& a, const float* first, int64_t count, float* out) {
  if (a.stride == kLine) return depthwise_strided<1>(a, first, count, out);
  if (a.stride == 2 * kLine) return depthwise_strided<2>(a, first, count, out);
  depthwise_strided<0>(a, first, count, out);
}

}  // namespace

extern const BlockedConvTiles blocked_conv_tiles_table;
const BlockedConvTiles blocked_conv_tiles_table = {
    ASCENDSIM_BLOCKED_SHAPE, {kPixelsFor[0], kPixelsFor[1], kPixelsFor[2], kPixelsFor[3], kPixelsFor[4]}, kBlocks, conv,
    conv_contiguous, stem, depthwise};

}  // namespace ascendsim::kernels::ASCENDSIM_ISA_NS
