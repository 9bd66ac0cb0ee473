// sgemm (see gemm.h): one threading system for the whole runtime.
//
// OpenBLAS is told to run single-threaded, and a GEMM large enough to share is cut into column blocks
// (or row blocks when C is taller than wide) that the intra-op pool's threads multiply concurrently, each
// with its own single-threaded OpenBLAS call. Before, OpenBLAS ran its own thread pool beside ours: two
// sets of spinning workers on the same CPUs, which on a busy machine made two-thread runs several times
// slower than one-thread runs. Blocks are multiples of 16 columns/rows (the micro-kernels' widths) holding
// at least kMinFlops multiply-adds, so a small GEMM stays one call on its caller, and there are at most two
// per thread, since each block packs the shared operand again.
#include "kernels/gemm.h"

#include <cblas.h>

#include <algorithm>

#include "kernels/kernel_util.h"
#include "kernels/thread_pool.h"
#include "kernels/vec16.h"

namespace ascendsim::kernels {
namespace {

constexpr int64_t kMinFlops = int64_t{1} << 18;  // multiply-adds per block
constexpr int64_t kMinPackFloats = 16384;        // B floats packed per pool chunk
constexpr int64_t kSplitDepth = 256;             // shallowest product split by depth (multiply_by_depth)
constexpr int64_t kSplitOutput = 32768;          // and its largest C (floats): a partial sum per thread

// The grain of `items` equal work items of `flops` multiply-adds each: one run per thread (equal items
// need no finer chunks to balance: 90 items in 11-item chunks gave one thread 5 chunks, the other 4), and
// at least kMinFlops per run.
int64_t even_grain(int64_t items, int64_t flops) {
  const int64_t threads = num_threads();
  return std::max((items + threads - 1) / threads, kMinFlops / std::max<int64_t>(1, flops));
}
constexpr int64_t kAlign = 16;

void blas_single_threaded() {
  static const bool done = [] {
    scipy_openblas_set_num_threads(1);
    return true;
  }();
  (void)done;
}

// One single-threaded product; a single row or column of C is a matrix-vector product (sgemv reads the
// matrix once where sgemm would first pack it: a fully connected layer at batch 1 runs ~1.8x faster).
void call(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* b,
          int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m == 1 || n == 1) {
    // C row (m == 1) = op(B)^T x with x the row of op(A); C column (n == 1) = op(A) x with x the column of op(B).
    const bool row = m == 1;
    const float* mat = row ? b : a;
    const bool mat_trans = row ? !tb : ta;  // the matrix as stored, multiplied transposed
    const float* x = row ? a : b;
    const int64_t incx = row ? (ta ? lda : 1) : (tb ? 1 : ldb), incy = row ? 1 : ldc, len = row ? n : m;
    // beta 0 must not read C (it may hold NaN): zero it and accumulate.
    if (beta == 0.0f)
      for (int64_t i = 0; i < len; ++i) c[i * incy] = 0.0f;
    int64_t rows = mat_trans ? k : len, cols = mat_trans ? len : k;
    scipy_cblas_sgemv(CblasRowMajor, mat_trans ? CblasTrans : CblasNoTrans, static_cast<int>(rows), static_cast<int>(cols),
                      alpha, mat, static_cast<int>(row ? ldb : lda), x, static_cast<int>(incx), beta == 0.0f ? 1.0f : beta, c,
                      static_cast<int>(incy));
    return;
  }
  scipy_cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, static_cast<int>(m),
                    static_cast<int>(n), static_cast<int>(k), alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb),
                    beta, c, static_cast<int>(ldc));
}

}  // namespace

void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  blas_single_threaded();
  if (m <= 0 || n <= 0) return;
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
      call(trans_a, trans_b, m, hi - lo, k, alpha, a, lda, bb, ldb, beta, c + lo, ldc);
    } else {  // C[lo:hi, :] = op(A)[lo:hi, :] * op(B)
      const float* aa = trans_a ? a + lo : a + lo * lda;
      call(trans_a, trans_b, hi - lo, n, k, alpha, aa, lda, b, ldb, beta, c + lo * ldc, ldc);
    }
  });
}

