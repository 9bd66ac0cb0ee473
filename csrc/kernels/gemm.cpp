// sgemm (see gemm.h): one threading system for the whole runtime.
//
// OpenBLAS is told to run single-threaded, and a GEMM large enough to share is cut into column blocks
// (or row blocks when C is taller than wide) that the intra-op pool's threads multiply concurrently, each
// with its own single-threaded OpenBLAS call (or, for a matrix-vector product over a large matrix's rows, our
// streamed rows: simd/matrix_vector.cpp). Before, OpenBLAS ran its own thread pool beside ours: two
// sets of spinning workers on the same CPUs, which on a busy machine made two-thread runs several times
// slower than one-thread runs. Blocks are multiples of 16 columns/rows (the micro-kernels' widths) holding
// at least kMinFlops multiply-adds, so a small GEMM stays one call on its caller, and there are at most two
// per thread, since each block packs the shared operand again.
#include "kernels/gemm.h"

#include <cblas.h>

#include <algorithm>

#include "core/env_choice.h"
#include "kernels/kernel_util.h"
#include "kernels/simd/matrix_vector.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

constexpr int64_t kMinFlops = int64_t{1} << 18;  // multiply-adds per block
constexpr int64_t kMinPackFloats = 16384;        // B floats packed per pool chunk
constexpr int64_t kSplitDepth = 256;             // shallowest product split by depth (multiply_by_depth)
constexpr int64_t kNarrowDepth = 256;            // shallowest tall product packing B up to kTallNarrowColumns
constexpr int64_t kSplitOutput = 32768;          // and its largest C (floats): a partial sum per thread
constexpr int64_t kDeepProduct = 384;            // a wide product deeper than this runs in depth slices
constexpr int64_t kDepthSlice = 256;             // of this many rows of B (16 KiB of a 16-column block)
constexpr int64_t kMaxRun = 8;                   // most adjacent column blocks of a shallow wide product per call
// PackedColumns: the bytes of packed panels that a column tile runs over in one depth slice, at most (in L2 while
// A's rows pass: 4 panels of a 3072-deep B, 768 KiB, ran 197 x 3072 x 768 10% slower than 2 on a Zen 5's 1 MiB L2).
constexpr int64_t kColumnGroupBytes = int64_t{512} << 10;

// The grain of `items` equal work items of `flops` multiply-adds each: one run per thread (equal items
// need no finer chunks to balance: 90 items in 11-item chunks gave one thread 5 chunks, the other 4), and
// at least kMinFlops per run.
int64_t even_grain(int64_t items, int64_t flops) {
  const int64_t threads = num_threads();
  return std::max((items + threads - 1) / threads, kMinFlops / std::max<int64_t>(1, flops));
}
constexpr int64_t kAlign = 16;

// At library load, before any product: OpenBLAS starts its workers when it loads, sized by the CPUs, and
// an idle worker left at the default count spun beside the runtime's own threads at the start of every execution
// (the first layers of MobileNetV2 ran 3-7x slower inside the network than alone).
const bool blas_single_threaded = [] {
  scipy_openblas_set_num_threads(1);
  return true;
}();

// A matrix-vector product over the rows of a matrix this large (or larger) streams it in several places at once
// (simd/matrix_vector.cpp, with the measurements), where OpenBLAS's sgemv reads it as one stream: such a matrix no
// longer stays in L2 from one call to the next. A smaller one is usually in cache, where the two run level (within
// 10%) and sgemv sums short rows faster (64 x 64: 0.21 against 0.32 us, Zen 4).
constexpr int64_t kStreamedFloats = int64_t{128} << 10;  // 512 KiB

// The stride of a matrix-vector product's vector: op(A)'s row (m == 1) or op(B)'s column (n == 1).
int64_t vector_stride(bool ta, bool tb, int64_t m, int64_t lda, int64_t ldb) {
  return m == 1 ? (ta ? lda : 1) : (tb ? 1 : ldb);
}

