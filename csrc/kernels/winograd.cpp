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
// Per image, in blocks of tile rows sized so that V and M stay about 2 MiB, three steps:
// 1. input transform, channel by channel: the block's rows of the channel are copied into a zero-padded frame
//    (frame row r = input row r + 2 * ty0 - ph, column c = input column c - pw; one channel's frame, so it stays in
//    L1), then a vector of tiles of a tile row at a time, the patch columns j being the even elements from frame
//    column 2 * tx + j, B^T d B in vector adds;
// 2. the 16 products (each on its path: product_path.h);
// 3. output transform, channel by channel: A^T M A, the bias, the Relu/Clip bounds, and the two output columns of
//    each tile interleaved back into rows.
// With several threads, each takes a run of whole blocks when the blocks divide evenly among them, and runs the
// three steps itself: its V and M never cross to another core (ResNet-50's 64 -> 64 and 128 -> 128 convs on
// 56x56 and 28x28 8-14% faster at 2 threads than with each step split). Else every step of a block is split over
// the threads: the transforms by channel, the products by position (a 256 -> 256 conv on 14x14 is one block of
// 7 tile rows, and products split by output channel after a transform of all channels per thread were 10% slower).
// Rows of V and M are padded to whole 16-float units past the block's last tile, so every vector store stays in
// its own row. The transforms are the active kernel variant's (simd/winograd_tiles.h).
#include "kernels/winograd.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "kernels/layout.h"
#include "kernels/simd/winograd_tiles.h"
#include "kernels/thread_pool.h"
#include "kernels/winograd_weights.h"

