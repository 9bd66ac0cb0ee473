// Register tiles of the packed products (see gemm_tiles.h; gemm.cpp decides which runs and shares the work out).
// Each keeps a block of C in vector registers over the whole depth (the column tiles: over a depth slice) and reads
// both operands from cache; its size is chosen per variant so that the accumulators, one k step's operand vectors
// and the broadcast fit in the register file (kRegisters), which the static_asserts below check:
//
// Narrow products (B packed per call into tiles of kNarrowCols columns, k-major): a block of kNarrowPanels x 16
// rows of C (adjacent panels of A: output channels) by kNarrowCols columns, vectors running down the rows; per k,
// kU vectors of each panel and kNarrowCols broadcasts of B, each used once per panel. AVX-512: 48 x 7 in 21
// registers (seven columns, because a network's last planes have a multiple of 7 positions: 7x7 from 224x224
// inputs; three panels, because with one the 7 accumulator chains were fewer than the FMA latency times the FMA
// units (4 x 2) and every FMA also loaded its broadcast: products on 7x7 planes 20-30% faster on a Zen 5 with
// three panels, a few % more than with two); AVX2: 16 x 6 in 12 of its 16; NEON: 16 x 5 in 20 of 32; SSE2: 16 x 2.
//
// Wide products (B read in place, kUnit columns a block): kWideRows rows of C by kWideBlocks adjacent blocks of 16
// columns, vectors running along the columns; per k, kU vectors of each block of B and kWideRows broadcasts of A,
// each used once per block. AVX-512: 8 rows x 32 columns in 16 registers (with one block, 8 chains each loading its
// broadcast: 1x1 convs on large planes ~15% slower on a Zen 5); AVX2: 6 x 16 (12 of 16; a panel's 16 rows as
// 6 + 6 + 4); NEON: 4 x 16 (16 of 32); SSE2: 2 x 16. Each group of rows runs along the call's adjacent blocks
// (several for a shallow product: gemm.cpp) before the next group, so that C is written in runs of lines per row.
// The column panels of PackedColumns take the wide tile with the operands' roles exchanged (B packed, A read in
// place), over up to kColumnPanels adjacent panels of 16 columns, the more panels the fewer rows (kColumnRowsFor):
// per k, a vector of each panel and a broadcast of each row of A. AVX-512: 12 rows x 16 or 32 columns, 8 x 48,
// 6 x 64, 24 accumulators from 2 panels on (one panel: 12 accumulator chains, each FMA with its own broadcast:
// ViT-B/16's 197 x 768 x 3072 product 4550-4750 us, 6 x 64 3690 us, onnxruntime 3760 us on a Zen 5); the
// others one panel of kWideRows rows.
#include "kernels/simd/gemm_tiles.h"

#include "kernels/simd/simd.h"