// One single-threaded product; a single row or column of C is a matrix-vector product (sgemv reads the
// matrix once where sgemm would first pack it: a fully connected layer at batch 1 runs ~1.8x faster).
void call(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* b,
          int64_t ldb, float beta, float* c, int64_t ldc, bool streamed) {
  if (m == 1 || n == 1) {
    // C row (m == 1) = op(B)^T x with x the row of op(A); C column (n == 1) = op(A) x with x the column of op(B).
    const bool row = m == 1;
    const float* mat = row ? b : a;
    const bool mat_trans = row ? !tb : ta;  // the matrix as stored, multiplied transposed
    const float* x = row ? a : b;
    const int64_t incx = vector_stride(ta, tb, m, lda, ldb), incy = row ? 1 : ldc, len = row ? n : m;
    const int64_t rows = mat_trans ? k : len, cols = mat_trans ? len : k, ld = row ? ldb : lda;
    // (A column of C split into row blocks can end in a block of one row: then a row of C, B by columns: sgemv.)
    if (streamed && !mat_trans) {  // the matrix's rows (simd/matrix_vector.cpp)
      matrix_vector().rows(mat, ld, rows, cols, x, alpha, beta, c, incy);
      return;
    }
    // beta 0 must not read C (it may hold NaN): zero it and accumulate.
    if (beta == 0.0f)
      for (int64_t i = 0; i < len; ++i) c[i * incy] = 0.0f;
    scipy_cblas_sgemv(CblasRowMajor, mat_trans ? CblasTrans : CblasNoTrans, static_cast<int>(rows), static_cast<int>(cols),
                      alpha, mat, static_cast<int>(ld), x, static_cast<int>(incx), beta == 0.0f ? 1.0f : beta, c,
                      static_cast<int>(incy));
    return;
  }
  scipy_cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, static_cast<int>(m),
                    static_cast<int>(n), static_cast<int>(k), alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb),
                    beta, c, static_cast<int>(ldc));
}

}  // namespace

bool streams_rows(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k) {
  // A row of C multiplies B, by its rows when B is stored transposed; a column multiplies A, by rows unless transposed.
  const bool by_rows = m == 1 ? trans_b : n == 1 && !trans_a;
  return by_rows && (m == 1 ? n : m) * k >= kStreamedFloats;
}

ProductsMode products_mode() {
  static constexpr ProductsMode kModes[] = {ProductsMode::kAuto, ProductsMode::kPacked, ProductsMode::kLibrary};
  return kModes[env_choice("ASCENDSIM_PRODUCTS", {"auto", "packed", "openblas"})];
}

bool own_loops_allowed() { return products_mode() != ProductsMode::kLibrary; }

void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc, bool streamed_rows) {
  (void)blas_single_threaded;
  if (m <= 0 || n <= 0) return;
  // Decided for the whole matrix, as the path names report it, not per block.
  const bool streamed = streamed_rows && vector_stride(trans_a, trans_b, m, lda, ldb) == 1 &&
                        streams_rows(trans_a, trans_b, m, n, k);
  bool by_columns = n >= m;
  int64_t extent = by_columns ? n : m, other = by_columns ? m : n;
  // Smallest block (in units of kAlign) holding kMinFlops.
  int64_t per_unit = kAlign * other * std::max<int64_t>(k, 1);
  int64_t units = (extent + kAlign - 1) / kAlign;
  // At most two blocks per thread: every block packs the operand it shares (all of B for row blocks).
  int64_t grain = std::max<int64_t>((kMinFlops + per_unit - 1) / per_unit, (units + 2 * num_threads() - 1) / (2 * num_threads()));
  parallel_for(units, grain, [&](int64_t u0, int64_t u1) {
    int64_t lo = u0 * kAlign, hi = std::min(extent, u1 * kAlign);
    if (by_columns) {  // C[:, lo:hi] = op(A) * op(B)[:, lo:hi]
      const float* bb = trans_b ? b + lo * ldb : b + lo;
      call(trans_a, trans_b, m, hi - lo, k, alpha, a, lda, bb, ldb, beta, c + lo, ldc, streamed);
    } else {  // C[lo:hi, :] = op(A)[lo:hi, :] * op(B)
      const float* aa = trans_a ? a + lo : a + lo * lda;
      call(trans_a, trans_b, hi - lo, n, k, alpha, aa, lda, b, ldb, beta, c + lo * ldc, ldc, streamed);
    }
  });
}

