// Conv on NC1HWC0 tensors: the ascendsim::BlockedConv node that the compiler's layout pass (compiler/passes/
// layout_5hd.py) puts in place of a float32 Conv with constant weights. Operands: x [N, C1, H, W, 16] (C
// channels in C1 blocks of 16, the lanes past C zero), W the ONNX weight [M, C / group, KH, KW] (packed here at
// build), an optional constant bias [M], with fused_sum=1 a 4th input shaped as the output; output
// [N, M1, OH, OW, 16], its lanes past M written as zeros. The attributes are Conv's (conv_attrs.h), with the
// fused activation of the epilogue pass. group 1 (dense) or depthwise (group == C == M).
//
// Why: a pixel's 16 channels of a block are one contiguous line, so a register tile of output pixels x output
// channels reads whole lines of input and of weights and writes whole lines of output, with no im2col and no
// transposes (onnxruntime's NCHWc kernels; on the device, the cube unit's own layout).
//
// Dense: the weights are packed per output block as [input block][tap][16 inputs][16 outputs] (simd/
// blocked_conv_tiles.h). Work: jobs of (image, group of output blocks whose weights fit in L2, band of output
// pixels whose inputs fit in L2); inside a job each tile of pixels runs over the group's blocks while its inputs
// are in L1. A padded conv needs zeros where a tap falls outside x, in one of two ways:
// - border windows in place, when few pixels are on the border (a large plane) and there is no fused sum: the
//   interior pixels' tiles read x in place, in runs of neighbours; a border pixel reads x in place too, over only
//   the taps of its window inside x (their weights picked by weight_taps), in a tile of border pixels of the same
//   window shape (batched per shape across rows) that writes a small buffer (holding the sums of the earlier
//   passes, if any), scattered to the pixels' places. (Measured when the default model's 16 -> 32 3x3 stride-2
//   conv on 112x112 ran here, before blocked_winograd.cpp took it: 136 -> ~125 us, the frame's copy of x being
//   gone; windows gathered into patches, zeros included, then cost 10% of its 32 -> 64 conv for 7% of the pixels.)
// - else a zero-bordered frame: x copied once, so that every tap of every output pixel reads memory and any run
//   of pixels shares a tile (rows included); a pass over x against the conv's KH x KW x M multiply-adds per
//   input value.
// Undilated 3x3 convs of stride 1 or 2 on planes of 16 tiles of 2x2 or more run by Winograd instead
// (blocked_winograd.cpp, chosen in make_blocked_conv).
//
// Depthwise: per (image, block, band of rows), each output row's interior pixels (every tap inside x) as runs
// of tiles, its border pixels one by one with their valid taps only. The rows whose windows lie inside x share one
// list of the interior taps, counted from each row's first input row; the fused sum, its clamp and the
// activation follow per few rows (kFinishPixels). (Lists rebuilt and an activation called per row had cost a 7x7
// plane more than its multiply-adds: MobileNetV2's 960-channel 3x3 on 7x7 33 -> 24 us, Zen 4, AVX-512.)
// Wide planes and small windows need no frame (a depthwise conv reads each input value only about KH x KW
// times in all, so a copy would cost as much again); when a row's border pixels have 4 taps or more per column
// of the row (5x5 on 14x14, 7x7 up to 56x56), x is framed as for a dense conv and every pixel is interior.
//
// Dense convs with many input channels sum them in passes of a few blocks (chunk_): a tile's window of one
// pass's blocks stays in L1 while the weights stream by, and the partial sums wait in the output (in L1/L2
// for a band); the bias starts the first pass, the fused sum and the clamp end the last.
#include <algorithm>
#include <cstring>

#include "kernels/blocked_winograd.h"
#include "kernels/conv_attrs.h"
#include "kernels/conv_geometry.h"
#include "kernels/epilogue.h"
#include "kernels/kernel_util.h"
#include "kernels/layout.h"
#include "kernels/packed_floats.h"
#include "kernels/simd/blocked_conv_tiles.h"
#include "kernels/stem_conv.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

constexpr int64_t kC0 = kUnit;
constexpr int64_t kMaxTilePixels = 64;                   // origins per tile (>= every variant's pixels)
constexpr int64_t kBorderFrameShare = 2;                   // border windows when their lines are < 1/2 of a frame's
constexpr int64_t kWeightGroupBytes = int64_t{192} << 10;  // a group's packed weights: in L2 with the band
constexpr int64_t kBandBytes = int64_t{128} << 10;        // a band's inputs
constexpr int64_t kTileInputBytes = int64_t{8} << 10;     // a tile's window of the input blocks of one pass
constexpr int64_t kBorderBatches = 8;                   // window shapes waiting at once
constexpr int64_t kMaxDepthwiseTaps = 256;               // kernel windows up to 16x16 (the stack's tap lists)
// Depthwise: a frame when a row's border pixels have this many taps per column of the frame's row, or more.
constexpr int64_t kFrameTapsPerColumn = 2;
constexpr int64_t kFinishPixels = 128;  // depthwise: rows finished together, up to this many pixels (8 KiB) or one row

