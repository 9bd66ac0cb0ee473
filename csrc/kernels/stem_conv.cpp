// Few-channel direct convolution (see stem_conv.h). Per image, the output rows are cut into bands, the pool's
// jobs. A band first copies the input rows its taps read into a frame, zero-padded, each row's columns split by
// their phase of the stride (stride 2: the even padded columns, then the odd ones), so that a tap (c, ki, kj)
// reads one contiguous run of the frame for a run of output columns: phase kj % sw, from column kj / sw. The
// output loop (simd/stem_rows.h) then computes four output channels by a few vectors of columns at a time over
// all C * kh * kw taps in registers, adds the bias and clamps a Relu/Clip as it stores; another activation runs
// over the band's rows while they are in cache. The frame of a band (3 channels of 17 rows for a 3x3 stride-2
// stem, ~46 KiB) stays in L2; im2col would have written each input value kh * kw / (sh * sw) times over.
// NC1HWC0 output: the blocked conv's register tiles (simd/blocked_conv_tiles.h) of pixels along an output row
// by blocks of 16 channels, a broadcast input value per pixel and tap (shared by the taps of a kernel row that
// read it), its pixels sw columns apart: in a frame not split by phase, a plain padded copy of the rows (the
// split's strided copy took 16 of the default model's 72 us stem, Zen 5), or, for a band whose windows are
// inside the image's rows, in the image itself, each pixel whose window crosses a side from a patch of it.
// No TransData follows the stem.
#include "kernels/stem_conv.h"

#include <algorithm>

#include "kernels/kernel_util.h"
#include "kernels/layout.h"
#include "kernels/simd/blocked_conv_tiles.h"
#include "kernels/simd/row_loops.h"
#include "kernels/simd/stem_rows.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

constexpr int64_t kMaxChannels = 4;
constexpr int64_t kMaxKernel = 7;
constexpr int64_t kBandRows = 8;        // output rows per band at most (a 7x7 stride-2 frame: 21 rows)
constexpr int64_t kJobsPerThread = 4;  // bands narrow down to give each thread this many

}  // namespace

bool StemConv::suits(const ConvGeometry& g) {
  return g.group == 1 && g.c <= kMaxChannels && g.sh <= 2 && g.sw <= 2 && g.dh == 1 && g.dw == 1 &&
         g.kh <= kMaxKernel && g.kw <= kMaxKernel && g.oh > 0 && g.ow > 0;
}

StemConv::StemConv(const ConvGeometry& g, const float* weights, bool blocked) : g_(g), blocked_(blocked) {
  const int64_t step = stem_rows().step_columns;
  // NCHW: the last step reads up to column (ow rounded up to whole steps) - 1 + (kw - 1) / sw of a phase.
  // Blocked: the padded row up to the last pixel's window.
  phases_ = blocked_ ? 1 : g.sw;
  half_ = blocked_ ? (g.ow - 1) * g.sw + g.kw : (g.ow + step - 1) / step * step + (g.kw - 1) / g.sw;
  pitch_ = phases_ * half_;
  band_ = std::clamp<int64_t>(g.n * g.oh / std::max<int64_t>(1, num_threads() * kJobsPerThread), 1, kBandRows);
  frame_rows_ = (band_ - 1) * g.sh + g.kh;
  // The taps: per channel and kernel row, the columns of one phase (kj = phase, phase + phases_, ...) side by side;
  // the packed weights follow the same order.
  std::vector<int64_t> weight_of_tap;  // a tap's (c, ki, kj) index in a row of the weights
  for (int64_t c = 0; c < g.c; ++c)
    for (int64_t ki = 0; ki < g.kh; ++ki)
      for (int64_t phase = 0; phase < std::min(phases_, g.kw); ++phase)
        for (int64_t kj = phase, j = 0; kj < g.kw; kj += phases_, ++j) {
          tap_offsets_.push_back((c * frame_rows_ + ki) * pitch_ + phase * half_ + j);
          weight_of_tap.push_back((c * g.kh + ki) * g.kw + kj);
        }
  if (blocked_) {
    frame_window_ = window(frame_rows_ * pitch_, pitch_);
    image_window_ = window(g.h * g.w, g.w);
    patch_window_ = window(g.kh * g.kw, g.kw);
    inner_rows_ = interior_outputs(g.oh, g.h, g.kh, g.sh, g.ph, 1);
    inner_cols_ = interior_outputs(g.ow, g.w, g.kw, g.sw, g.pw, 1);
  }
  const int64_t taps = static_cast<int64_t>(tap_offsets_.size());
  // [output block][tap][16] blocked, else [tile of kStemChannelsPerTile][tap][kStemChannelsPerTile].
  const int64_t unit = blocked_ ? kUnit : kStemChannelsPerTile;
  packed_.assign(static_cast<size_t>((g.m + unit - 1) / unit * taps * unit), 0.0f);
  for (int64_t m = 0; m < g.m; ++m)
    for (int64_t t = 0; t < taps; ++t)
      packed_[static_cast<size_t>((m / unit * taps + t) * unit + m % unit)] = weights[m * taps + weight_of_tap[static_cast<size_t>(t)]];
}