// ---- PackedMatrix ----------------------------------------------------------------------------------------
// C = A * B with A packed at construction (panels of kUnit = 16 rows, k-major), on the active variant's
// register tiles (simd/gemm_tiles.h), in one of two ways (with several threads, a product much deeper than
// tall on a small plane is first split by depth: see multiply_by_depth):
//
// Narrow B (n < kWideColumns, e.g. the 49 positions of a 7x7 plane): B is packed per call into tiles of the
// variant's narrow_cols columns (k-major, zero-padded), and each (group of the variant's narrow_panels adjacent
// panels, tile) pair is one register tile of C over the full depth. Threads take runs of pairs, group-major: a
// group of A's panels, the large operand, streams once per run, and the packed B (narrow: a few hundred KiB)
// stays in L2.
//
// Wide B (the large planes of a network's first stages): B is read in place, 16 columns at a time, and every
// panel of A is multiplied by that column block before the next: the block (k x 16) stays in L1 while A
// streams from L1/L2, so B is read from memory once and C written once, with no packing pass over the (large)
// B. Threads take column blocks (the last one, partial, too).
PackedMatrix::PackedMatrix(const float* a, int64_t m, int64_t k, int64_t lda)
    : m_(m), k_(k), panels_(static_cast<size_t>((m + kUnit - 1) / kUnit * kUnit * k), 0.0f) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t kk = 0; kk < k; ++kk) panels_[static_cast<size_t>((i / kUnit * k + kk) * kUnit + i % kUnit)] = a[i * lda + kk];
}

void PackedMatrix::multiply(const float* b, int64_t ldb, int64_t n, const Epilogue& e, float* c, int64_t ldc) const {
  if (m_ <= 0 || n <= 0) return;
  if (num_threads() > 1 && k_ >= kSplitDepth && k_ >= 2 * m_ && m_ * n <= kSplitOutput) {
    multiply_by_depth(b, ldb, n, e, c, ldc);
    return;
  }
  if (reads_b_in_place(n, ldb)) {
    multiply_wide(b, ldb, n, e, c, ldc);
    return;
  }
  const GemmTiles& tiles_of = gemm_tiles();
  const int64_t cols = tiles_of.narrow_cols, tiles = (n + cols - 1) / cols;
  const int64_t group = tiles_of.narrow_panels * kUnit, groups = (m_ + group - 1) / group;  // rows per tile of C
  float* bp = scratch_floats(8, static_cast<size_t>(tiles * cols * k_));
  parallel_for(tiles, std::max<int64_t>(1, kMinPackFloats / (cols * k_)),
               [&](int64_t t0, int64_t t1) { tiles_of.pack_narrow(b, ldb, n, k_, t0, t1, 0, k_, bp); });
  // Items are (group of panels, tile) pairs, group-major: a 10-panel product (160 rows) split by whole panels
  // gave one thread 6 and the other 4.
  const int64_t items = groups * tiles;
  // While a group of panels (group * k floats, contiguous) is multiplied by its tiles, the next group is
  // fetched, a slice per tile: inside a network the weights come from memory (1x1 convs on 7x7 planes of depth
  // 160 and 320 ~7-10% faster). Only when a group fits in L1: a deeper one is read again from L2 by every tile,
  // and fetching the next evicted more of it (depth 576 and 960: ~5% slower).
  const int64_t floats = static_cast<int64_t>(panels_.size()), lines = group * k_ / kUnit;  // of kUnit floats
  const int64_t lines_per_tile = group * k_ <= kL1Floats ? (lines + tiles - 1) / tiles : 0;
  parallel_for(items, even_grain(items, group * k_ * cols), [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t g = i / tiles, t = i % tiles, r0 = g * group, rows = std::min(group, m_ - r0);
      for (int64_t l = t * lines_per_tile; l < (t + 1) * lines_per_tile && (r0 + group) * k_ + l * kUnit < floats; ++l)
        __builtin_prefetch(panels_.data() + (r0 + group) * k_ + l * kUnit, 0, 2);
      const int64_t at = r0 * ldc + t * cols;
      tiles_of.narrow(panels_.data() + r0 * k_, k_ * kUnit, bp + t * cols * k_, k_, epilogue_at(e, at), r0, c + at, ldc,
                      rows, std::min(cols, n - t * cols));
    }
  });
}