class BlockedConvKernel final : public Kernel {
 public:
  BlockedConvKernel(const NodeSpec& spec, const ConvGeometry& g, const Activation& act, const float* weights,
                    const float* bias)
      : x_(spec.inputs[0]), g_(g), act_(act), tiles_(blocked_conv_tiles()) {
    round_ = (spec.flags & kRoundInputsFp16) != 0;
    has_sum_ = spec.inputs.size() > 3;
    depthwise_ = g.group > 1;
    c1_ = unit_blocks(g.c);
    m1_ = unit_blocks(g.m);
    taps_ = g.kh * g.kw;
    clamps_ = activation_bounds(act_, &lo_, &hi_);  // (else infinite bounds: the activation runs after the tiles)
    bias_.assign(static_cast<size_t>(m1_ * kC0), 0.0f);
    if (bias != nullptr) std::copy(bias, bias + g.m, bias_.begin());
    std::vector<float> rounded;
    weights = rounded_constant(weights, g.m * (g.c / g.group) * taps_, round_, &rounded);
    if (depthwise_) {
      pack_depthwise(weights);
    } else {
      pack_dense(weights);
      plan_dense();
    }
  }

  std::string path() const override {
    const std::string tile = depthwise_ ? "" : "tile " + std::to_string(tile_pixels_) + " x " + std::to_string(tile_blocks_ * kC0) + " of ";
    return std::string(depthwise_ ? "NC1HWC0 depthwise, " : "NC1HWC0 direct, ") + tile + tiles_.shape +
           (frame_ ? ", zero-bordered frame" : "") + (border_in_place_ ? ", border windows in place" : "");
  }

  void run(const void* const* inputs, void* const* outputs) override {
    const float* x = float_input(x_, inputs[0], round_, 1);
    const float* sum = has_sum_ ? static_cast<const float*>(inputs[3]) : nullptr;
    auto* out = static_cast<float*>(outputs[0]);
    if (depthwise_) {
      run_depthwise(frame_ ? framed(x) : x, sum, out);
    } else {
      run_dense(frame_ ? framed(x) : x, sum, out);
    }
  }

 private:
  // ---- dense ----------------------------------------------------------------------------------------
  void pack_dense(const float* w) {
    const ConvGeometry& g = g_;
    block_floats_ = c1_ * taps_ * kC0 * kC0;
    packed_.assign(static_cast<size_t>(m1_ * block_floats_), 0.0f);
    for (int64_t m = 0; m < g.m; ++m)
      for (int64_t c = 0; c < g.c; ++c)
        for (int64_t t = 0; t < taps_; ++t)
          packed_[static_cast<size_t>(m / kC0 * block_floats_ + ((c / kC0 * taps_ + t) * kC0 + c % kC0) * kC0 + m % kC0)] =
              w[(m * g.c + c) * taps_ + t];
  }