// ---- PackedMatrix ----------------------------------------------------------------------------------------
// C = A * B with A packed at construction (panels of kPanelRows = 16 rows, k-major), in one of two ways
// (with several threads, a product much deeper than tall on a small plane is first split by depth: see
// multiply_by_depth):
//
// Narrow B (n < kWideColumns, e.g. the 49 positions of a 7x7 plane): B is packed per call into tiles of
// kTileCols = 7 columns (k-major, zero-padded). The micro-kernel keeps a 16 x 7 block of C in fourteen 8-float
// vector registers (vectors run down the rows of A: output channels, multiples of 16 in practice); per k it
// loads two vectors of A and broadcasts seven values of B. Seven, because a network's last planes have a
// multiple of 7 positions (7x7 from 224x224 inputs): 6-wide tiles padded 49 to 54 columns, 10% more work.
// With 32 vector registers (AVX-512) nothing spills; AVX2's 16 spill one accumulator. 8-float vectors: on
// Zen 4, whose AVX-512 units are 256 bits wide, as fast as a 512-bit shape. Threads take runs of (panel,
// tile) pairs, panel-major, each multiplied over the full depth: a panel of A, the large operand, streams
// once per run, and the packed B (narrow: a few hundred KiB) stays in L2.
//
// Wide B (the large planes of a network's first stages): B is read in place,
// 16 columns at a time (one 16-float vector per row of B), and every panel of A is multiplied by that
// column block before the next (wide_block): the block (k x 16) stays in L1 while A streams from L1/L2, so
// B is read from memory once and C written once, with no packing pass over the (large) B. Vectors run
// along the columns: 8 rows of C at a time in eight 16-float accumulators, each k one vector of B and eight
// broadcasts of A. Threads take column blocks (the last one, partial, too).
namespace {

constexpr int64_t kRows = PackedMatrix::kPanelRows;
constexpr int64_t kTileCols = 7;
constexpr int64_t kWideCols = kLanes;   // columns of B per wide block (one vector)
constexpr int64_t kWideRows = kRows / 2;  // rows of C per wide accumulator set
// A short block (m * k multiply-add vectors at most kShortBlock, ~300 ns) is over before a store to C
// that misses the cache completes: C's lines for the block kAheadCols columns on are prefetched for writing
// first (a 32 -> 16 channel 1x1 conv on a 112x112 plane, whose output is no longer in cache inside a
// network: 236 -> 165 us). Longer blocks hide the misses themselves, and prefetching their many rows
// measured ~7% slower.
constexpr int64_t kShortBlock = 1024;
constexpr int64_t kAheadCols = 4 * kWideCols;
using v8 = float __attribute__((vector_size(32)));

// The epilogue of one element of row r (its sum, if any, added by the caller).
inline float finish(const PackedMatrix::Epilogue& e, int64_t r, float v) {
  if (e.bias != nullptr) v += e.bias[r];
  return std::min(std::max(v, e.lo), e.hi);
}

// C[r][j] = epilogue(sum over kc of ap[k][r] * bp[k][j]) for r < rows, j < cols (rows of C and the bias
// start at row r0).
ASCENDSIM_VECTOR_CLONES void micro_kernel(const float* ap, const float* bp, int64_t kc, const PackedMatrix::Epilogue& e,
                                          int64_t r0, float* c, int64_t ldc, int64_t rows, int64_t cols) {
  v8 acc[kTileCols][2] = {};
  for (int64_t k = 0; k < kc; ++k, ap += kRows, bp += kTileCols) {
    v8 a0, a1;  // (memcpy: unaligned loads)
    __builtin_memcpy(&a0, ap, sizeof a0);
    __builtin_memcpy(&a1, ap + 8, sizeof a1);
    for (int64_t j = 0; j < kTileCols; ++j) {
      acc[j][0] += bp[j] * a0;
      acc[j][1] += bp[j] * a1;
    }
  }
  float tile[kTileCols][kRows];  // column-major block of C
  __builtin_memcpy(tile, acc, sizeof tile);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < cols; ++j)
      c[r * ldc + j] = finish(e, r0 + r, e.sum != nullptr ? tile[j][r] + e.sum[r * ldc + j] : tile[j][r]);
}