// A product much deeper than tall on a small plane (a bottleneck's projection, 960 -> 160 channels on 7x7, 576 ->
// 96 on 14x14) is split by depth: thread i multiplies rows [k0, k1) of B, the channels that the layer before
// wrote on that thread (a depthwise layer's planes are split the same way), into partial sums of all of C;
// then the parts are added with the epilogue, rows shared out. Split by output rows or columns, every thread
// read all of B, half of it from the other core's cache, and the layer before, writing those lines again at
// the next execution, waited on the other core: a 7x7 depthwise layer took 47 us at 2 threads, 22 us so.
void PackedMatrix::multiply_by_depth(const float* b, int64_t ldb, int64_t n, const Epilogue& e, float* c,
                                     int64_t ldc) const {
  const GemmTiles& tiles_of = gemm_tiles();
  const int64_t cols = tiles_of.narrow_cols, tiles = (n + cols - 1) / cols, group = tiles_of.narrow_panels * kUnit;
  const int64_t parts = num_threads(), depth = (k_ + parts - 1) / parts, size = m_ * n;
  const bool wide = reads_b_in_place(n, ldb);
  float* bp = wide ? nullptr : scratch_floats(8, static_cast<size_t>(tiles * cols * k_));
  float* partial = scratch_floats(12, static_cast<size_t>(parts * size));
  parallel_for(parts, 1, [&](int64_t q0, int64_t q1) {
    for (int64_t q = q0; q < q1; ++q) {
      const int64_t k0 = std::min(k_, q * depth), k1 = std::min(k_, k0 + depth);
      float* part = partial + q * size;
      if (wide) {
        wide_columns(b, ldb, n, 0, (n + kUnit - 1) / kUnit, k0, k1, Epilogue{}, part, n);
        continue;
      }
      tiles_of.pack_narrow(b, ldb, n, k_, 0, tiles, k0, k1, bp);
      for (int64_t r0 = 0; r0 < m_; r0 += group)
        for (int64_t t = 0; t < tiles; ++t)
          tiles_of.narrow(panels_.data() + r0 * k_ + k0 * kUnit, k_ * kUnit, bp + t * cols * k_ + k0 * cols, k1 - k0,
                          Epilogue{}, 0, part + r0 * n + t * cols, n, std::min(group, m_ - r0), std::min(cols, n - t * cols));
    }
  });
  parallel_for(m_, (m_ + parts - 1) / parts, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      float* cr = c + r * ldc;
      const float bias = e.bias != nullptr ? e.bias[r] : 0.0f;
      if (e.sum != nullptr) {
        for (int64_t j = 0; j < n; ++j) cr[j] = bias + partial[r * n + j] + e.sum[r * ldc + j];
      } else {
        for (int64_t j = 0; j < n; ++j) cr[j] = bias + partial[r * n + j];
      }
      for (int64_t q = 1; q < parts; ++q)
        for (int64_t j = 0; j < n; ++j) cr[j] += partial[q * size + r * n + j];
      for (int64_t j = 0; j < n; ++j) cr[j] = std::min(std::max(cr[j], e.lo), e.hi);
    }
  });
}