  // The padding (a frame, or border windows in place), the tap offsets, the groups of output blocks and the bands
  // of output pixels.
  void plan_dense() {
    const ConvGeometry& g = g_;
    // Input blocks per pass over a band: a tile's window of them stays in L1 while the weights stream by.
    tile_blocks_ = std::min(tiles_.blocks, m1_);
    tile_pixels_ = tiles_.pixels[tile_blocks_];
    const int64_t window_bytes = g.kh * ((tile_pixels_ - 1) * g.sw + (g.kw - 1) * g.dw + 1) * kC0 * static_cast<int64_t>(sizeof(float));
    chunk_ = std::clamp<int64_t>(kTileInputBytes / window_bytes, 1, c1_);
    // The interior: the output rows and columns whose every tap is inside x.
    inner_rows_ = interior_outputs(g.oh, g.h, g.kh, g.sh, g.ph, g.dh);
    inner_cols_ = interior_outputs(g.ow, g.w, g.kw, g.sw, g.pw, g.dw);
    const int64_t border = g.oh * g.ow - (inner_rows_.hi - inner_rows_.lo) * (inner_cols_.hi - inner_cols_.lo);
    border_in_place_ = padded() && !has_sum_ &&
                       kBorderFrameShare * border * taps_ < frame_height() * frame_width();
    plan_frame(padded() && !border_in_place_);
    origin_shift_ = border_in_place_ ? (g.ph * wp_ + g.pw) * kC0 : 0;  // (a frame holds the pads)
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j) tap_offsets_.push_back((i * g.dh * wp_ + j * g.dw) * kC0);
    for (int64_t t = 0; t < taps_; ++t) tap_ids_.push_back(t);
    const int64_t block_bytes = block_floats_ * static_cast<int64_t>(sizeof(float));
    // Groups of whole tiles of blocks (a group of 3 with tiles of 2 would run a third of its sums in tiles of 1), as
    // many as their weights need, their sizes differing by one tile at most (16 tiles 3 at a time were 3, 3, 3, 3,
    // 3, 1: with the jobs group-major, 9 tiles for one thread, 7 for the other); group_ is the largest.
    const int64_t most = std::max<int64_t>(1, kWeightGroupBytes / block_bytes / tile_blocks_);
    group_tiles_ = (m1_ + tile_blocks_ - 1) / tile_blocks_;
    groups_ = (group_tiles_ + most - 1) / most;
    group_ = std::min(m1_, (group_tiles_ + groups_ - 1) / groups_ * tile_blocks_);
    const int64_t plane = g.oh * g.ow, pixels = tile_pixels_;
    const int64_t pixel_bytes = c1_ * kC0 * static_cast<int64_t>(sizeof(float)) * g.kh;
    band_ = std::max<int64_t>(pixels, kBandBytes / pixel_bytes / pixels * pixels);
    // Enough jobs for the threads: narrower bands, down to one tile.
    const int64_t want = num_threads() > 1 ? num_threads() * kMinJobsPerThread : 1;
    while (band_ > pixels && g.n * groups_ * ((plane + band_ - 1) / band_) < want) band_ = (band_ / 2 + pixels - 1) / pixels * pixels;
    band_ = std::min(band_, (plane + pixels - 1) / pixels * pixels);
    bands_ = (plane + band_ - 1) / band_;
    // As many jobs for each thread: 9 on 2 threads left one running the ninth alone (196 pixels, 22 a band).
    while (want > 1 && g.n * groups_ * bands_ % num_threads() != 0 && bands_ < plane) ++bands_;
    band_ = (plane + bands_ - 1) / bands_;  // bands of equal size (49 pixels: 17, 17, 15, not 24, 24 and 1)
    bands_ = (plane + band_ - 1) / band_;
    // Jobs group-major where the weights outweigh x: each group's weights then stream in once for all its bands,
    // where band-major order streams every weight once per band (ResNet-50's last stage, 4-9 MiB of weights on a
    // 7x7 plane in 3-5 bands, from L3 or memory each time: 8.87 -> 8.31 ms at 1 thread, Zen 5).
    // With several threads, in a run of bands per thread where they divide evenly, so that a thread still reads the
    // part of the plane it wrote in the layer before (a share of groups reads every pixel, half of them from the
    // other core's cache: on this project's VMs that transfer at times ran 6-10x slower).
    group_major_ = m1_ * block_bytes > c1_ * hp_ * wp_ * kC0 * static_cast<int64_t>(sizeof(float));
    thread_bands_ = num_threads() > 1 && bands_ % num_threads() == 0 ? bands_ / num_threads() : bands_;
  }

  // The first output block of group g (the blocks' end for g = groups_).
  int64_t group_start(int64_t g) const { return std::min(m1_, g * group_tiles_ / groups_ * tile_blocks_); }

  // Whether some tap of some output pixel falls outside x (in the pads, or past its end).
  bool padded() const {
    const ConvGeometry& g = g_;
    return g.ph > 0 || g.pw > 0 || (g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1 > g.h + g.ph ||
           (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1 > g.w + g.pw;
  }

  // The extent of a zero-bordered frame of x: the leading pads, x, and whatever the last window reads past it.
  int64_t frame_height() const { return std::max(g_.h + g_.ph, (g_.oh - 1) * g_.sh + (g_.kh - 1) * g_.dh + 1); }
  int64_t frame_width() const { return std::max(g_.w + g_.pw, (g_.ow - 1) * g_.sw + (g_.kw - 1) * g_.dw + 1); }

  // Whether x runs from a zero-bordered frame of hp_ x wp_ per block, and its extent.
  void plan_frame(bool frame) {
    frame_ = frame;
    hp_ = frame_ ? frame_height() : g_.h;
    wp_ = frame_ ? frame_width() : g_.w;
  }

  // x in a zero-bordered frame of hp_ x wp_ per block (the caller's scratch).
  const float* framed(const float* x) const {
    const ConvGeometry& g = g_;
    const int64_t rows = g.n * c1_ * hp_;
    float* frame = scratch_floats(9, static_cast<size_t>(rows * wp_ * kC0));
    parallel_for(rows, 64, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        float* row = frame + r * wp_ * kC0;
        const int64_t plane = r / hp_, y = r % hp_ - g.ph;
        if (y < 0 || y >= g.h) {
          std::memset(row, 0, static_cast<size_t>(wp_ * kC0) * sizeof(float));
          continue;
        }
        std::memset(row, 0, static_cast<size_t>(g.pw * kC0) * sizeof(float));
        std::memcpy(row + g.pw * kC0, x + (plane * g.h + y) * g.w * kC0, static_cast<size_t>(g.w * kC0) * sizeof(float));
        std::memset(row + (g.pw + g.w) * kC0, 0, static_cast<size_t>((wp_ - g.pw - g.w) * kC0) * sizeof(float));
      }
    });
    return frame;
  }

  // Whether every tap of output pixel (oh, ow) is inside x.
  bool interior(int64_t oh, int64_t ow) const {
    return oh >= inner_rows_.lo && oh < inner_rows_.hi && ow >= inner_cols_.lo && ow < inner_cols_.hi;
  }

  // One tile of `count` pixels over output blocks [ob0, ob1), tile_blocks_ at a time, from a.weights and a.bias
  // (block ob0's); block ob's outputs and fused sum at out and sum (null: none) + (ob - ob0) * a.out_block_stride.
  // `contiguous`: pixel q's origin is origins[0] + q * 16 (the tiles' one-pointer form).
  void run_tile(const BlockedConvArgs& a, const float* const* origins, int64_t count, bool contiguous, int64_t ob0,
                int64_t ob1, const float* sum, float* out) const {
    for (int64_t ob = ob0; ob < ob1; ob += tile_blocks_) {
      BlockedConvArgs t = a;
      t.weights = a.weights + (ob - ob0) * block_floats_;
      t.bias = a.bias + (ob - ob0) * kC0;
      const int64_t at = (ob - ob0) * a.out_block_stride, nb = std::min(tile_blocks_, ob1 - ob);
      t.sum = sum != nullptr ? sum + at : nullptr;
      if (contiguous) {
        tiles_.conv_contiguous(t, origins[0], count, nb, out + at);
      } else {
        tiles_.conv(t, origins, count, nb, out + at);
      }
    }
  }

  // Pixels [p0, p1) of `image` (outputs and sum as run_tile's, from pixel p0) in tiles of equal size (49 pixels:
  // 10, 10, 10, 10, 9, not 12 x 4 and a tile of one that streams the group's weights for a single pixel); origins
  // advance pixel by pixel, without a division each (as costly as the sums of a tile when the conv is shallow).
  void run_pixels(const BlockedConvArgs& a, const float* image, int64_t p0, int64_t p1, int64_t ob0, int64_t ob1,
                  const float* sum, float* out) const {
    const ConvGeometry& g = g_;
    const float* origins[kMaxTilePixels];
    const int64_t tiles = (p1 - p0 + tile_pixels_ - 1) / tile_pixels_, step = (p1 - p0 + tiles - 1) / tiles;
    const int64_t column_step = g.sw * kC0, row_step = g.sh * wp_ * kC0, ow_end = g.ow;
    int64_t ow = p0 % g.ow, row = p0 / g.ow * row_step - origin_shift_;  // row: column 0's offset (may be < 0)
    int64_t offset = row + ow * column_step;
    for (int64_t t0 = p0; t0 < p1; t0 += step) {
      const int64_t count = std::min(step, p1 - t0);
      for (int64_t q = 0; q < count; ++q) {
        origins[q] = image + offset;
        offset += column_step;
        if (++ow == ow_end) ow = 0, row += row_step, offset = row;
      }
      // (steps of one pixel in a row, and a row's wrap never less: the first and last origins tell)
      const bool contiguous = column_step == kC0 && origins[count - 1] == origins[0] + (count - 1) * kC0;
      const int64_t at = (t0 - p0) * kC0;
      run_tile(a, origins, count, contiguous, ob0, ob1, sum != nullptr ? sum + at : nullptr, out + at);
    }
  }

  // Border pixels: a band's pixels [p_begin, p_end) of image n, output blocks [ob0, ob1) (`base`: their weights
  // and bias, one pass of input blocks). Interior pixels in runs of neighbours read x in place; a border pixel
  // too, over the taps of its window inside x (rows [i0, i1), columns [j0, j1) of the kernel), its origin at the
  // first of them so that no pointer leaves x. Border pixels of one window shape (a row's top pixels, a column's)
  // share a tile, written to a staging buffer (after the first pass, loaded with the sums so far) and scattered.
  // (Patches of their windows, zeros included, cost a tenth of the default model's 32 -> 64 stride-2 conv for 7%
  // of its pixels.)
  void run_band_in_place(const float* image, int64_t n, int64_t ob0, int64_t ob1, int64_t p_begin, int64_t p_end,
                        const BlockedConvArgs& base, float* out) const {
    const ConvGeometry& g = g_;
    const int64_t plane = g.oh * g.ow;
    struct Window {
      int64_t i0, i1, j0, j1;
      bool operator!=(const Window& o) const { return i0 != o.i0 || i1 != o.i1 || j0 != o.j0 || j1 != o.j1; }
    };
    auto window_of = [&](int64_t p) {
      const int64_t y = p / g.ow * g.sh - g.ph, x = p % g.ow * g.sw - g.pw;
      const OutputSpan rows = inside_taps(y, g.h, g.kh, g.dh), cols = inside_taps(x, g.w, g.kw, g.dw);
      return Window{rows.lo, rows.hi, cols.lo, cols.hi};
    };
    // Border pixels wait in a batch per window shape: a plane's left and right columns alternate row by row, and
    // one batch for all had run each of them alone (a tile of one pixel streaming the pass's weights for it).
    struct Batch {
      Window shape;
      int64_t count;
      int64_t pixels[kMaxTilePixels];
    };
    Batch batches[kBorderBatches];
    int64_t batch_count = 0, run_begin = -1;
    Window listed{-1, -1, -1, -1};  // the window shape the tap lists are of
    const float* origins[kMaxTilePixels];
    std::vector<int64_t> taps, weight_taps;
    float* staged = scratch_floats(14, static_cast<size_t>(tile_pixels_ * group_ * kC0));
    auto flush_run = [&](int64_t end) {  // interior pixels [run_begin, end)
      if (run_begin < 0) return;
      run_pixels(base, image, run_begin, end, ob0, ob1, nullptr, out + ((n * m1_ + ob0) * plane + run_begin) * kC0);
      run_begin = -1;
    };
    auto flush_border = [&](Batch& batch) {
      const Window& shape = batch.shape;
      const int64_t* border = batch.pixels;
      const int64_t border_count = batch.count;
      if (border_count == 0) return;
      if (shape != listed) {
        taps.clear();
        weight_taps.clear();
        for (int64_t i = shape.i0; i < shape.i1; ++i)
          for (int64_t j = shape.j0; j < shape.j1; ++j) {
            taps.push_back(((i - shape.i0) * g.dh * g.w + (j - shape.j0) * g.dw) * kC0);
            weight_taps.push_back(i * g.kw + j);
          }
        listed = shape;
      }
      BlockedConvArgs a = base;
      a.taps = taps.data();
      a.tap_count = static_cast<int64_t>(taps.size());
      a.weight_taps = weight_taps.data();
      a.out_block_stride = tile_pixels_ * kC0;
      for (int64_t q = 0; q < border_count; ++q) {
        const int64_t y = border[q] / g.ow * g.sh - g.ph + shape.i0 * g.dh, x = border[q] % g.ow * g.sw - g.pw + shape.j0 * g.dw;
        origins[q] = a.tap_count > 0 ? image + (y * g.w + x) * kC0 : image;  // (no tap: the bias alone)
      }
      // Border pixel q's line of block ob: in the output, and in the staging buffer.
      auto placed = [&](int64_t ob, int64_t q) { return out + ((n * m1_ + ob) * plane + border[q]) * kC0; };
      auto line = [&](int64_t ob, int64_t q) { return staged + ((ob - ob0) * tile_pixels_ + q) * kC0; };
      if (a.accumulate)  // (a pass after the first: the sums so far, into the staging buffer)
        for (int64_t ob = ob0; ob < ob1; ++ob)
          for (int64_t q = 0; q < border_count; ++q) std::copy_n(placed(ob, q), kC0, line(ob, q));
      run_tile(a, origins, border_count, false, ob0, ob1, nullptr, staged);
      for (int64_t ob = ob0; ob < ob1; ++ob)
        for (int64_t q = 0; q < border_count; ++q) std::copy_n(line(ob, q), kC0, placed(ob, q));
      batch.count = 0;
    };
    // The batch of a window shape; else a new or an empty one; when every batch holds pixels of another shape, the
    // fullest is run and takes it.
    auto batch_of = [&](const Window& w) -> Batch& {
      Batch* empty = batch_count < kBorderBatches ? &batches[batch_count] : nullptr;
      for (int64_t b = 0; b < batch_count; ++b) {
        if (!(batches[b].shape != w)) return batches[b];
        if (batches[b].count == 0) empty = &batches[b];
      }
      Batch* batch = empty;
      if (batch == nullptr) {
        batch = std::max_element(batches, batches + kBorderBatches,
                                 [](const Batch& l, const Batch& r) { return l.count < r.count; });
        flush_border(*batch);
      } else if (batch == &batches[batch_count]) {
        ++batch_count;
      }
      batch->shape = w;
      batch->count = 0;
      return *batch;
    };
    for (int64_t p = p_begin, oh = p_begin / g.ow, ow = p_begin % g.ow; p < p_end; ++p) {
      if (interior(oh, ow)) {
        if (run_begin < 0) run_begin = p;
      } else {
        flush_run(p);
        Batch& batch = batch_of(window_of(p));
        batch.pixels[batch.count++] = p;
        if (batch.count == tile_pixels_) flush_border(batch);
      }
      if (++ow == g.ow) ow = 0, ++oh;
    }
    flush_run(p_end);
    for (int64_t b = 0; b < batch_count; ++b) flush_border(batches[b]);
  }

  void run_dense(const float* x, const float* sum, float* out) const {
    const ConvGeometry& g = g_;
    const int64_t plane = g.oh * g.ow, in_plane = hp_ * wp_ * kC0;
    BlockedConvArgs common{};
    common.weight_block = block_floats_;
    common.taps = tap_offsets_.data();
    common.tap_count = taps_;
    common.weight_taps = tap_ids_.data();
    common.kernel_taps = taps_;
    common.in_block_stride = in_plane;
    common.out_block_stride = plane * kC0;
    common.lo = lo_;
    common.hi = hi_;
    parallel_for(g.n * groups_ * bands_, 1, [&](int64_t j0, int64_t j1) {
      BlockedConvArgs base = common;
      for (int64_t j = j0; j < j1; ++j) {
        // Jobs band-major (a thread's share of them is a part of the plane, the part it wrote in the layer before),
        // or group-major in runs of thread_bands_ bands (one run per thread where the bands divide evenly), the
        // groups over a run's bands in turn.
        const int64_t n = j / (groups_ * bands_);
        const int64_t run_jobs = groups_ * thread_bands_, k = j % (groups_ * bands_);
        const int64_t group = group_major_ ? k % run_jobs / thread_bands_ : j % groups_;
        const int64_t band = group_major_ ? k / run_jobs * thread_bands_ + k % thread_bands_ : j / groups_ % bands_;
        const int64_t ob0 = group_start(group), ob1 = group_start(group + 1);
        const int64_t p_begin = band * band_, p_end = std::min(plane, p_begin + band_);
        const float* image = x + n * c1_ * in_plane;
        const int64_t at = ((n * m1_ + ob0) * plane + p_begin) * kC0;  // the band's first output of block ob0
        base.bias = bias_.data() + ob0 * kC0;
        for (int64_t k0 = 0; k0 < c1_; k0 += chunk_) {
          base.weights = packed_.data() + ob0 * block_floats_ + k0 * taps_ * kC0 * kC0;
          base.in_blocks = std::min(chunk_, c1_ - k0);
          base.origin_offset = k0 * in_plane;
          base.accumulate = k0 > 0;
          base.last = k0 + chunk_ >= c1_;
          if (border_in_place_) {  // (no fused sum)
            run_band_in_place(image, n, ob0, ob1, p_begin, p_end, base, out);
          } else {
            run_pixels(base, image, p_begin, p_end, ob0, ob1, sum != nullptr ? sum + at : nullptr, out + at);
          }
        }
        for (int64_t ob = ob0; ob < ob1; ++ob) finish(out + ((n * m1_ + ob) * plane + p_begin) * kC0, nullptr, ob, p_end - p_begin);
      }
    });
  }

  // ---- depthwise ------------------------------------------------------------------------------------
  void pack_depthwise(const float* w) {
    packed_.assign(static_cast<size_t>(m1_ * taps_ * kC0), 0.0f);
    for (int64_t c = 0; c < g_.c; ++c)
      for (int64_t t = 0; t < taps_; ++t) packed_[static_cast<size_t>((c / kC0 * taps_ + t) * kC0 + c % kC0)] = w[c * taps_ + t];
    // Output columns whose taps all fall inside x: pw <= ow * sw and ow * sw - pw + (kw - 1) * dw < w.
    const ConvGeometry& g = g_;
    inner_cols_ = interior_outputs(g.ow, g.w, g.kw, g.sw, g.pw, g.dw);
    // A border pixel runs alone with its valid taps (a tile of one: a weight load per multiply-add, and the tap
    // list rebuilt), which on narrow planes with wide windows costs more than a pass copying x into a
    // zero-bordered frame, where every pixel is interior. Measured (Zen 3, AVX2, one thread): the frame won
    // 20-47 % for 5x5 on 14x14 and 7x7 on 7x7 to 28x28 (5.6 to 23 border taps per frame column) and lost
    // 15-50 % for 3x3 on 14x14 (1.1); on a Zen 5 (AVX-512) it won 20-25 % for 3x3 on 7x7 (2.0: MobileNetV2's
    // 960 channels 24.5-26.8 -> 19.4-21.3 us) and lost again on 14x14.
    plan_frame(padded() && (g.ow - (inner_cols_.hi - inner_cols_.lo)) * taps_ >= kFrameTapsPerColumn * frame_width());
    if (frame_) inner_cols_ = OutputSpan{0, g.ow};
  }

  void run_depthwise(const float* x, const float* sum, float* out) const {
    const ConvGeometry& g = g_;
    const int64_t want = num_threads() * kMinJobsPerThread;
    const int64_t rows_per_job = std::max<int64_t>(1, g.n * c1_ * g.oh / std::max<int64_t>(want, 1));
    const int64_t bands = (g.oh + rows_per_job - 1) / rows_per_job;
    parallel_for(g.n * c1_ * bands, 1, [&](int64_t j0, int64_t j1) {
      TapLists inner, edge;  // the interior run of rows inside x (the same in every job: listed once); any other
      bool inner_listed = false;
      for (int64_t j = j0; j < j1; ++j) {
        const int64_t block = j % c1_, plane_index = j / (c1_ * bands) * c1_ + block;  // (band-major, as dense)
        const int64_t r0 = j / c1_ % bands * rows_per_job, r1 = std::min(g.oh, r0 + rows_per_job);
        const float* plane = x + plane_index * hp_ * wp_ * kC0;
        float* dst = out + plane_index * g.oh * g.ow * kC0;
        const float* dst_sum = sum != nullptr ? sum + plane_index * g.oh * g.ow * kC0 : nullptr;
        BlockedDepthwiseArgs a{};
        a.weights = packed_.data() + block * taps_ * kC0;
        a.stride = g.sw * kC0;
        a.bias = bias_.data() + block * kC0;
        a.lo = sum != nullptr ? -__builtin_inff() : lo_;  // with a sum, the clamp follows it (finish)
        a.hi = sum != nullptr ? __builtin_inff() : hi_;
        const int64_t ph = frame_ ? 0 : g.ph, pw = frame_ ? 0 : g.pw;  // the frame holds the pads
        const int64_t inner_count = inner_cols_.hi - inner_cols_.lo;
        int64_t unfinished = r0;  // the first row not yet finished
        for (int64_t oh = r0; oh < r1; ++oh) {
          const int64_t y0 = oh * g.sh - ph;
          float* row = dst + oh * g.ow * kC0;
          if (inner_count > 0 && y0 >= 0 && y0 + (g.kh - 1) * g.dh < hp_) {
            if (!inner_listed) window_taps(inner, y0, y0, inner_cols_.lo * g.sw - pw, true);
            inner_listed = true;
            tiles_.depthwise(inner.args(a), plane + y0 * wp_ * kC0, inner_count, row + inner_cols_.lo * kC0);
          } else if (inner_count > 0) {
            window_taps(edge, y0, 0, inner_cols_.lo * g.sw - pw, true);
            tiles_.depthwise(edge.args(a), plane, inner_count, row + inner_cols_.lo * kC0);
          }
          for (int64_t ow = 0; ow < g.ow; ++ow) {
            if (ow == inner_cols_.lo && inner_count > 0) ow = inner_cols_.hi;
            if (ow >= g.ow) break;
            window_taps(edge, y0, 0, ow * g.sw - pw, false);
            tiles_.depthwise(edge.args(a), plane, 1, row + ow * kC0);
          }
          // Rows are finished together up to kFinishPixels: an activation called per row of a small plane cost
          // about as much as its arithmetic.
          if ((oh + 2 - unfinished) * g.ow > kFinishPixels || oh + 1 == r1) {  // (the next row would pass it)
            const int64_t at = unfinished * g.ow * kC0;
            finish(dst + at, dst_sum != nullptr ? dst_sum + at : nullptr, block, (oh + 1 - unfinished) * g.ow);
            unfinished = oh + 1;
          }
        }
      }
    });
  }

  // A depthwise window's taps (offsets of the input lines read and of their weights) and, with every column
  // valid, its runs of a kernel row's columns: the lists a tile reads.
  struct TapLists {
    int64_t taps[kMaxDepthwiseTaps], weight_taps[kMaxDepthwiseTaps];
    TapRun runs[kMaxDepthwiseTaps];
    int64_t tap_count = 0, run_count = 0;
    // `a` reading these lists.
    const BlockedDepthwiseArgs& args(BlockedDepthwiseArgs& a) const {
      a.taps = taps;
      a.weight_taps = weight_taps;
      a.runs = runs;
      a.tap_count = tap_count;
      a.run_count = run_count;
      return a;
    }
  };

  // The valid taps of the window whose first kernel row is input row y0 and first column x0, in floats from input
  // row `base`; with every column valid (all_columns) and no dilation across a row, also as runs. A window whose
  // rows are all inside x lists the same offsets from its own first row for every output row: the tiles read them
  // from that row (base = y0), so that they are listed once.
  void window_taps(TapLists& l, int64_t y0, int64_t base, int64_t x0, bool all_columns) const {
    const ConvGeometry& g = g_;
    l.tap_count = 0;
    l.run_count = 0;
    for (int64_t i = 0; i < g.kh; ++i) {
      const int64_t y = y0 + i * g.dh;
      if (y < 0 || y >= hp_) continue;
      if (all_columns && g.dw == 1) l.runs[l.run_count++] = {((y - base) * wp_ + x0) * kC0, i * g.kw * kC0, g.kw};
      for (int64_t k = 0; k < g.kw; ++k) {
        const int64_t xx = x0 + k * g.dw;
        if (!all_columns && (xx < 0 || xx >= wp_)) continue;
        l.taps[l.tap_count] = ((y - base) * wp_ + xx) * kC0;
        l.weight_taps[l.tap_count++] = (i * g.kw + k) * kC0;
      }
    }
  }

  // The depthwise conv's fused sum and clamp (`sum`, laid out as `at`: the tiles left them), the activation that
  // is not a clamp, then zeros in the lanes past M of the last block: `pixels` pixels of output block `ob`.
  void finish(float* at, const float* sum, int64_t ob, int64_t pixels) const {
    if (sum != nullptr)
      for (int64_t i = 0; i < pixels * kC0; ++i) at[i] = std::min(std::max(at[i] + sum[i], lo_), hi_);
    if (!clamps_) apply_activation(act_, at, pixels * kC0);
    clear_padding_lanes(at, pixels, g_.m - ob * kC0);
  }

  TensorDesc x_;
  ConvGeometry g_;
  Activation act_;
  const BlockedConvTiles& tiles_;
  bool round_ = false, has_sum_ = false, depthwise_ = false, clamps_ = false, frame_ = false;
  float lo_ = 0, hi_ = 0;
  int64_t c1_ = 0, m1_ = 0, taps_ = 0, block_floats_ = 0;
  int64_t hp_ = 0, wp_ = 0;  // x's extent per block: its own, or the frame's
  int64_t group_ = 1, groups_ = 1, band_ = 1, bands_ = 1, chunk_ = 1;  // dense
  int64_t group_tiles_ = 1;                                             // dense: tiles of blocks in all groups
  bool group_major_ = false;                                            // dense: the jobs' order (plan_dense)
  int64_t thread_bands_ = 1;                                            // dense, group-major: bands of a run
  int64_t tile_blocks_ = 1, tile_pixels_ = 1;                           // dense: the tile the conv runs
  bool border_in_place_ = false;                                         // dense: border windows in place (else a frame)
  OutputSpan inner_rows_{0, 0}, inner_cols_{0, 0};                      // interior rows (dense), columns (both)
  int64_t origin_shift_ = 0;                                             // dense: the pads' floats (in place)
  PackedFloats packed_, bias_;
  std::vector<int64_t> tap_offsets_;
  std::vector<int64_t> tap_ids_;  // dense: 0 .. taps - 1, the weights of the taps above (a border window has its own)
};

