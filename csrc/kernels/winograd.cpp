// Winograd F(2x2, 3x3) (see winograd.h). The output is cut into 2x2 tiles, each computed from a 4x4 patch
// of the zero-padded input:   Y = A^T [ sum over c of (G g G^T) (.) (B^T d B) ] A
// where g is a 3x3 filter, d a patch, (.) the elementwise product over the 16 positions of a 4x4 tile, and
//   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1],  G = [1 0 0; .5 .5 .5; .5 -.5 .5; 0 0 1],
//   A^T = [1 1 1 0; 0 1 -1 -1].
// The sum over input channels at each of the 16 positions is a matrix product: for position t,
// M_t (m x tiles) = U_t (m x c, the transformed weights, packed once at build) x V_t (c x tiles, the
// transformed patches), 16 products of a quarter of the direct conv's depth each (4 x m x c multiply-adds
// per tile against 9 x 4 for the direct product: 2.25x fewer).
//
// Per image, in blocks of tile rows sized so that V and M stay about 2 MiB:
// 1. the image is copied into zero-padded planes (frame row r = input row r - ph, column c = input column
//    c - pw), parallel over channels;
// 2. input transform, parallel over channels: a vector of tiles of a tile row at a time, the patch columns j
//    being the even elements from frame column 2 * tx + j, B^T d B in vector adds;
// 3. the 16 products, parallel over t (each on its path: product_path.h);
// 4. output transform, parallel over output channels: A^T M A, the bias, the Relu/Clip bounds, and the two
//    output columns of each tile interleaved back into rows.
// Rows of V and M are padded to whole 16-float units past the block's last tile, so every vector store stays in
// its own row. The transforms are the active kernel variant's (simd/winograd_tiles.h).
#include "kernels/winograd.h"

#include <algorithm>

#include "kernels/layout.h"
#include "kernels/simd/winograd_tiles.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

constexpr int64_t kPositions = 16;               // of a 4x4 transformed tile
constexpr int64_t kBlockFloats = int64_t{1} << 19;  // V + M of one block of tile rows (2 MiB)
constexpr int64_t kMinChannels = 16;             // fewer: the transforms cost more than they save

}  // namespace

bool WinogradConv::suits(const ConvGeometry& g) {
  return g.kh == 3 && g.kw == 3 && g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 && g.group == 1 &&
         g.c >= kMinChannels && g.m >= kMinChannels;
}

WinogradConv::WinogradConv(const ConvGeometry& g, const float* weights) : g_(g) {
  tiles_w_ = (g.ow + 1) / 2;
  tiles_h_ = (g.oh + 1) / 2;
  const int64_t row_floats = kPositions * (g.c + g.m) * tiles_w_;
  rows_per_block_ = std::clamp<int64_t>(kBlockFloats / std::max<int64_t>(row_floats, 1), 1, tiles_h_);
  // Blocks of equal height: 28 tile rows (56x56) in 9s left a last block of one row, whose 16 products were 28
  // tiles wide and whose four parallel regions cost as much to start as to run.
  rows_per_block_ = even_part(tiles_h_, rows_per_block_);
  // U = G g G^T per (output, input) channel pair, gathered into one m x c matrix per position.
  std::vector<float> u(static_cast<size_t>(kPositions * g.m * g.c));
  static const float kG[4][3] = {{1, 0, 0}, {0.5f, 0.5f, 0.5f}, {0.5f, -0.5f, 0.5f}, {0, 0, 1}};
  for (int64_t m = 0; m < g.m; ++m) {
    for (int64_t c = 0; c < g.c; ++c) {
      const float* f = weights + (m * g.c + c) * 9;
      float gg[4][3];  // G g
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 3; ++j) gg[i][j] = kG[i][0] * f[j] + kG[i][1] * f[3 + j] + kG[i][2] * f[6 + j];
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
          u[static_cast<size_t>(((i * 4 + j) * g.m + m) * g.c + c)] = gg[i][0] * kG[j][0] + gg[i][1] * kG[j][1] + gg[i][2] * kG[j][2];
    }
  }
  // One shape for every position's product of every block: timed against OpenBLAS by all of them (the 64 -> 64
  // conv on 56x56 runs 64 products of 64 x 64 x 196, each below the timing's floor).
  const int64_t products = kPositions * g.n * ((tiles_h_ + rows_per_block_ - 1) / rows_per_block_);
  transformed_.reserve(kPositions);
  for (int64_t t = 0; t < kPositions; ++t)
    transformed_.emplace_back(u.data() + t * g.m * g.c, g.m, g.c, g.c, rows_per_block_ * tiles_w_, products);
}

void WinogradConv::run(const float* x, const float* bias, const Activation& act, float* out) const {
  const ConvGeometry& g = g_;
  const WinogradTiles& tiles_of = winograd_tiles();
  WinogradFrame l{};
  l.rows = 2 * tiles_h_ + 2;
  // Room for the last vector's reads: 32 floats from column 2 * tx0 + 3.
  l.pitch = std::max(g.w + 2 * g.pw, 2 * ((tiles_w_ + kUnit - 1) / kUnit * kUnit) + 4);
  l.plane = l.rows * l.pitch;
  float lo = 0, hi = 0;
  const bool fused = activation_bounds(act, &lo, &hi);
  const int64_t block_rows = rows_per_block_, plane = g.oh * g.ow;
  const int64_t ld = (block_rows - 1) * tiles_w_ + (tiles_w_ + kUnit - 1) / kUnit * kUnit;
  float* frame = scratch_floats(9, static_cast<size_t>(g.c * l.plane + 2 * kUnit));
  float* v = scratch_floats(10, static_cast<size_t>(kPositions * g.c * ld));
  float* mt = scratch_floats(11, static_cast<size_t>(kPositions * g.m * ld));
  for (int64_t n = 0; n < g.n; ++n) {
    const float* image = x + n * g.c * g.h * g.w;
    float* dst = out + n * g.m * plane;
    parallel_for(g.c, 1, [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) tiles_of.pad_plane(g, l, image + c * g.h * g.w, frame + c * l.plane);
    });
    for (int64_t ty0 = 0; ty0 < tiles_h_; ty0 += block_rows) {
      const int64_t ty1 = std::min(tiles_h_, ty0 + block_rows), tiles = (ty1 - ty0) * tiles_w_;
      parallel_for(g.c, 1, [&](int64_t c0, int64_t c1) {
        for (int64_t c = c0; c < c1; ++c) tiles_of.input(l, tiles_w_, ty0, ty1, frame + c * l.plane, v + c * ld, g.c * ld);
      });
      parallel_for(kPositions, 1, [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t)
          transformed_[static_cast<size_t>(t)].multiply(v + t * g.c * ld, ld, tiles, GemmEpilogue{}, mt + t * g.m * ld, ld);
      });
      parallel_for(g.m, 1, [&](int64_t m0, int64_t m1) {
        for (int64_t m = m0; m < m1; ++m)
          tiles_of.output(g, tiles_w_, ty0, ty1, mt + m * ld, g.m * ld, bias != nullptr ? bias[m] : 0.0f, lo, hi,
                           dst + m * plane);
      });
    }
    if (!fused) apply_activation(act, dst, g.m * plane);
  }
}

}  // namespace ascendsim::kernels
