// Winograd convs on NC1HWC0 tensors, 3x3 windows, a tile of 2x2 output pixels at a time:
// - stride 1: F(2x2, 3x3) (the algorithm: winograd.cpp), from a 4x4 input patch, 16 positions;
// - stride 2: the window's even taps (g0, g2 of a row) meet the even inputs of a 5-wide patch and its odd tap the
//   odd ones, so per axis y0 = g0 x0 + g1 x1 + g2 x2 and y1 = g0 x2 + g1 x3 + g2 x4 take F(2, 2) for the even part
//   (3 products: (x0 - x2) g0, x2 (g0 + g2), (x4 - x2) g2) and 2 for the odd part: 5 positions per axis, 25 per
//   tile from a 5x5 patch (B^T, G, A^T: simd/blocked_winograd_tiles.cpp, winograd_weights), against 36 direct
//   multiply-adds; its transforms hold no fractions, so its rounding is of the direct sum's order.
// Every value of a patch is a 16-channel line, so the transforms are vector adds of whole lines
// (simd/blocked_winograd_tiles.h), and the products, one per position t,
//   M_t [tiles x M] = V_t [tiles x C] x U_t [C x M],
// are 1x1 convs on a "plane" of tiles: V_t laid out as a NC1HWC0 input (block b's line of tile k), U_t packed as
// the direct conv packs a 1x1 conv's weights, and the direct conv's register tiles (simd/blocked_conv_tiles.h) run
// them. Stride 1: 16 multiply-adds per tile and channel pair against 36 direct, 2.25x fewer (DenseNet-121's 128 ->
// 32 convs on 56x56, Zen 4: 1.13 ms here, 2.2 direct, 2.0-2.1 in onnxruntime's NCHWc); stride 2: 25 against 36, 1.44x.
//
// Work: jobs of (image, run of tiles in row-major order), sized so that V and M of a job stay in L2 and there are
// jobs enough for the threads; a job runs its input transform, its products and its output transform on one
// thread, so V and M never cross cores. Where U outgrows L2 (deep convs on small planes) and would stream in again
// for every job, an image is one job whose three steps are each split over the threads instead. The bias, a fused
// sum and a Relu / Clip clamp are applied by the output transform; any other activation, and the zeros of the
// lanes past M, after the jobs.
#include "kernels/blocked_winograd.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/layout.h"
#include "kernels/packed_floats.h"
#include "kernels/simd/blocked_conv_tiles.h"
#include "kernels/simd/blocked_winograd_tiles.h"
#include "kernels/thread_pool.h"
#include "kernels/winograd_weights.h"

namespace ascendsim::kernels {
namespace {

constexpr int64_t kC0 = kUnit;  // channels of a block
constexpr int64_t kJobBytes = int64_t{512} << 10;        // V + M of a job: in L2
constexpr int64_t kImageBytes = int64_t{2} << 20;        // V + M of a whole image, at most, to make it one job
// Stride 2: U (25 positions) of at most this many bytes; ResNet-50's 512 -> 512 on 14x14 -> 7x7 (26 MiB for 16
// tiles) ran 4% slower than the direct tiles (Zen 4), its 256 -> 256 (6.5 MiB) 18% faster.
constexpr int64_t kMaxStride2Weights = int64_t{16} << 20;
// Fewer 2x2 tiles: the direct tiles (a 7x7 plane, 16 tiles, still ran faster by Winograd: DenseNet-121's 128 -> 32
// 34 -> 26 us, Zen 4; smaller planes were not measured). Mirrored by the compiler's WINOGRAD_MIN_TILES.
constexpr int64_t kMinTiles = 16;

class BlockedWinogradKernel final : public Kernel {
 public:
  BlockedWinogradKernel(const NodeSpec& spec, const ConvGeometry& g, const Activation& act, const float* weights,
                        const float* bias)
      : x_(spec.inputs[0]), g_(g), act_(act), conv_tiles_(blocked_conv_tiles()), transforms_(blocked_winograd_tiles()) {
    round_ = (spec.flags & kRoundInputsFp16) != 0;
    has_sum_ = spec.inputs.size() > 3;
    c1_ = unit_blocks(g.c);
    m1_ = unit_blocks(g.m);
    positions_ = winograd_side(g.sh) * winograd_side(g.sh);
    clamps_ = activation_bounds(act_, &lo_, &hi_);  // (else infinite bounds: the activation runs after the jobs)
    bias_.assign(static_cast<size_t>(m1_ * kC0), 0.0f);
    if (bias != nullptr) std::copy(bias, bias + g.m, bias_.begin());
    zeros_.assign(static_cast<size_t>(m1_ * kC0), 0.0f);
    std::vector<float> rounded;
    pack(winograd_weights(g, rounded_constant(weights, g.m * g.c * 9, round_, &rounded)));
    plan();
  }