StemConv::Window StemConv::window(int64_t channel_floats, int64_t row_floats) const {
  const ConvGeometry& g = g_;
  Window w;
  for (int64_t c = 0; c < g.c; ++c)
    for (int64_t ki = 0; ki < g.kh; ++ki) {
      const int64_t first = c * channel_floats + ki * row_floats;
      w.runs.push_back({first, static_cast<int64_t>(w.taps.size()) * kUnit, g.kw});
      for (int64_t kj = 0; kj < g.kw; ++kj) w.taps.push_back(first + kj);
    }
  return w;
}

// Frame rows [0, rows) of every channel: input row first_row + i (zeros outside the image), by phase.
void StemConv::build_frame(const float* image, int64_t first_row, int64_t rows, float* frame) const {
  const ConvGeometry& g = g_;
  const RowLoops& loops = row_loops();
  for (int64_t c = 0; c < g.c; ++c) {
    for (int64_t i = 0; i < rows; ++i) {
      float* dst = frame + (c * frame_rows_ + i) * pitch_;
      const int64_t ih = first_row + i;
      if (ih < 0 || ih >= g.h) {
        std::fill(dst, dst + pitch_, 0.0f);
        continue;
      }
      const float* src = image + (c * g.h + ih) * g.w;
      for (int64_t p = 0; p < phases_; ++p) {
        // Phase column j is padded column j * phases_ + p, input column j * phases_ + p - pw.
        float* phase = dst + p * half_;
        const int64_t lo = std::min(half_, g.pw > p ? (g.pw - p + phases_ - 1) / phases_ : 0);
        const int64_t hi = std::clamp((g.w + g.pw - p + phases_ - 1) / phases_, lo, half_);
        std::fill(phase, phase + lo, 0.0f);
        if (hi > lo) loops.gather(src + lo * phases_ + p - g.pw, phases_, phase + lo, hi - lo);
        std::fill(phase + hi, phase + half_, 0.0f);
      }
    }
  }
}

void StemConv::run(const float* x, const float* bias, const Activation& act, float* out) const {
  const ConvGeometry& g = g_;
  StemBand b{tap_offsets_.data(), static_cast<int64_t>(tap_offsets_.size()), g.sh * pitch_, g.m, g.oh, g.ow, 0, 0};
  const bool fused = activation_bounds(act, &b.lo, &b.hi);
  const int64_t bands = (g.oh + band_ - 1) / band_, plane = g.oh * g.ow;
  parallel_for(g.n * bands, 1, [&](int64_t j0, int64_t j1) {
    float* frame = scratch_floats(6, static_cast<size_t>(g.c * frame_rows_ * pitch_));
    for (int64_t j = j0; j < j1; ++j) {
      const int64_t n = j / bands, r0 = j % bands * band_, r1 = std::min(g.oh, r0 + band_);
      const float* image = x + n * g.c * g.h * g.w;
      // (blocked, rows inside x: no frame; its copy was a sixth of the default model's stem)
      const bool in_place = blocked_ && r0 >= inner_rows_.lo && r1 <= inner_rows_.hi;
      if (!in_place) build_frame(image, r0 * g.sh - g.ph, (r1 - r0 - 1) * g.sh + g.kh, frame);
      if (blocked_) {
        blocked_rows(in_place ? nullptr : frame, image, n, r0, r1, bias, act, out);
        continue;
      }
      float* image_out = out + n * g.m * plane;
      stem_rows().rows(b, frame, r0, r1, packed_.data(), bias, image_out);
      if (!fused)
        for (int64_t m = 0; m < g.m; ++m) apply_activation(act, image_out + m * plane + r0 * g.ow, (r1 - r0) * g.ow);
    }
  });
}