namespace ascendsim::kernels {
namespace {

constexpr int64_t kPositions = winograd_side(1) * winograd_side(1);  // of a 4x4 transformed tile
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
  blocks_per_thread_ = whole_blocks_per_thread(num_threads());
  const std::vector<float> u = winograd_weights(g, weights);
  // The 16 products of a block are timed together on each path, each position with its own U_t and each product
  // on one thread, as they run (U of a 256 -> 256 conv is 4 MiB): one product repeated on a U_t kept in cache,
  // split over the threads, had OpenBLAS (which copies U_t on every call) 1.25-1.4x faster than the packed tiles,
  // and inside ResNet-50 at 2 threads its 256 -> 256 convs on 14x14 then took 1000-1100 us against 655 on the
  // packed path (Xeon). Counted for the timing's floor by all the products an execution runs (the 64 -> 64 conv
  // on 56x56 runs 64 of 64 x 64 x 196, each below it).
  auto products_on = [&](ProductPath path) {
    std::vector<ConstantMatrix> products;
    for (int64_t t = 0; t < kPositions; ++t) products.emplace_back(u.data() + t * g.m * g.c, g.m, g.c, g.c, path);
    return products;
  };
  std::optional<ProductPath> path = untimed_path(kPositions * g.n * blocks() * g.m * g.c * rows_per_block_ * tiles_w_);
  if (!path) {
    std::vector<ConstantMatrix> packed = products_on(ProductPath::kPacked), library = products_on(ProductPath::kLibrary);
    ScratchProduct scratch(0, v_floats() + m_floats());  // V and M of a whole block
    Block b{};
    b.ty1 = rows_per_block_;
    b.ld = block_ld();
    b.v = scratch.out();  // (mapped here: the pool's threads must not map it at once)
    b.mt = b.v + v_floats();
    auto block_on = [&](const std::vector<ConstantMatrix>& products) {
      return [&] {  // as run() runs them: each product on one thread (several at once with several threads)
        parallel_for(kPositions, 1, [&](int64_t t0, int64_t t1) { multiply(products, b, t0, t1); });
      };
    };
    const std::string what = "Winograd products, 16 of A*B " + std::to_string(g.m) + " x " + std::to_string(g.c) +
                             " x " + std::to_string(rows_per_block_ * tiles_w_);
    path = faster_product_path(what, block_on(packed), block_on(library));
    transformed_ = std::move(*path == ProductPath::kPacked ? packed : library);
    return;
  }
  transformed_ = products_on(*path);
}

int64_t WinogradConv::whole_blocks_per_thread(int64_t threads) {
  if (threads <= 1) return 0;
  // As many blocks as the budget asks, rounded up to a multiple of the threads, taken when no thread then gets
  // more than 10% above its share of the tile rows (7 tile rows in blocks of 4 and 3 would give one thread 4).
  const int64_t wanted = (blocks() + threads - 1) / threads * threads;
  const int64_t rows = (tiles_h_ + wanted - 1) / wanted, got = (tiles_h_ + rows - 1) / rows;
  if (got % threads != 0 || got / threads * rows * threads * 10 > tiles_h_ * 11) return 0;
  rows_per_block_ = rows;
  return got / threads;
}

void WinogradConv::run(const float* x, const float* bias, const Activation& act, float* out) const {
  Block b{};
  b.fused = activation_bounds(act, &b.lo, &b.hi);
  b.bias = bias;
  b.ld = block_ld();
  const int64_t units = g_.n * blocks();  // a block of one image
  if (blocks_per_thread_ > 0) {
    parallel_for(units, g_.n * blocks_per_thread_, [&](int64_t u0, int64_t u1) {
      Block mine = b;
      mine.v = scratch_floats(10, v_floats());
      mine.mt = scratch_floats(11, m_floats());
      for (int64_t u = u0; u < u1; ++u) {
        place(&mine, x, u, out);
        transform_input(mine, 0, g_.c);
        multiply(transformed_, mine, 0, kPositions);
        transform_output(mine, 0, g_.m);
      }
    });
  } else {
    b.v = scratch_floats(10, v_floats());
    b.mt = scratch_floats(11, m_floats());
    for (int64_t u = 0; u < units; ++u) {
      place(&b, x, u, out);
      parallel_for(g_.c, 1, [&](int64_t c0, int64_t c1) { transform_input(b, c0, c1); });
      parallel_for(kPositions, 1, [&](int64_t t0, int64_t t1) { multiply(transformed_, b, t0, t1); });
      parallel_for(g_.m, 1, [&](int64_t m0, int64_t m1) { transform_output(b, m0, m1); });
    }
  }
  if (!b.fused) apply_activation(act, out, g_.n * g_.m * g_.oh * g_.ow);
}

void WinogradConv::place(Block* b, const float* x, int64_t unit, float* out) const {
  const int64_t n = unit / blocks();
  b->ty0 = unit % blocks() * rows_per_block_;
  b->ty1 = std::min(tiles_h_, b->ty0 + rows_per_block_);
  b->image = x + n * g_.c * g_.h * g_.w;
  b->out = out + n * g_.m * g_.oh * g_.ow;
}

void WinogradConv::transform_input(const Block& b, int64_t c0, int64_t c1) const {
  const WinogradTiles& tiles_of = winograd_tiles();
  WinogradFrame l{};
  l.rows = 2 * (b.ty1 - b.ty0) + 2;
  // Room for the last vector's reads: 32 floats from column 2 * tx0 + 3.
  l.pitch = std::max(g_.w + 2 * g_.pw, 2 * ((tiles_w_ + kUnit - 1) / kUnit * kUnit) + 4);
  l.plane = l.rows * l.pitch;
  ConvGeometry shifted = g_;  // the frame starts at the block's first frame row
  shifted.ph = g_.ph - 2 * b.ty0;
  float* frame = scratch_floats(9, static_cast<size_t>(l.plane + 2 * kUnit));
  for (int64_t c = c0; c < c1; ++c) {
    tiles_of.pad_plane(shifted, l, b.image + c * g_.h * g_.w, frame);
    tiles_of.input(l, tiles_w_, 0, b.ty1 - b.ty0, frame, b.v + c * b.ld, g_.c * b.ld);
  }
}

void WinogradConv::multiply(const std::vector<ConstantMatrix>& products, const Block& b, int64_t t0,
                            int64_t t1) const {
  const int64_t tiles = (b.ty1 - b.ty0) * tiles_w_;
  for (int64_t t = t0; t < t1; ++t)
    products[static_cast<size_t>(t)].multiply(b.v + t * g_.c * b.ld, b.ld, tiles, GemmEpilogue{},
                                              b.mt + t * g_.m * b.ld, b.ld);
}

void WinogradConv::transform_output(const Block& b, int64_t m0, int64_t m1) const {
  const WinogradTiles& tiles_of = winograd_tiles();
  const int64_t plane = g_.oh * g_.ow;
  for (int64_t m = m0; m < m1; ++m)
    tiles_of.output(g_, tiles_w_, b.ty0, b.ty1, b.mt + m * b.ld, g_.m * b.ld, b.bias != nullptr ? b.bias[m] : 0.0f,
                     b.lo, b.hi, b.out + m * plane);
}

}  // namespace ascendsim::kernels