// Whether a product of n columns reads B in place (wide) rather than packing it (narrow). A deep product of a tall A
// (two groups of the narrow tile's panels or more, kNarrowDepth deep or more) on a whole plane of up to
// kTallNarrowColumns columns packs B too: DenseNet-121's 1024 -> 512 1x1 conv on 14x14 (196 columns) 1245 -> 910
// us on a Zen 5, its 128-row bottlenecks of 256-1000 channels on 14x14 10% faster, ViT-B/16's patch conv (768
// deep) 2.2 -> 1.4 ms. Shallow products stay wide (ShuffleNet's 80-deep grouped 1x1 convs on 14x14: 41 -> 100
// us packed), as do Winograd's 32-row products (their 48-row tiles a third empty: 20% slower) and the column
// blocks of a larger plane (B's rows not contiguous: level or slower).
bool PackedMatrix::reads_b_in_place(int64_t n, int64_t ldb) const {
  const bool tall_and_deep = m_ >= 2 * gemm_tiles().narrow_panels * kUnit && k_ >= kNarrowDepth;
  return n >= kWideColumns && !(n < kTallNarrowColumns && ldb == n && tall_and_deep);
}

void PackedMatrix::multiply_wide(const float* b, int64_t ldb, int64_t n, const Epilogue& e, float* c, int64_t ldc) const {
  const int64_t blocks = (n + kUnit - 1) / kUnit;
  parallel_for(blocks, even_grain(blocks, m_ * k_ * kUnit),
               [&](int64_t j0, int64_t j1) { wide_columns(b, ldb, n, j0, j1, 0, k_, e, c, ldc); });
}

// Column blocks [j0, j1) of the wide product over depth [k0, k1), B read in place, a deep product in slices of
// kDepthSlice rows of B (the first writes C, the others add to it, the last applies the epilogue), so that a
// block's slice of B and the panels' slices of A stay in cache, where a 1024-deep block (64 KiB of B) was read
// from L2 by every group of rows. (Copying each block of B into a contiguous buffer first measured ~10% slower
// in networks, whose tensors live in the device memory's huge pages; only a std::vector's small pages made the
// strided rows miss the TLB.)
void PackedMatrix::wide_columns(const float* b, int64_t ldb, int64_t n, int64_t j0, int64_t j1, int64_t k0, int64_t k1,
                                const Epilogue& e, float* c, int64_t ldc) const {
  const GemmTiles& tiles_of = gemm_tiles();
  const auto wide = tiles_of.wide;
  const int64_t slice = k1 - k0 > kDeepProduct ? kDepthSlice : k1 - k0;
  const int64_t full = std::min(j1, n / kUnit);  // blocks of kUnit columns that B has
  // A shallow product takes several adjacent blocks per call, whose slices of B together fill half of L1: each
  // group of C's rows is then written in runs of lines rather than one line per row and block (16 -> 96
  // channels on a 112x112 plane: 96 rows of C one line apart per block). At least the blocks of one register tile.
  const int64_t run = std::clamp<int64_t>(kL1Floats / 2 / (slice * kUnit), tiles_of.wide_blocks, kMaxRun);
  auto multiply_run = [&](const float* block, int64_t pitch, int64_t first, int64_t j, int64_t blocks, int64_t cols) {
    for (int64_t s0 = k0; s0 < k1; s0 += slice) {
      const int64_t s1 = std::min(k1, s0 + slice);
      wide(panels_.data() + s0 * kUnit, k_, m_, s1 - s0, block + (s0 - k0 + first) * pitch, pitch,
           s1 == k1 ? epilogue_at(e, j * kUnit) : Epilogue{}, s0 > k0, c + j * kUnit, ldc, blocks, cols);
    }
  };
  for (int64_t j = j0; j < full; j += run) {
    const int64_t blocks = std::min(run, full - j);
    multiply_run(b + j * kUnit, ldb, k0, j, blocks, kUnit);
  }
  if (j1 > full) {  // the last columns through a zero-padded copy: B's rows may end right after them
    const int64_t j = full, cols = n - j * kUnit;
    float* copy = scratch_floats(8, static_cast<size_t>((k1 - k0) * kUnit));
    for (int64_t kk = k0; kk < k1; ++kk) {
      const float* row = b + kk * ldb + j * kUnit;
      for (int64_t jj = 0; jj < kUnit; ++jj) copy[(kk - k0) * kUnit + jj] = jj < cols ? row[jj] : 0.0f;
    }
    multiply_run(copy, kUnit, 0, j, 1, cols);
  }
}