// BlockedConv on an NCHW image of a few channels (a stem that starts a chain of blocked convs): the few-channel
// direct conv (stem_conv.h) writing NC1HWC0, where blocks of 16 input channels would multiply its work by five
// for 3 channels and a TransData after an NCHW stem would write and read the whole plane once more.
class BlockedStemKernel final : public Kernel {
 public:
  BlockedStemKernel(const NodeSpec& spec, const ConvGeometry& g, const Activation& act, const float* weights,
                    const float* bias)
      : x_(spec.inputs[0]), act_(act), round_((spec.flags & kRoundInputsFp16) != 0) {
    std::vector<float> rounded;
    stem_ = std::make_unique<StemConv>(g, rounded_constant(weights, g.m * g.c * g.kh * g.kw, round_, &rounded), true);
    bias_.assign(static_cast<size_t>(unit_blocks(g.m) * kC0), 0.0f);
    if (bias != nullptr) std::copy(bias, bias + g.m, bias_.begin());
  }

  std::string path() const override { return std::string("NC1HWC0 from NCHW, few input channels, ") + blocked_conv_tiles().shape; }

  void run(const void* const* inputs, void* const* outputs) override {
    stem_->run(float_input(x_, inputs[0], round_, 1), bias_.data(), act_, static_cast<float*>(outputs[0]));
  }