  std::string path() const override {
    return std::string("NC1HWC0 Winograd F(2x2, 3x3)") + (g_.sh == 2 ? " stride 2, " : ", ") +
           std::to_string(job_tiles_) + " tiles a job" + (split_steps_ ? ", steps split" : "") +
           ", products in tiles " + std::to_string(tile_pixels_) + " x " + std::to_string(tile_blocks_ * kC0) + " of " +
           conv_tiles_.shape;
  }

  void run(const void* const* inputs, void* const* outputs) override {
    const float* x = float_input(x_, inputs[0], round_, 1);
    const float* sum = has_sum_ ? static_cast<const float*>(inputs[3]) : nullptr;
    auto* out = static_cast<float*>(outputs[0]);
    const ConvGeometry& g = g_;
    const int64_t tiles = tiles_h_ * tiles_w_, jobs = (tiles + job_tiles_ - 1) / job_tiles_;
    const int64_t in_plane = g.h * g.w * kC0, out_plane = g.oh * g.ow * kC0;
    // Job (image n, tiles [k0, k1)): input blocks [b0, b1) into v, positions [t0, t1) into m, output blocks [b0, b1).
    auto input = [&](int64_t n, int64_t k0, int64_t k1, const WinogradLines& v, int64_t b0, int64_t b1) {
      const BlockedWinogradInput in{x + (n * c1_ + b0) * in_plane, g.h, g.w, g.ph, g.pw, g.sh, b1 - b0, tiles_w_};
      transforms_.input(in, k0, k1, WinogradLines{v.at + b0 * v.block_stride, v.position_stride, v.block_stride});
    };
    auto output = [&](int64_t n, int64_t k0, int64_t k1, const WinogradLines& m, int64_t b0, int64_t b1) {
      const int64_t at = (n * m1_ + b0) * out_plane;
      const BlockedWinogradOutput o{out + at, sum != nullptr ? sum + at : nullptr, g.oh, g.ow, g.sh, b1 - b0, tiles_w_,
                                    bias_.data() + b0 * kC0, lo_, hi_};
      transforms_.output(o, k0, k1, WinogradLines{m.at + b0 * m.block_stride, m.position_stride, m.block_stride});
    };
    auto lines = [&](int slot, int64_t blocks) {
      return WinogradLines{scratch_floats(slot, static_cast<size_t>(positions_ * blocks * job_tiles_ * kC0)),
                           blocks * job_tiles_ * kC0, job_tiles_ * kC0};
    };
    if (split_steps_) {  // an image a job, each step split over the threads (V and M the caller's)
      const WinogradLines v = lines(10, c1_), m = lines(11, m1_);
      for (int64_t n = 0; n < g.n; ++n) {
        parallel_for(c1_, 1, [&](int64_t b0, int64_t b1) { input(n, 0, tiles, v, b0, b1); });
        parallel_for(positions_, 1, [&](int64_t t0, int64_t t1) { multiply(v, tiles, m, t0, t1); });
        parallel_for(m1_, 1, [&](int64_t b0, int64_t b1) { output(n, 0, tiles, m, b0, b1); });
      }
    } else {
      parallel_for(g.n * jobs, 1, [&](int64_t j0, int64_t j1) {
        const WinogradLines v = lines(10, c1_), m = lines(11, m1_);
        for (int64_t j = j0; j < j1; ++j) {
          const int64_t n = j / jobs, k0 = j % jobs * job_tiles_, k1 = std::min(tiles, k0 + job_tiles_);
          input(n, k0, k1, v, 0, c1_);
          multiply(v, k1 - k0, m, 0, positions_);
          output(n, k0, k1, m, 0, m1_);
        }
      });
    }
    // Lanes past M hold sums of zero weights: zeros, but NaN where an input is infinite, and the clamp's bound where
    // it excludes 0. An activation that is not a clamp runs here.
    if (clamps_ && g.m % kC0 == 0) return;
    parallel_for(g.n * m1_, 1, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        float* at = out + b * out_plane;
        if (!clamps_) apply_activation(act_, at, out_plane);
        if (b % m1_ == m1_ - 1) clear_padding_lanes(at, g.oh * g.ow, g.m - (m1_ - 1) * kC0);
      }
    });
  }

 private:
  // U_t packed per position as the direct conv packs a 1x1 conv: [t][output block][input block][16 in][16 out].
  void pack(const std::vector<float>& u) {
    const ConvGeometry& g = g_;
    block_floats_ = c1_ * kC0 * kC0;
    packed_.assign(static_cast<size_t>(positions_ * m1_ * block_floats_), 0.0f);
    for (int64_t t = 0; t < positions_; ++t)
      for (int64_t o = 0; o < g.m; ++o)
        for (int64_t i = 0; i < g.c; ++i)
          packed_[static_cast<size_t>((t * m1_ + o / kC0) * block_floats_ + i * kC0 + o % kC0)] =
              u[static_cast<size_t>((t * g.m + o) * g.c + i)];
  }