// ---- PackedColumns ---------------------------------------------------------------------------------------
// C = A * B with B packed at construction into 16-column panels (k-major), on the active variant's column
// tiles (simd/gemm_tiles.h: the wide tile with the roles of the operands exchanged, over the variant's
// column_panels adjacent panels). Groups of panels are the outer loop, so B, the large operand (a transformer's
// weights), streams from memory once while A (the activations) stays in L2; threads take runs of groups. A group
// deeper than kColumnGroupBytes allows runs in depth slices (the first from the bias, the others adding to C's
// columns, which stay in cache), so that deep products keep the widest tile: ViT-B/16's 197 x 3072 x 768 MLP
// product had run 2 panels a tile (12 x 32) to keep its 3072-deep group in L2, 10.3 ms on a Zen 4; as 2 slices of
// 4 panels (6 x 64) 8.3 ms, as fast as 4 unsliced panels there (which a Zen 5 ran 10% slower).
PackedColumns::PackedColumns(const float* b, int64_t k, int64_t n, int64_t ldb)
    : k_(k), n_(n), panels_(static_cast<size_t>((n + kUnit - 1) / kUnit * kUnit * k), 0.0f) {
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = 0; j < n; ++j)
      panels_[static_cast<size_t>((j / kUnit * k + kk) * kUnit + j % kUnit)] = b[kk * ldb + j];
}

void PackedColumns::multiply(const float* a, int64_t lda, int64_t m, const float* bias, float lo, float hi, float* c,
                             int64_t ldc) const {
  if (m <= 0 || n_ <= 0) return;
  const GemmTiles& tiles = gemm_tiles();
  const int64_t panels = (n_ + kUnit - 1) / kUnit, per_tile = std::min<int64_t>(panels, tiles.column_panels);
  const int64_t groups = (panels + per_tile - 1) / per_tile;  // the tiles' groups of adjacent panels
  // Depth slices of equal size in which a group's panels take at most kColumnGroupBytes.
  const int64_t slice_floats = kColumnGroupBytes / static_cast<int64_t>(sizeof(float)) / (per_tile * kUnit);
  // (A product of depth 0 runs one empty slice, which writes the bias.)
  const int64_t slices = std::max<int64_t>(1, (k_ + slice_floats - 1) / slice_floats);
  const int64_t depth = std::max<int64_t>(1, (k_ + slices - 1) / slices), end = std::max<int64_t>(1, k_);
  // Slice k0 of group g: the first starts from the bias, the others add to C, the last clamps.
  auto slice = [&](int64_t g, int64_t k0) {
    const int64_t k1 = std::min(k_, k0 + depth), p = g * per_tile, count = std::min(per_tile, panels - p), j0 = p * kUnit;
    const bool last = k1 == k_;
    tiles.columns(a + k0, lda, m, k1 - k0, panels_.data() + p * k_ * kUnit + k0 * kUnit, k_ * kUnit, count,
                  bias != nullptr ? bias + j0 : nullptr, k0 > 0, last ? lo : -__builtin_inff(), last ? hi : __builtin_inff(),
                  c + j0, ldc, std::min(kUnit, n_ - (p + count - 1) * kUnit));
  };
  parallel_for(groups, even_grain(groups, m * k_ * kUnit * per_tile), [&](int64_t g0, int64_t g1) {
    for (int64_t g = g0; g < g1; ++g)
      for (int64_t k0 = 0; k0 < end; k0 += depth) slice(g, k0);
  });
}

}  // namespace ascendsim::kernels
