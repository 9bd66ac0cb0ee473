// The NC1HWC0 Winograd transforms (see blocked_winograd_tiles.h; the algorithm is winograd.cpp's):
//   V = B^T d B with B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1],   Y = A^T M A with A^T = [1 1 1 0; 0 1 -1 -1].
// One kW-float vector of a 16-channel line at a time. The input transform runs column by column of d (the vertical
// B^T first), in the order 2, 0, 1, 3, so that at most three of its columns are live (all 16 loads at once would
// spill AVX2's 16 registers); a patch inside the plane is read without a test per load.
#include "kernels/simd/blocked_winograd_tiles.h"

#include "kernels/simd/simd.h"

namespace ascendsim::kernels::ASCENDSIM_ISA_NS {
namespace {

constexpr int64_t kLine = kUnit;  // floats of one pixel's channel block

struct Column {
  vf v[4];
};
// Column j of B^T d: rows 0..3 of patch column j, lanes [u * kW, (u + 1) * kW) of each line.
template <bool kInside>
ASCENDSIM_INLINE Column vertical(const BlockedWinogradInput& a, const float* block, int64_t y0, int64_t x, int u) {
  vf d[4];
  for (int i = 0; i < 4; ++i) {
    const int64_t y = y0 + i;
    d[i] = kInside || (y >= 0 && y < a.h && x >= 0 && x < a.w) ? load(block + (y * a.w + x) * kLine + u * kW) : vf{};
  }
  return Column{{d[0] - d[2], d[1] + d[2], d[2] - d[1], d[1] - d[3]}};
}

template <bool kInside>
ASCENDSIM_INLINE void input_tile(const BlockedWinogradInput& a, const float* block, int64_t y0, int64_t x0, float* dst,
                                 int64_t stride) {
  for (int u = 0; u < kU; ++u) {
    float* p = dst + u * kW;
    // (B^T d B)[i][j] from the columns X_j = (B^T d)[:, j]: [X0 - X2, X1 + X2, X2 - X1, X1 - X3].
    const Column x2 = vertical<kInside>(a, block, y0, x0 + 2, u);
    {
      const Column x0c = vertical<kInside>(a, block, y0, x0, u);
      for (int i = 0; i < 4; ++i) store(p + (i * 4 + 0) * stride, x0c.v[i] - x2.v[i]);
    }
    const Column x1 = vertical<kInside>(a, block, y0, x0 + 1, u);
    for (int i = 0; i < 4; ++i) {
      store(p + (i * 4 + 1) * stride, x1.v[i] + x2.v[i]);
      store(p + (i * 4 + 2) * stride, x2.v[i] - x1.v[i]);
    }
    const Column x3 = vertical<kInside>(a, block, y0, x0 + 3, u);
    for (int i = 0; i < 4; ++i) store(p + (i * 4 + 3) * stride, x1.v[i] - x3.v[i]);
  }
}

void input(const BlockedWinogradInput& a, int64_t k0, int64_t k1, const WinogradLines& v) {
  const int64_t plane = a.h * a.w * kLine;
  for (int64_t b = 0; b < a.blocks; ++b) {
    const float* block = a.x + b * plane;
    float* dst = v.at + b * v.block_stride;
    int64_t ty = k0 / a.tiles_w, tx = k0 % a.tiles_w;
    for (int64_t k = k0; k < k1; ++k, dst += kLine) {
      const int64_t y0 = 2 * ty - a.ph, x0 = 2 * tx - a.pw;
      if (y0 >= 0 && x0 >= 0 && y0 + 4 <= a.h && x0 + 4 <= a.w) {
        input_tile<true>(a, block, y0, x0, dst, v.position_stride);
      } else {
        input_tile<false>(a, block, y0, x0, dst, v.position_stride);
      }
      if (++tx == a.tiles_w) tx = 0, ++ty;
    }
  }
}

void output(const BlockedWinogradOutput& a, int64_t k0, int64_t k1, const WinogradLines& m) {
  const int64_t plane = a.oh * a.ow * kLine, stride = m.position_stride;
  const vf lo = splat(a.lo), hi = splat(a.hi);
  for (int64_t b = 0; b < a.blocks; ++b) {
    const float* src = m.at + b * m.block_stride;
    float* out = a.out + b * plane;
    const float* sum = a.sum != nullptr ? a.sum + b * plane : nullptr;
    int64_t ty = k0 / a.tiles_w, tx = k0 % a.tiles_w;
    for (int64_t k = k0; k < k1; ++k, src += kLine) {
      const int64_t rows = imin(2, a.oh - 2 * ty), cols = imin(2, a.ow - 2 * tx);
      for (int u = 0; u < kU; ++u) {
        const float* p = src + u * kW;
        vf r[4][2];  // M A, row by row
        for (int i = 0; i < 4; ++i) {
          const vf m0 = load(p + (i * 4 + 0) * stride), m1 = load(p + (i * 4 + 1) * stride);
          const vf m2 = load(p + (i * 4 + 2) * stride), m3 = load(p + (i * 4 + 3) * stride);
          r[i][0] = m0 + m1 + m2;
          r[i][1] = m1 - m2 - m3;
        }
        const vf bias = load(a.bias + b * kLine + u * kW);
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < cols; ++j) {
            vf y = (i == 0 ? r[0][j] + r[1][j] + r[2][j] : r[1][j] - r[2][j] - r[3][j]) + bias;
            const int64_t at = ((2 * ty + i) * a.ow + 2 * tx + j) * kLine + u * kW;
            if (sum != nullptr) y += load(sum + at);
            store(out + at, clamp(y, lo, hi));
          }
      }
      if (++tx == a.tiles_w) tx = 0, ++ty;
    }
  }
}

}  // namespace

extern const BlockedWinogradTiles blocked_winograd_tiles_table;
const BlockedWinogradTiles blocked_winograd_tiles_table = {input, output};

}  // namespace ascendsim::kernels::ASCENDSIM_ISA_NS