  // The register tile of the products, and the jobs: as many tiles as V and M of kJobBytes hold, at least a register
  // tile's, fewer when the threads need more jobs, all of one size (even_part).
  void plan() {
    const ConvGeometry& g = g_;
    tile_blocks_ = std::min(conv_tiles_.blocks, m1_);
    tile_pixels_ = conv_tiles_.pixels[tile_blocks_];
    tiles_w_ = (g.ow + 1) / 2;
    tiles_h_ = (g.oh + 1) / 2;
    const int64_t tiles = tiles_w_ * tiles_h_;
    const int64_t tile_bytes = positions_ * (c1_ + m1_) * kC0 * static_cast<int64_t>(sizeof(float));
    int64_t most = std::max(tile_pixels_, kJobBytes / tile_bytes);
    const int64_t want = num_threads() > 1 ? num_threads() * kMinJobsPerThread : 1;
    while (most > tile_pixels_ && g.n * ((tiles + most - 1) / most) < want) most = std::max(tile_pixels_, most / 2);
    job_tiles_ = even_part(tiles, std::min(most, tiles));
    // U larger than L2 streams in again for every job: where that outweighs V and M of a whole image (written and
    // read once), and those stay within kImageBytes, an image is one job, its steps split over the threads (Zen 4, 1
    // thread: ResNet-50's 512 -> 512 on 7x7 2.09 -> 1.61 ms, 256 -> 256 on 14x14 1.15 -> 1.10; its stride-2 128 ->
    // 128, V and M 5 MiB, 1.69 -> 2.29, so it keeps its jobs).
    const int64_t u_bytes = positions_ * m1_ * block_floats_ * static_cast<int64_t>(sizeof(float));
    const int64_t jobs = (tiles + job_tiles_ - 1) / job_tiles_, image_bytes = tiles * tile_bytes;
    if (u_bytes > kJobBytes && jobs * u_bytes > 2 * image_bytes && image_bytes <= kImageBytes) {
      job_tiles_ = tiles;
      split_steps_ = num_threads() > 1;
    }
  }

  // M_t = V_t x U_t for positions [t0, t1) of a job's `count` tiles: register tiles of equal size over the tiles,
  // tile_blocks_ output blocks at a time.
  void multiply(const WinogradLines& v, int64_t count, const WinogradLines& m, int64_t t0, int64_t t1) const {
    static const int64_t kOrigin = 0;
    BlockedConvArgs a{};
    a.weight_block = block_floats_;
    a.taps = &kOrigin;
    a.tap_count = 1;
    a.weight_taps = &kOrigin;
    a.kernel_taps = 1;
    a.in_blocks = c1_;
    a.in_block_stride = v.block_stride;
    a.accumulate = false;
    a.last = false;  // (plain stores: the bias, a fused sum and the clamp wait for the output transform)
    a.out_block_stride = m.block_stride;
    const int64_t step = even_part(count, tile_pixels_);
    for (int64_t t = t0; t < t1; ++t) {
      for (int64_t ob = 0; ob < m1_; ob += tile_blocks_) {
        const int64_t nb = std::min(tile_blocks_, m1_ - ob);
        a.weights = packed_.data() + (t * m1_ + ob) * block_floats_;
        a.bias = zeros_.data() + ob * kC0;
        for (int64_t k = 0; k < count; k += step)
          conv_tiles_.conv_contiguous(a, v.at + t * v.position_stride + k * kC0, std::min(step, count - k), nb,
                                      m.at + t * m.position_stride + ob * m.block_stride + k * kC0);
      }
    }
  }

  TensorDesc x_;
  ConvGeometry g_;
  Activation act_;
  const BlockedConvTiles& conv_tiles_;
  const BlockedWinogradTiles& transforms_;
  bool round_ = false, has_sum_ = false, clamps_ = false;
  float lo_ = 0, hi_ = 0;
  int64_t c1_ = 0, m1_ = 0, block_floats_ = 0, positions_ = 16;  // positions: of a transformed tile
  int64_t tiles_w_ = 0, tiles_h_ = 0, job_tiles_ = 1;
  bool split_steps_ = false;  // one job per image, each step split over the threads
  int64_t tile_blocks_ = 1, tile_pixels_ = 1;
  PackedFloats packed_, bias_, zeros_;
};

}  // namespace

bool blocked_winograd_suits(const ConvGeometry& g) {
  const int64_t positions = winograd_side(g.sh) * winograd_side(g.sh);
  const bool stride_fits =
      g.sh == 1 || (g.sh == 2 && positions * g.c * g.m * int64_t{sizeof(float)} <= kMaxStride2Weights);
  return g.kh == 3 && g.kw == 3 && stride_fits && g.sw == g.sh && g.dh == 1 && g.dw == 1 && g.group == 1 &&
         (g.oh + 1) / 2 * ((g.ow + 1) / 2) >= kMinTiles;
}

std::unique_ptr<Kernel> make_blocked_winograd(const NodeSpec& spec, const ConvGeometry& g, const Activation& act,
                                              const float* weights, const float* bias) {
  return std::make_unique<BlockedWinogradKernel>(spec, g, act, weights, bias);
}

}  // namespace ascendsim::kernels