namespace ascendsim::kernels::ASCENDSIM_ISA_NS {
namespace {

#if defined(__AVX512F__)
constexpr int kNarrowPanels = 3, kNarrowCols = 7, kWideRows = 8, kWideBlocks = 2, kColumnPanels = 4;
constexpr int kColumnRowsFor[kMaxColumnPanels + 1] = {0, 12, 12, 8, 6};  // by the tile's panels
#define ASCENDSIM_GEMM_SHAPE "48x7 / 8x32 / 12x16-32, 8x48, 6x64 (AVX-512)"
#elif defined(__AVX2__) && defined(__FMA__)
constexpr int kNarrowPanels = 1, kNarrowCols = 6, kWideRows = 6, kWideBlocks = 1, kColumnPanels = 1;
constexpr int kColumnRowsFor[kMaxColumnPanels + 1] = {0, 6};
#define ASCENDSIM_GEMM_SHAPE "16x6 / 6x16 (AVX2)"
#elif defined(__aarch64__)
constexpr int kNarrowPanels = 1, kNarrowCols = 5, kWideRows = 4, kWideBlocks = 1, kColumnPanels = 1;
constexpr int kColumnRowsFor[kMaxColumnPanels + 1] = {0, 4};
#define ASCENDSIM_GEMM_SHAPE "16x5 / 4x16 (NEON)"
#else
constexpr int kNarrowPanels = 1, kNarrowCols = 2, kWideRows = 2, kWideBlocks = 1, kColumnPanels = 1;
constexpr int kColumnRowsFor[kMaxColumnPanels + 1] = {0, 2};
#define ASCENDSIM_GEMM_SHAPE "16x2 / 2x16 (SSE2)"
#endif
// Accumulators + one k step's vectors of the packed operand + its broadcasts (x86 reuses one register for them;
// NEON's by-element fmla keeps each broadcast float in a register of its own) + a product without FMA.
constexpr int broadcast_registers(int broadcasts) {
#if defined(__aarch64__)
  return broadcasts;
#else
  return broadcasts > 0 ? 1 : 0;
#endif
}
static_assert(kNarrowPanels * (kNarrowCols * kU + kU) + broadcast_registers(kNarrowCols) + 1 <= kRegisters,
              "the narrow tile spills");
static_assert(kWideBlocks * (kWideRows * kU + kU) + broadcast_registers(kWideRows) + 1 <= kRegisters,
              "the wide tile spills");
template <int kPanels>
constexpr bool column_tile_fits() {
  constexpr int kRows = kColumnRowsFor[kPanels];
  if constexpr (kPanels > 1) {
    if (!column_tile_fits<kPanels - 1>()) return false;
  }
  return kRows > 0 && kPanels * (kRows * kU + kU) + broadcast_registers(kRows) + 1 <= kRegisters;
}
static_assert(column_tile_fits<kColumnPanels>(), "a column tile spills");

// A block of C whose product is short (m * k multiply-add vectors at most kShortBlock, ~300 ns) is over before a
// store to C that misses the cache completes: C's lines for the block kAheadCols columns on are prefetched for
// writing first (a 32 -> 16 channel 1x1 conv on a 112x112 plane, whose output is no longer in cache inside a
// network: 236 -> 165 us). Longer blocks hide the misses themselves, and prefetching their many rows measured
// ~7% slower.
constexpr int64_t kShortBlock = 1024;
constexpr int64_t kAheadCols = 4 * kUnit;

ASCENDSIM_INLINE float finish(const GemmEpilogue& e, int64_t r, float v) {
  if (e.bias != nullptr) v += e.bias[r];
  return fmin_(fmax_(v, e.lo), e.hi);
}

// A row of C, `cols` values in up to kV vectors: value(u, n) gives vector u (n of its lanes in C), clamped and
// stored. The tiles pass their accumulators by value through the lambda: through a pointer, GCC kept them in memory.
template <int kV, class Value>
ASCENDSIM_INLINE void store_row(float* c, int64_t cols, vf lo, vf hi, Value value) {
  ASCENDSIM_UNROLL_TILE
  for (int u = 0; u < kV; ++u) {
    const int64_t n = imin(kW, cols - u * kW);
    if (n <= 0) break;
    store_first(c + u * kW, clamp(value(u, n), lo, hi), n);
  }
}

void pack_narrow(const float* b, int64_t ldb, int64_t n, int64_t depth, int64_t t0, int64_t t1, int64_t k0,
                 int64_t k1, float* bp) {
  // (Loops of constant length: a library call per few floats cost more than the product.)
  for (int64_t t = t0; t < t1; ++t) {
    const int64_t j0 = t * kNarrowCols, cols = imin(kNarrowCols, n - j0);
    float* tile = bp + t * kNarrowCols * depth;
    for (int64_t kk = k0; kk < k1; ++kk) {
      const float* row = b + kk * ldb + j0;
      float* dst = tile + kk * kNarrowCols;
      if (cols == kNarrowCols) {
        for (int j = 0; j < kNarrowCols; ++j) dst[j] = row[j];
      } else {
        for (int j = 0; j < kNarrowCols; ++j) dst[j] = j < cols ? row[j] : 0.0f;
      }
    }
  }
}

// kPanels panels of A (pitch floats apart) by the first kCols columns of one tile of B (its last tile's columns
// only: the 49 positions of a 7x7 plane are 8 tiles of 6 and one column, which the whole tile multiplied by 6).
template <int kPanels, int kCols>
ASCENDSIM_INLINE void narrow_tile(const float* ap, int64_t pitch, const float* bp, int64_t kc, const GemmEpilogue& e,
                                  int64_t r0, float* c, int64_t ldc, int64_t rows, int64_t cols) {
  vf acc[kPanels][kCols][kU];  // (set element by element: see wide_rows)
  ASCENDSIM_UNROLL_TILE
  for (int p = 0; p < kPanels; ++p)
    ASCENDSIM_UNROLL_TILE
    for (int j = 0; j < kCols; ++j)
      ASCENDSIM_UNROLL_TILE
      for (int u = 0; u < kU; ++u) acc[p][j][u] = vf{};
  for (int64_t k = 0; k < kc; ++k, ap += kUnit, bp += kNarrowCols) {
    vf a[kPanels][kU];
    ASCENDSIM_UNROLL_TILE
    for (int p = 0; p < kPanels; ++p)
      ASCENDSIM_UNROLL_TILE
      for (int u = 0; u < kU; ++u) a[p][u] = load(ap + p * pitch + u * kW);
    ASCENDSIM_UNROLL_TILE
    for (int j = 0; j < kCols; ++j) {
      const float b = bp[j];
      ASCENDSIM_UNROLL_TILE
      for (int p = 0; p < kPanels; ++p)
        ASCENDSIM_UNROLL_TILE
        for (int u = 0; u < kU; ++u) acc[p][j][u] += b * a[p][u];
    }
  }
  // C's rows are the tile's lanes, so C is written a float at a time. Without a fused sum the bias and clamp run
  // on the accumulators first, a vector of rows at a time (scalar, they were a quarter of an 80-deep product);
  // with one, the sum comes before them (finish).
  const bool finished = e.sum == nullptr;
  if (finished) {
    const vf lo = splat(e.lo), hi = splat(e.hi);
    ASCENDSIM_UNROLL_TILE
    for (int p = 0; p < kPanels; ++p)
      ASCENDSIM_UNROLL_TILE
      for (int u = 0; u < kU; ++u) {
        const int64_t first = p * kUnit + u * kW;  // the vector's first row in the tile
        const vf bias =
            e.bias != nullptr && first < rows ? load_first(e.bias + r0 + first, imin(kW, rows - first)) : vf{};
        ASCENDSIM_UNROLL_TILE
        for (int j = 0; j < kCols; ++j) acc[p][j][u] = clamp(acc[p][j][u] + bias, lo, hi);
      }
  }
  float tile[kPanels][kCols][kUnit];  // column-major blocks of C
  __builtin_memcpy(tile, acc, sizeof tile);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < cols; ++j) {
      const float v = tile[r / kUnit][j][r % kUnit];
      c[r * ldc + j] = finished ? v : finish(e, r0 + r, v + e.sum[r * ldc + j]);
    }
}

// The tile of as many panels as the rows need (the last rows of A may fill fewer than kNarrowPanels) and as many
// columns as the tile of B has.
template <int kPanels, int kCols>
ASCENDSIM_INLINE void narrow_panels(const float* ap, int64_t pitch, const float* bp, int64_t kc, const GemmEpilogue& e,
                                    int64_t r0, float* c, int64_t ldc, int64_t rows, int64_t cols) {
  if constexpr (kCols > 1) {
    if (cols < kCols) return narrow_panels<kPanels, kCols - 1>(ap, pitch, bp, kc, e, r0, c, ldc, rows, cols);
  }
  if constexpr (kPanels > 1) {
    if (rows <= (kPanels - 1) * kUnit)
      return narrow_panels<kPanels - 1, kCols>(ap, pitch, bp, kc, e, r0, c, ldc, rows, cols);
  }
  narrow_tile<kPanels, kCols>(ap, pitch, bp, kc, e, r0, c, ldc, rows, cols);
}

void narrow(const float* ap, int64_t pitch, const float* bp, int64_t kc, const GemmEpilogue& e, int64_t r0, float* c,
            int64_t ldc, int64_t rows, int64_t cols) {
  narrow_panels<kNarrowPanels, kNarrowCols>(ap, pitch, bp, kc, e, r0, c, ldc, rows, cols);
}

// Rows [r0, r0 + kRows) of the wide product (kRows of one panel, from ap: its row r0 % kUnit) by kBlocks adjacent
// blocks of B (their last `cols` <= kBlocks * kUnit columns stored), stored up to row m.
// (Its loops without ASCENDSIM_UNROLL_TILE: with it ShuffleNet's shallow grouped 1x1 convs ran 16% slower.)
template <int kRows, int kBlocks = 1>
ASCENDSIM_INLINE void wide_rows(const float* ap, int64_t k, const float* b, int64_t ldb, const GemmEpilogue& e,
                                bool accumulate, int64_t r0, int64_t m, vf lo, vf hi, float* c, int64_t ldc,
                                int64_t cols) {
  constexpr int kV = kBlocks * kU;  // vectors per row
  // Each accumulator is set once, by constant indices (loops of constant length, bounds tested inside): set
  // conditionally after `= {}`, acc got a home in memory, which GCC cleared with `rep stos` on every call (15% of
  // a 40-deep grouped 1x1 conv's product on a Zen 3).
  vf acc[kRows][kV];
  for (int r = 0; r < kRows; ++r)  // (rows past m are not C's: they start from zero)
    for (int u = 0; u < kV; ++u)
      acc[r][u] = accumulate && r0 + r < m && u * kW < cols
                      ? load_first(c + (r0 + r) * ldc + u * kW, imin(kW, cols - u * kW))
                      : vf{};
  for (int64_t kk = 0; kk < k; ++kk, ap += kUnit) {
    vf bv[kV];
    for (int u = 0; u < kV; ++u) bv[u] = load(b + kk * ldb + u * kW);
    for (int r = 0; r < kRows; ++r) {
      const float a = ap[r];
      for (int u = 0; u < kV; ++u) acc[r][u] += a * bv[u];
    }
  }
  if (r0 + kRows <= m && cols == kV * kW && e.sum == nullptr) {  // the common block: constant bounds throughout
    for (int r = 0; r < kRows; ++r) {
      const vf bias = splat(e.bias != nullptr ? e.bias[r0 + r] : 0.0f);
      for (int u = 0; u < kV; ++u) store(c + (r0 + r) * ldc + u * kW, clamp(acc[r][u] + bias, lo, hi));
    }
    return;
  }
  for (int r = 0; r < kRows; ++r) {
    if (r0 + r >= m) break;
    store_row<kV>(c + (r0 + r) * ldc, cols, lo, hi, [&](int u, int64_t n) {
      vf v = acc[r][u];
      if (e.bias != nullptr) v += e.bias[r0 + r];
      if (e.sum != nullptr) v += load_first(e.sum + (r0 + r) * ldc + u * kW, n);
      return v;
    });
  }
}

// One group of rows along the call's blocks: kWideBlocks at a time, the last one or more by the one-block tile.
template <int kRows>
ASCENDSIM_INLINE void wide_group(const float* ap, int64_t k, const float* b, int64_t ldb, const GemmEpilogue& e,
                                 bool accumulate, int64_t r0, int64_t m, vf lo, vf hi, float* c, int64_t ldc,
                                 int64_t blocks, int64_t cols) {
  int64_t q = 0;
  if constexpr (kWideBlocks > 1)
    for (; q + kWideBlocks <= blocks; q += kWideBlocks)
      wide_rows<kRows, kWideBlocks>(ap, k, b + q * kUnit, ldb, epilogue_at(e, q * kUnit), accumulate, r0, m, lo, hi,
                                    c + q * kUnit, ldc, (kWideBlocks - 1) * kUnit + (q + kWideBlocks < blocks ? kUnit : cols));
  for (; q < blocks; ++q)
    wide_rows<kRows>(ap, k, b + q * kUnit, ldb, epilogue_at(e, q * kUnit), accumulate, r0, m, lo, hi, c + q * kUnit, ldc,
                     q + 1 < blocks ? kUnit : cols);
}

void wide(const float* panels, int64_t pitch, int64_t m, int64_t k, const float* b, int64_t ldb,
          const GemmEpilogue& e, bool accumulate, float* c, int64_t ldc, int64_t blocks, int64_t cols) {
  const vf lo = splat(e.lo), hi = splat(e.hi);
  if (m * k <= kShortBlock)
    for (int64_t r = 0; r < m; ++r)
      for (int64_t q = 0; q < blocks; ++q) __builtin_prefetch(c + r * ldc + q * kUnit + kAheadCols, 1, 3);
  constexpr int kRest = static_cast<int>(kUnit) % kWideRows;  // a panel's last group
  // Each group of rows runs along all the blocks, so that it writes C's rows in runs of adjacent lines.
  for (int64_t p0 = 0; p0 < m; p0 += kUnit) {
    const float* panel = panels + p0 * pitch;
    int64_t g = 0;
    for (; g + kWideRows <= kUnit && p0 + g < m; g += kWideRows)
      wide_group<kWideRows>(panel + g, k, b, ldb, e, accumulate, p0 + g, m, lo, hi, c, ldc, blocks, cols);
    if constexpr (kRest > 0)
      if (p0 + g < m) wide_group<kRest>(panel + g, k, b, ldb, e, accumulate, p0 + g, m, lo, hi, c, ldc, blocks, cols);
  }
}

// Rows [0, kRows) of C for kPanels adjacent panels of B (panel_stride floats apart; the last one's first `cols`
// columns stored): kRows x kPanels x kU accumulators from the bias (or from C, when `accumulate`: a later depth
// slice) over the depth, then the clamp.
template <int kRows, int kPanels>
ASCENDSIM_INLINE void column_rows(const float* a, int64_t lda, int64_t k, const float* bp, int64_t panel_stride,
                                  const vf* bias, bool accumulate, vf lo, vf hi, float* c, int64_t ldc, int64_t cols) {
  vf acc[kRows][kPanels][kU];  // started from the bias or C (set element by element, not zeroed: see wide_rows)
  ASCENDSIM_UNROLL_TILE
  for (int r = 0; r < kRows; ++r)
    ASCENDSIM_UNROLL_TILE
    for (int p = 0; p < kPanels; ++p)
      ASCENDSIM_UNROLL_TILE
      for (int u = 0; u < kU; ++u) {
        const int64_t width = (p + 1 < kPanels ? kUnit : cols) - u * kW;
        acc[r][p][u] = !accumulate ? bias[p * kU + u]
                       : width > 0 ? load_first(c + r * ldc + p * kUnit + u * kW, imin(kW, width)) : vf{};
      }
  for (int64_t kk = 0; kk < k; ++kk) {
    vf bv[kPanels][kU];
    ASCENDSIM_UNROLL_TILE
    for (int p = 0; p < kPanels; ++p)
      ASCENDSIM_UNROLL_TILE
      for (int u = 0; u < kU; ++u) bv[p][u] = load(bp + p * panel_stride + kk * kUnit + u * kW);
    ASCENDSIM_UNROLL_TILE
    for (int r = 0; r < kRows; ++r) {
      const float x = a[r * lda + kk];
      ASCENDSIM_UNROLL_TILE
      for (int p = 0; p < kPanels; ++p)
        ASCENDSIM_UNROLL_TILE
        for (int u = 0; u < kU; ++u) acc[r][p][u] += x * bv[p][u];
    }
  }
  ASCENDSIM_UNROLL_TILE
  for (int r = 0; r < kRows; ++r)
    ASCENDSIM_UNROLL_TILE
    for (int p = 0; p < kPanels; ++p)
      store_row<kU>(c + r * ldc + p * kUnit, p + 1 < kPanels ? kUnit : cols, lo, hi,
                    [&](int u, int64_t) { return acc[r][p][u]; });
}

// The last rows (fewer than the tile's) with a tile of their exact height, so that it stays in registers.
template <int kRows, int kPanels>
ASCENDSIM_INLINE void column_tail(int64_t rows, const float* a, int64_t lda, int64_t k, const float* bp,
                                  int64_t panel_stride, const vf* bias, bool accumulate, vf lo, vf hi, float* c,
                                  int64_t ldc, int64_t cols) {
  if constexpr (kRows > 0) {
    if (rows == kRows) {
      column_rows<kRows, kPanels>(a, lda, k, bp, panel_stride, bias, accumulate, lo, hi, c, ldc, cols);
    } else {
      column_tail<kRows - 1, kPanels>(rows, a, lda, k, bp, panel_stride, bias, accumulate, lo, hi, c, ldc, cols);
    }
  }
}

// All m rows of kPanels panels (the call's last group may have fewer than kColumnPanels).
template <int kPanels>
ASCENDSIM_INLINE void column_panels(const float* a, int64_t lda, int64_t m, int64_t k, const float* bp,
                                    int64_t panel_stride, int64_t panels, const float* bias, bool accumulate, float lo,
                                    float hi, float* c, int64_t ldc, int64_t cols) {
  if constexpr (kPanels > 1) {
    if (panels < kPanels)
      return column_panels<kPanels - 1>(a, lda, m, k, bp, panel_stride, panels, bias, accumulate, lo, hi, c, ldc, cols);
  }
  const int64_t width = (kPanels - 1) * kUnit + cols;
  vf b[kPanels * kU];  // the bias by vectors, zero past the width (no zeroed array: see test_kernel_spills.py)
  ASCENDSIM_UNROLL_TILE
  for (int v = 0; v < kPanels * kU; ++v) {
    const int64_t n = imin(kW, width - v * kW);
    b[v] = bias != nullptr && n > 0 ? load_first(bias + v * kW, n) : vf{};
  }
  const vf vlo = splat(lo), vhi = splat(hi);
  constexpr int kRows = kColumnRowsFor[kPanels];
  int64_t r0 = 0;
  for (; r0 + kRows <= m; r0 += kRows)
    column_rows<kRows, kPanels>(a + r0 * lda, lda, k, bp, panel_stride, b, accumulate, vlo, vhi, c + r0 * ldc, ldc,
                                cols);
  column_tail<kRows - 1, kPanels>(m - r0, a + r0 * lda, lda, k, bp, panel_stride, b, accumulate, vlo, vhi,
                                  c + r0 * ldc, ldc, cols);
}

void columns(const float* a, int64_t lda, int64_t m, int64_t k, const float* bp, int64_t panel_stride, int64_t panels,
             const float* bias, bool accumulate, float lo, float hi, float* c, int64_t ldc, int64_t cols) {
  column_panels<kColumnPanels>(a, lda, m, k, bp, panel_stride, panels, bias, accumulate, lo, hi, c, ldc, cols);
}

}  // namespace

extern const GemmTiles gemm_tiles_table;
const GemmTiles gemm_tiles_table = {ASCENDSIM_GEMM_SHAPE, kNarrowPanels, kNarrowCols, kWideBlocks, kColumnPanels,
                                     pack_narrow, narrow, wide, columns};

}  // namespace ascendsim::kernels::ASCENDSIM_ISA_NS
