// The NC1HWC0 Winograd transforms (see blocked_winograd_tiles.h; the algorithms: blocked_winograd.cpp):
//   stride 1, V = B^T d B with B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1], Y = A^T M A with A^T = [1 1 1 0; 0 1 -1 -1];
//   stride 2, B^T = [1 0 -1 0 0; 0 0 1 0 0; 0 0 -1 0 1; 0 1 0 0 0; 0 0 0 1 0], A^T = [1 1 0 1 0; 0 1 1 0 1].
// One kW-float vector of a 16-channel line at a time. The input transform runs column by column of d (the vertical
// B^T first), the column that others subtract first (2), so that at most three columns are live (all 16 or 25
// loads at once would spill AVX2's 16 registers); a patch inside the plane is read without a test per load.
#include "kernels/simd/blocked_winograd_tiles.h"

#include "kernels/simd/simd.h"

namespace ascendsim::kernels::ASCENDSIM_ISA_NS {
namespace {

constexpr int64_t kLine = kUnit;  // floats of one pixel's channel block

template <int kS>
constexpr int kN = kS == 1 ? 4 : 5;  // a patch's rows and columns

template <int kS>
struct Column {
  vf v[kN<kS>];
};
// Column j of B^T d: the patch's rows of column x, lanes [u * kW, (u + 1) * kW) of each line.
template <int kS, bool kInside>
ASCENDSIM_INLINE Column<kS> vertical(const BlockedWinogradInput& a, const float* block, int64_t y0, int64_t x, int u) {
  vf d[kN<kS>];
  for (int i = 0; i < kN<kS>; ++i) {
    const int64_t y = y0 + i;
    d[i] = kInside || (y >= 0 && y < a.h && x >= 0 && x < a.w) ? load(block + (y * a.w + x) * kLine + u * kW) : vf{};
  }
  if constexpr (kS == 1) {
    return Column<kS>{{d[0] - d[2], d[1] + d[2], d[2] - d[1], d[1] - d[3]}};
  } else {
    return Column<kS>{{d[0] - d[2], d[2], d[4] - d[2], d[1], d[3]}};
  }
}

// Stride 2: (B^T d B)[i][j] from the columns X_j = (B^T d)[:, j]: [X0 - X2, X2, X4 - X2, X1, X3].
template <bool kInside>
ASCENDSIM_INLINE void input_tile_stride2(const BlockedWinogradInput& a, const float* block, int64_t y0, int64_t x0,
                                         float* dst, int64_t stride) {
  for (int u = 0; u < kU; ++u) {
    float* p = dst + u * kW;
    const Column<2> x2 = vertical<2, kInside>(a, block, y0, x0 + 2, u);
    for (int i = 0; i < 5; ++i) store(p + (i * 5 + 1) * stride, x2.v[i]);
    {
      const Column<2> x0c = vertical<2, kInside>(a, block, y0, x0, u);
      for (int i = 0; i < 5; ++i) store(p + (i * 5 + 0) * stride, x0c.v[i] - x2.v[i]);
    }
    {
      const Column<2> x4 = vertical<2, kInside>(a, block, y0, x0 + 4, u);
      for (int i = 0; i < 5; ++i) store(p + (i * 5 + 2) * stride, x4.v[i] - x2.v[i]);
    }
    for (int j = 0; j < 2; ++j) {
      const Column<2> odd = vertical<2, kInside>(a, block, y0, x0 + 1 + 2 * j, u);
      for (int i = 0; i < 5; ++i) store(p + (i * 5 + 3 + j) * stride, odd.v[i]);
    }
  }
}

template <bool kInside>
ASCENDSIM_INLINE void input_tile(const BlockedWinogradInput& a, const float* block, int64_t y0, int64_t x0, float* dst,
                                 int64_t stride) {
  for (int u = 0; u < kU; ++u) {
    float* p = dst + u * kW;
    // (B^T d B)[i][j] from the columns X_j = (B^T d)[:, j]: [X0 - X2, X1 + X2, X2 - X1, X1 - X3].
    const Column<1> x2 = vertical<1, kInside>(a, block, y0, x0 + 2, u);
    {
      const Column<1> x0c = vertical<1, kInside>(a, block, y0, x0, u);
      for (int i = 0; i < 4; ++i) store(p + (i * 4 + 0) * stride, x0c.v[i] - x2.v[i]);
    }
    const Column<1> x1 = vertical<1, kInside>(a, block, y0, x0 + 1, u);
    for (int i = 0; i < 4; ++i) {
      store(p + (i * 4 + 1) * stride, x1.v[i] + x2.v[i]);
      store(p + (i * 4 + 2) * stride, x2.v[i] - x1.v[i]);
    }
    const Column<1> x3 = vertical<1, kInside>(a, block, y0, x0 + 3, u);
    for (int i = 0; i < 4; ++i) store(p + (i * 4 + 3) * stride, x1.v[i] - x3.v[i]);
  }
}

template <int kS>
void input_tiles(const BlockedWinogradInput& a, int64_t k0, int64_t k1, const WinogradLines& v) {
  const int64_t plane = a.h * a.w * kLine;
  for (int64_t b = 0; b < a.blocks; ++b) {
    const float* block = a.x + b * plane;
    float* dst = v.at + b * v.block_stride;
    int64_t ty = k0 / a.tiles_w, tx = k0 % a.tiles_w;
    for (int64_t k = k0; k < k1; ++k, dst += kLine) {
      const int64_t y0 = 2 * kS * ty - a.ph, x0 = 2 * kS * tx - a.pw;
      const bool inside = y0 >= 0 && x0 >= 0 && y0 + kN<kS> <= a.h && x0 + kN<kS> <= a.w;
      if constexpr (kS == 1) {
        inside ? input_tile<true>(a, block, y0, x0, dst, v.position_stride)
               : input_tile<false>(a, block, y0, x0, dst, v.position_stride);
      } else {
        inside ? input_tile_stride2<true>(a, block, y0, x0, dst, v.position_stride)
               : input_tile_stride2<false>(a, block, y0, x0, dst, v.position_stride);
      }
      if (++tx == a.tiles_w) tx = 0, ++ty;
    }
  }
}

void input(const BlockedWinogradInput& a, int64_t k0, int64_t k1, const WinogradLines& v) {
  a.stride == 2 ? input_tiles<2>(a, k0, k1, v) : input_tiles<1>(a, k0, k1, v);
}

// A^T applied to the values along one axis of M (a row, or a column of M A): the tile's first and second output.
template <int kS>
ASCENDSIM_INLINE vf first_output(const vf* v) {
  if constexpr (kS == 1) {
    return v[0] + v[1] + v[2];
  } else {
    return v[0] + v[1] + v[3];
  }
}
template <int kS>
ASCENDSIM_INLINE vf second_output(const vf* v) {
  if constexpr (kS == 1) {
    return v[1] - v[2] - v[3];
  } else {
    return v[1] + v[2] + v[4];
  }
}

template <int kS>
void output_tiles(const BlockedWinogradOutput& a, int64_t k0, int64_t k1, const WinogradLines& m) {
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
        constexpr int n = kN<kS>;
        vf r[2][n];  // M A: r[j][i] is output column j of row i
        for (int i = 0; i < n; ++i) {
          vf row[n];
          for (int j = 0; j < n; ++j) row[j] = load(p + (i * n + j) * stride);
          r[0][i] = first_output<kS>(row);
          r[1][i] = second_output<kS>(row);
        }
        const vf bias = load(a.bias + b * kLine + u * kW);
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < cols; ++j) {
            vf y = (i == 0 ? first_output<kS>(r[j]) : second_output<kS>(r[j])) + bias;
            const int64_t at = ((2 * ty + i) * a.ow + 2 * tx + j) * kLine + u * kW;
            if (sum != nullptr) y += load(sum + at);
            store(out + at, clamp(y, lo, hi));
          }
      }
      if (++tx == a.tiles_w) tx = 0, ++ty;
    }
  }
}

void output(const BlockedWinogradOutput& a, int64_t k0, int64_t k1, const WinogradLines& m) {
  a.stride == 2 ? output_tiles<2>(a, k0, k1, m) : output_tiles<1>(a, k0, k1, m);
}

}  // namespace

extern const BlockedWinogradTiles blocked_winograd_tiles_table;
const BlockedWinogradTiles blocked_winograd_tiles_table = {input, output};

}  // namespace ascendsim::kernels::ASCENDSIM_ISA_NS
