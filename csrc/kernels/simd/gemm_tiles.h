// The register-tiled loops of the packed products (gemm.h: PackedMatrix, PackedColumns), one table per kernel
// variant (simd/gemm_tiles.cpp). A is packed in panels of kUnit rows, k-major; C is row-major.
#pragma once
#include <cstdint>

namespace ascendsim::kernels {

// Applied as C is written: + bias[row] (when not null), + sum (when not null: a matrix laid out as C with C's
// leading dimension, from the element of C's first; a fused residual), then clamped to [lo, hi] (a fused Relu
// or Clip).
struct GemmEpilogue {
  const float* bias = nullptr;
  const float* sum = nullptr;
  float lo = -__builtin_inff(), hi = __builtin_inff();
};

// The epilogue of the block of C that starts `offset` elements on (its sum moves with it). (static: the variants'
// loops use it too, and one shared inline copy could be a variant's; see docs/kernels.md.)
static inline GemmEpilogue epilogue_at(const GemmEpilogue& e, int64_t offset) {
  GemmEpilogue moved = e;
  if (moved.sum != nullptr) moved.sum += offset;
  return moved;
}

constexpr int kMaxColumnPanels = 4;  // column_panels, at most, in any variant

struct GemmTiles {
  const char* shape;    // of the register tiles, for the kernel-variant log ("16x6 / 6x16")
  int64_t narrow_panels;  // panels of A (16 rows each) per register tile of a narrow product
  int64_t narrow_cols;    // columns of a packed tile of B (narrow products)
  int64_t wide_blocks;    // adjacent blocks of 16 columns per register tile of a wide product
  int64_t column_panels;  // adjacent panels of B per register tile of the column product (columns), at most
  // Rows [k0, k1) of tiles [t0, t1) of B (n columns, row pitch ldb) into bp: tiles of narrow_cols columns,
  // each `depth` rows deep and k-major, columns past n zero.
  void (*pack_narrow)(const float* b, int64_t ldb, int64_t n, int64_t depth, int64_t t0, int64_t t1, int64_t k0,
                      int64_t k1, float* bp);
  // C[r][j] = epilogue(sum over kc of ap[k][r] * bp[k][j]) for r < rows <= narrow_panels * 16, j < cols: as
  // many adjacent panels of A as the rows need (`pitch` floats apart; from row r0 of the bias) by one packed
  // tile of B.
  void (*narrow)(const float* ap, int64_t pitch, const float* bp, int64_t kc, const GemmEpilogue& e, int64_t r0,
                 float* c, int64_t ldc, int64_t rows, int64_t cols);
  // C[:, 0:w] = epilogue(A * B[:, 0:w] (+ C when `accumulate`)) for every panel of A (m rows, depth k, panels
  // `pitch` deep) over `blocks` adjacent blocks of kUnit columns: B read in place (row pitch ldb, every block's
  // kUnit columns readable), C stores w = (blocks - 1) * kUnit + cols columns (cols <= kUnit).
  void (*wide)(const float* panels, int64_t pitch, int64_t m, int64_t k, const float* b, int64_t ldb,
               const GemmEpilogue& e, bool accumulate, float* c, int64_t ldc, int64_t blocks, int64_t cols);
  // C (m x w) = A (m x k, row pitch lda, read in place) * `panels` (<= column_panels) adjacent panels of B
  // (each k x kUnit, k-major, panel_stride floats apart), then + C (when `accumulate`) or + bias[column] (when
  // not null), clamped to [lo, hi]; w = (panels - 1) * kUnit + cols (cols <= kUnit).
  void (*columns)(const float* a, int64_t lda, int64_t m, int64_t k, const float* bp, int64_t panel_stride,
                  int64_t panels, const float* bias, bool accumulate, float lo, float hi, float* c, int64_t ldc,
                  int64_t cols);
};

// The active variant's table (kernels/isa.h).
const GemmTiles& gemm_tiles();

}  // namespace ascendsim::kernels