// C[:, 0:cols] = epilogue(A * B[:, 0:16]) for every panel of A (m rows, depth k, panels `pitch` deep: k is
// a part of it when the product is split by depth); B has row pitch ldb and 16 readable columns, C stores
// only `cols` (< 16 for the last block of a row).
ASCENDSIM_VECTOR_CLONES void wide_block(const float* panels, int64_t pitch, int64_t m, int64_t k, const float* b,
                                        int64_t ldb, const PackedMatrix::Epilogue& e, float* c, int64_t ldc, int64_t cols) {
  const v16 lo = v16{} + e.lo, hi = v16{} + e.hi;
  if (m * k <= kShortBlock)
    for (int64_t r = 0; r < m; ++r) __builtin_prefetch(c + r * ldc + kAheadCols, 1, 3);
  for (int64_t r0 = 0; r0 < m; r0 += kWideRows) {
    const float* ap = panels + r0 / kRows * pitch * kRows + r0 % kRows;
    v16 acc[kWideRows] = {};
    for (int64_t kk = 0; kk < k; ++kk, ap += kRows) {
      v16 bv;
      ASCENDSIM_LOAD16(bv, b + kk * ldb);
      for (int64_t r = 0; r < kWideRows; ++r) acc[r] += ap[r] * bv;
    }
    const int64_t rows = std::min(kWideRows, m - r0);
    for (int64_t r = 0; r < rows; ++r) {
      float* cr = c + (r0 + r) * ldc;
      v16 out = acc[r];
      if (e.bias != nullptr) out += e.bias[r0 + r];
      if (e.sum != nullptr) {
        v16 z;
        ASCENDSIM_LOAD_FIRST(z, e.sum + (r0 + r) * ldc, cols);
        out += z;
      }
      out = out < lo ? lo : out;
      out = out > hi ? hi : out;
      ASCENDSIM_STORE_FIRST(cr, out, cols);
    }
  }
}

}  // namespace

PackedMatrix::PackedMatrix(const float* a, int64_t m, int64_t k, int64_t lda)
    : m_(m), k_(k), panels_(static_cast<size_t>((m + kRows - 1) / kRows * kRows * k), 0.0f) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t kk = 0; kk < k; ++kk) panels_[static_cast<size_t>((i / kRows * k + kk) * kRows + i % kRows)] = a[i * lda + kk];
}

// Rows [k0, k1) of tiles [t0, t1) of B (n columns) into bp, the tiles kTileCols wide and k-major.
// (Loops of constant length, not std::copy: a library call per 7 floats cost more than the product.)
void PackedMatrix::pack_tiles(const float* b, int64_t ldb, int64_t n, int64_t t0, int64_t t1, int64_t k0, int64_t k1,
                              float* bp) const {
  for (int64_t t = t0; t < t1; ++t) {
    const int64_t j0 = t * kTileCols, cols = std::min(kTileCols, n - j0);
    float* tile = bp + t * kTileCols * k_;
    for (int64_t kk = k0; kk < k1; ++kk) {
      const float* row = b + kk * ldb + j0;
      float* dst = tile + kk * kTileCols;
      if (cols == kTileCols) {
        for (int64_t j = 0; j < kTileCols; ++j) dst[j] = row[j];
      } else {
        for (int64_t j = 0; j < kTileCols; ++j) dst[j] = j < cols ? row[j] : 0.0f;
      }
    }
  }
}