 private:
  TensorDesc x_;
  Activation act_;
  bool round_;
  std::unique_ptr<StemConv> stem_;
  PackedFloats bias_;
};

std::unique_ptr<Kernel> make_blocked_conv(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() < 2 || spec.outputs.size() != 1) return refuse(spec, error, "needs inputs X and W and one output");
  for (size_t i = 0; i < spec.inputs.size(); ++i)
    if ((i >= spec.present.size() || spec.present[i]) && spec.inputs[i].dtype != ACL_FLOAT)
      return refuse(spec, error, std::string("dtype ") + dtype_name(spec.inputs[i].dtype) + " is not supported (FLOAT)");
  const auto& xd = spec.inputs[0].dims;
  const auto& wd = spec.inputs[1].dims;
  const bool nchw = xd.size() == 4;  // a stem's image
  if ((!nchw && (xd.size() != 5 || xd[4] != kC0)) || wd.size() != 4)
    return refuse(spec, error, "needs x in NC1HWC0 [N, C1, H, W, 16] (or an NCHW image of a few channels) and a 4-D weight, given x " +
                                   dims_str(xd) + " and weight " + dims_str(wd));
  const Attrs empty;
  const int64_t group = (spec.attrs ? *spec.attrs : empty).get_int("group", 1);
  const std::vector<int64_t> logical = nchw ? xd : std::vector<int64_t>{xd[0], wd[1] * group, xd[2], xd[3]};
  if (!nchw && unit_blocks(logical[1]) != xd[1])
    return refuse(spec, error, "x " + dims_str(xd) + " does not hold the weight's " + std::to_string(logical[1]) + " channels");
  ConvGeometry g;
  if (!read_conv_geometry(spec, logical, wd, &g, error)) return nullptr;
  if (nchw && (!StemConv::suits(g) || spec.inputs.size() > 3))
    return refuse(spec, error, "an NCHW x " + dims_str(xd) + " needs a conv of few input channels (at most 4, no groups, "
                               "strides 1-2, no dilation, windows up to 7x7) and no fused sum");
  if (g.group != 1 && !(g.group == g.c && g.m == g.c))
    return refuse(spec, error, "group " + std::to_string(g.group) + " is neither 1 nor depthwise");
  if (g.group != 1 && g.kh * g.kw > kMaxDepthwiseTaps)
    return refuse(spec, error, "a depthwise window of more than " + std::to_string(kMaxDepthwiseTaps) + " taps");
  if (!check_conv_operands(spec, g, {g.n, unit_blocks(g.m), g.oh, g.ow, kC0}, error)) return nullptr;
  const void* weights = spec.constant_data.size() > 1 ? spec.constant_data[1] : nullptr;
  const bool has_bias = spec.inputs.size() > 2 && (spec.present.size() <= 2 || spec.present[2]);
  const void* bias = has_bias && spec.constant_data.size() > 2 ? spec.constant_data[2] : nullptr;
  if (weights == nullptr || (has_bias && bias == nullptr)) return refuse(spec, error, "needs constant weights and bias");
  Activation act;
  if (!parse_activation(spec, &act, error)) return nullptr;
  if (nchw) return std::make_unique<BlockedStemKernel>(spec, g, act, static_cast<const float*>(weights), static_cast<const float*>(bias));
  if (blocked_winograd_suits(g))
    return make_blocked_winograd(spec, g, act, static_cast<const float*>(weights), static_cast<const float*>(bias));
  return std::make_unique<BlockedConvKernel>(spec, g, act, static_cast<const float*>(weights), static_cast<const float*>(bias));
}

}  // namespace

ASCENDSIM_KERNEL(BlockedConv, "ascendsim", make_blocked_conv);

}  // namespace ascendsim::kernels