void StemConv::blocked_rows(const float* frame, const float* image, int64_t n, int64_t r0, int64_t r1,
                            const float* bias, const Activation& act, float* out) const {
  const ConvGeometry& g = g_;
  const BlockedConvTiles& tiles = blocked_conv_tiles();
  const int64_t m1 = (g.m + kUnit - 1) / kUnit, taps = static_cast<int64_t>(tap_offsets_.size());
  const int64_t tile_blocks = std::min(tiles.blocks, m1), pixels = tiles.pixels[tile_blocks];
  BlockedStemArgs a{};
  a.weight_block = taps * kUnit;
  a.tap_count = taps;
  a.stride = g.sw;
  a.out_block_stride = g.oh * g.ow * kUnit;
  const bool fused = activation_bounds(act, &a.lo, &a.hi);
  auto read = [&](const Window& w) {
    a.taps = w.taps.data();
    a.runs = w.runs.data();
    a.run_count = static_cast<int64_t>(w.runs.size());
  };
  // Output columns [lo, hi) of row r, pixel p0's window at origin(p0), all output blocks, in tiles whose sizes
  // differ by one at most (111 columns: 12 and 11s; a last tile of 3 after 12s cost three quarters of a whole one).
  auto row_tiles = [&](int64_t r, int64_t lo, int64_t hi, auto origin) {
    const int64_t count = hi - lo, tiles_in_row = (count + pixels - 1) / pixels;
    for (int64_t mb = 0; mb < m1; mb += tile_blocks) {
      a.weights = packed_.data() + mb * taps * kUnit;
      a.bias = bias + mb * kUnit;
      float* dst = out + ((n * m1 + mb) * g.oh + r) * g.ow * kUnit;
      for (int64_t t = 0, p0 = lo; t < tiles_in_row; ++t) {
        const int64_t size = count / tiles_in_row + (t < count % tiles_in_row ? 1 : 0);
        tiles.stem(a, origin(p0), size, std::min(tile_blocks, m1 - mb), dst + p0 * kUnit);
        p0 += size;
      }
    }
  };
  float patch[kMaxChannels * kMaxKernel * kMaxKernel];
  for (int64_t r = r0; r < r1; ++r) {
    if (frame != nullptr) {
      read(frame_window_);
      const float* row = frame + (r - r0) * g.sh * pitch_;
      row_tiles(r, 0, g.ow, [&](int64_t p0) { return row + p0 * g.sw; });
      continue;
    }
    read(image_window_);
    const int64_t y0 = r * g.sh - g.ph;
    if (inner_cols_.hi > inner_cols_.lo)
      row_tiles(r, inner_cols_.lo, inner_cols_.hi, [&](int64_t p0) { return image + y0 * g.w + p0 * g.sw - g.pw; });
    read(patch_window_);
    for (int64_t p = 0; p < g.ow; ++p) {
      if (p == inner_cols_.lo && inner_cols_.hi > inner_cols_.lo) p = inner_cols_.hi;
      if (p >= g.ow) break;
      for (int64_t c = 0; c < g.c; ++c)  // (the rows are inside x)
        for (int64_t ki = 0; ki < g.kh; ++ki)
          for (int64_t kj = 0; kj < g.kw; ++kj) {
            const int64_t xx = p * g.sw - g.pw + kj;
            patch[(c * g.kh + ki) * g.kw + kj] = xx >= 0 && xx < g.w ? image[(c * g.h + y0 + ki) * g.w + xx] : 0.0f;
          }
      row_tiles(r, p, p + 1, [&](int64_t) { return static_cast<const float*>(patch); });
    }
  }
  // Another activation on the band's rows while they are in cache; then the lanes past m back to zero (a clamp
  // or an activation may have moved them).
  for (int64_t mb = 0; mb < m1; ++mb) {
    float* rows = out + ((n * m1 + mb) * g.oh + r0) * g.ow * kUnit;
    const int64_t pixels_in_band = (r1 - r0) * g.ow;
    if (!fused) apply_activation(act, rows, pixels_in_band * kUnit);
    clear_padding_lanes(rows, pixels_in_band, g.m - mb * kUnit);
  }
}

}  // namespace ascendsim::kernels