void PackedMatrix::multiply(const float* b, int64_t ldb, int64_t n, const Epilogue& e, float* c, int64_t ldc) const {
  if (m_ <= 0 || n <= 0) return;
  if (num_threads() > 1 && k_ >= kSplitDepth && k_ >= 2 * m_ && m_ * n <= kSplitOutput) {
    multiply_by_depth(b, ldb, n, e, c, ldc);
    return;
  }
  if (n >= kWideColumns) {
    multiply_wide(b, ldb, n, e, c, ldc);
    return;
  }
  const int64_t tiles = (n + kTileCols - 1) / kTileCols, panels = (m_ + kRows - 1) / kRows;
  float* bp = scratch_floats(8, static_cast<size_t>(tiles * kTileCols * k_));
  parallel_for(tiles, std::max<int64_t>(1, kMinPackFloats / (kTileCols * k_)),
               [&](int64_t t0, int64_t t1) { pack_tiles(b, ldb, n, t0, t1, 0, k_, bp); });
  // Items are (panel, tile) pairs, panel-major: a 10-panel product (160 rows) split by whole panels
  // gave one thread 6 and the other 4.
  const int64_t items = panels * tiles;
  // While a panel is multiplied by its tiles, the next panel is fetched, a slice per tile: inside a network
  // the weights come from memory (1x1 convs on 7x7 planes of depth 160 and 320 ~7-10% faster). Only when a
  // panel fits in L1: a deeper one is read again from L2 by every tile, and fetching the next evicted more
  // of it (depth 576 and 960: ~5% slower).
  const int64_t lines_per_tile = k_ * kRows <= kL1Floats ? (k_ + tiles - 1) / tiles : 0;  // k lines a panel
  parallel_for(items, even_grain(items, kRows * k_ * kTileCols), [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t p = i / tiles, t = i % tiles, rows = std::min(kRows, m_ - p * kRows);
      if (p + 1 < panels)
        for (int64_t l = t * lines_per_tile; l < std::min(k_, (t + 1) * lines_per_tile); ++l)
          __builtin_prefetch(panels_.data() + ((p + 1) * k_ + l) * kRows, 0, 2);
      const int64_t at = p * kRows * ldc + t * kTileCols;
      micro_kernel(panels_.data() + p * k_ * kRows, bp + t * kTileCols * k_, k_, e.at(at), p * kRows, c + at, ldc, rows,
                   std::min(kTileCols, n - t * kTileCols));
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
  const int64_t tiles = (n + kTileCols - 1) / kTileCols, panels = (m_ + kRows - 1) / kRows;
  const int64_t parts = num_threads(), depth = (k_ + parts - 1) / parts, size = m_ * n;
  const bool wide = n >= kWideColumns;
  float* bp = wide ? nullptr : scratch_floats(8, static_cast<size_t>(tiles * kTileCols * k_));
  float* partial = scratch_floats(12, static_cast<size_t>(parts * size));
  parallel_for(parts, 1, [&](int64_t q0, int64_t q1) {
    for (int64_t q = q0; q < q1; ++q) {
      const int64_t k0 = std::min(k_, q * depth), k1 = std::min(k_, k0 + depth);
      float* part = partial + q * size;
      if (wide) {
        wide_columns(b, ldb, n, 0, (n + kWideCols - 1) / kWideCols, k0, k1, Epilogue{}, part, n);
        continue;
      }
      pack_tiles(b, ldb, n, 0, tiles, k0, k1, bp);
      for (int64_t p = 0; p < panels; ++p)
        for (int64_t t = 0; t < tiles; ++t)
          micro_kernel(panels_.data() + (p * k_ + k0) * kRows, bp + t * kTileCols * k_ + k0 * kTileCols, k1 - k0,
                       Epilogue{}, 0, part + p * kRows * n + t * kTileCols, n, std::min(kRows, m_ - p * kRows),
                       std::min(kTileCols, n - t * kTileCols));
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

void PackedMatrix::multiply_wide(const float* b, int64_t ldb, int64_t n, const Epilogue& e, float* c, int64_t ldc) const {
  const int64_t blocks = (n + kWideCols - 1) / kWideCols;
  parallel_for(blocks, even_grain(blocks, m_ * k_ * kWideCols),
               [&](int64_t j0, int64_t j1) { wide_columns(b, ldb, n, j0, j1, 0, k_, e, c, ldc); });
}

// Column blocks [j0, j1) of the wide product over depth [k0, k1).
void PackedMatrix::wide_columns(const float* b, int64_t ldb, int64_t n, int64_t j0, int64_t j1, int64_t k0, int64_t k1,
                                const Epilogue& e, float* c, int64_t ldc) const {
  const float* panels = panels_.data() + k0 * kRows;
  for (int64_t j = j0; j < j1; ++j) {
    const int64_t cols = std::min(kWideCols, n - j * kWideCols);
    if (cols == kWideCols) {
      wide_block(panels, k_, m_, k1 - k0, b + k0 * ldb + j * kWideCols, ldb, e.at(j * kWideCols), c + j * kWideCols,
                 ldc, kWideCols);
      continue;
    }
    // The last columns through a zero-padded copy: B's rows may end right after them.
    float* block = scratch_floats(8, static_cast<size_t>((k1 - k0) * kWideCols));
    for (int64_t kk = k0; kk < k1; ++kk) {
      const float* row = b + kk * ldb + j * kWideCols;
      for (int64_t jj = 0; jj < kWideCols; ++jj) block[(kk - k0) * kWideCols + jj] = jj < cols ? row[jj] : 0.0f;
    }
    wide_block(panels, k_, m_, k1 - k0, block, kWideCols, e.at(j * kWideCols), c + j * kWideCols, ldc, cols);
  }
}

// ---- PackedColumns ---------------------------------------------------------------------------------------
// C = A * B with B packed at construction into 16-column panels (k-major). Per panel, rows of A in groups of
// 8: eight 16-float accumulators, each k one vector of the panel and eight broadcasts of A (row-major, read
// in place): the wide kernel above with the roles of the operands exchanged. Panels are the outer loop, so
// B, the large operand (a transformer's weights), streams from memory once while A (the activations) stays
// in L2; threads take runs of panels.
namespace {

constexpr int64_t kColRows = 8;  // rows of A per accumulator set

// Rows [0, rows) of C for one panel (rows <= kColRows): the accumulator loop with a constant bound when full.
template <int64_t kRowsAtMost>
__attribute__((always_inline)) inline void column_rows(const float* a, int64_t lda, int64_t rows, int64_t k, const float* bp, v16* acc) {
  for (int64_t kk = 0; kk < k; ++kk) {
    v16 bv;
    ASCENDSIM_LOAD16(bv, bp + kk * kLanes);
    for (int64_t r = 0; r < kRowsAtMost; ++r)
      if (kRowsAtMost == kColRows || r < rows) acc[r] += a[r * lda + kk] * bv;
  }
}

ASCENDSIM_VECTOR_CLONES void column_panel(const float* a, int64_t lda, int64_t m, int64_t k, const float* bp,
                                          const float* bias, float lo, float hi, float* c, int64_t ldc, int64_t cols) {
  v16 b = {};
  if (bias != nullptr) {
    float padded[kLanes] = {};
    for (int64_t j = 0; j < cols; ++j) padded[j] = bias[j];
    ASCENDSIM_LOAD16(b, padded);
  }
  const v16 vlo = v16{} + lo, vhi = v16{} + hi;
  for (int64_t r0 = 0; r0 < m; r0 += kColRows) {
    const int64_t rows = std::min(kColRows, m - r0);
    v16 acc[kColRows] = {};
    if (rows == kColRows) {
      column_rows<kColRows>(a + r0 * lda, lda, rows, k, bp, acc);
    } else {
      column_rows<kColRows - 1>(a + r0 * lda, lda, rows, k, bp, acc);
    }
    for (int64_t r = 0; r < rows; ++r) {
      v16 out = acc[r] + b;
      out = out < vlo ? vlo : out;
      out = out > vhi ? vhi : out;
      float* cr = c + (r0 + r) * ldc;
      ASCENDSIM_STORE_FIRST(cr, out, cols);
    }
  }
}

}  // namespace

PackedColumns::PackedColumns(const float* b, int64_t k, int64_t n, int64_t ldb)
    : k_(k), n_(n), panels_(static_cast<size_t>((n + kPanelCols - 1) / kPanelCols * kPanelCols * k), 0.0f) {
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = 0; j < n; ++j)
      panels_[static_cast<size_t>((j / kPanelCols * k + kk) * kPanelCols + j % kPanelCols)] = b[kk * ldb + j];
}

void PackedColumns::multiply(const float* a, int64_t lda, int64_t m, const float* bias, float lo, float hi, float* c,
                             int64_t ldc) const {
  if (m <= 0 || n_ <= 0) return;
  const int64_t panels = (n_ + kPanelCols - 1) / kPanelCols;
  parallel_for(panels, even_grain(panels, m * k_ * kPanelCols), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t j0 = p * kPanelCols;
      column_panel(a, lda, m, k_, panels_.data() + p * k_ * kPanelCols, bias != nullptr ? bias + j0 : nullptr, lo, hi,
                   c + j0, ldc, std::min(kPanelCols, n_ - j0));
    }
  });
}

}  // namespace ascendsim::kernels
