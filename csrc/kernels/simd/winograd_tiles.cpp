// The Winograd F(2x2, 3x3) transforms (see winograd.cpp for the algorithm), kW tiles of a tile row per vector:
// the input transform B^T d B of kW 4x4 patches (patch column j of tile tx is frame column 2 tx + j: the even
// elements from column j, one shuffle per vector), the output transform A^T M A with the bias and the
// Relu/Clip bounds, its two columns per tile interleaved back into rows.
//
// The input transform runs column by column of d B, in the order 2, 0, 1, 3, so that at most two of its columns
// (8 vectors) are live beside the one being computed: all 16 at once spilled AVX2's 16 registers.
#include "kernels/simd/winograd_tiles.h"

#include "kernels/simd/simd.h"

namespace ascendsim::kernels::ASCENDSIM_ISA_NS {
namespace {

void pad_plane(const ConvGeometry& g, const WinogradFrame& f, const float* in, float* frame) {
  for (int64_t r = 0; r < f.rows; ++r) {
    float* row = frame + r * f.pitch;
    const int64_t ih = r - g.ph;
    if (ih < 0 || ih >= g.h) {
      for (int64_t c = 0; c < f.pitch; ++c) row[c] = 0.0f;
      continue;
    }
    const float* src = in + ih * g.w;
    for (int64_t c = 0; c < g.pw; ++c) row[c] = 0.0f;
    for (int64_t c = 0; c < g.w; ++c) row[g.pw + c] = src[c];
    for (int64_t c = g.pw + g.w; c < f.pitch; ++c) row[c] = 0.0f;
  }
}

// Column j of B^T (rows 0..3 of patch column j, kW tiles each): the vertical transform.
struct Column {
  vf v[4];
};
ASCENDSIM_INLINE Column vertical(const float* p, int64_t pitch) {
  const vf d0 = load_evens(p), d1 = load_evens(p + pitch), d2 = load_evens(p + 2 * pitch), d3 = load_evens(p + 3 * pitch);
  return Column{{d0 - d2, d1 + d2, d2 - d1, d1 - d3}};
}

void input(const WinogradFrame& f, int64_t tiles_w, int64_t ty0, int64_t ty1, const float* frame, float* v,
           int64_t v_stride) {
  for (int64_t ty = ty0; ty < ty1; ++ty) {
    for (int64_t tx0 = 0; tx0 < tiles_w; tx0 += kW) {
      const float* p = frame + 2 * ty * f.pitch + 2 * tx0;
      float* dst = v + (ty - ty0) * tiles_w + tx0;
      // (B^T d B)[i][j] from the columns X_j = (B^T d)[:, j]: [X0 - X2, X1 + X2, X2 - X1, X1 - X3].
      const Column x2 = vertical(p + 2, f.pitch);
      {
        const Column x0 = vertical(p, f.pitch);
        for (int i = 0; i < 4; ++i) store(dst + (i * 4 + 0) * v_stride, x0.v[i] - x2.v[i]);
      }
      const Column x1 = vertical(p + 1, f.pitch);
      for (int i = 0; i < 4; ++i) {
        store(dst + (i * 4 + 1) * v_stride, x1.v[i] + x2.v[i]);
        store(dst + (i * 4 + 2) * v_stride, x2.v[i] - x1.v[i]);
      }
      const Column x3 = vertical(p + 3, f.pitch);
      for (int i = 0; i < 4; ++i) store(dst + (i * 4 + 3) * v_stride, x1.v[i] - x3.v[i]);
    }
  }
}

void output(const ConvGeometry& g, int64_t tiles_w, int64_t ty0, int64_t ty1, const float* mt, int64_t m_stride,
            float bias, float lo, float hi, float* out) {
  const vf vlo = splat(lo), vhi = splat(hi);
  for (int64_t ty = ty0; ty < ty1; ++ty) {
    for (int64_t tx0 = 0; tx0 < tiles_w; tx0 += kW) {
      const float* src = mt + (ty - ty0) * tiles_w + tx0;
      vf u[4][2];  // M A, row by row
      for (int r = 0; r < 4; ++r) {
        const vf m0 = load(src + (r * 4 + 0) * m_stride), m1 = load(src + (r * 4 + 1) * m_stride);
        const vf m2 = load(src + (r * 4 + 2) * m_stride), m3 = load(src + (r * 4 + 3) * m_stride);
        u[r][0] = m0 + m1 + m2;
        u[r][1] = m1 - m2 - m3;
      }
      for (int64_t i = 0; i < 2; ++i) {  // output row 2 * ty + i = (A^T (M A))[i]
        const int64_t oh = 2 * ty + i;
        if (oh >= g.oh) break;
        const vf y0 = clamp((i == 0 ? u[0][0] + u[1][0] + u[2][0] : u[1][0] - u[2][0] - u[3][0]) + bias, vlo, vhi);
        const vf y1 = clamp((i == 0 ? u[0][1] + u[1][1] + u[2][1] : u[1][1] - u[2][1] - u[3][1]) + bias, vlo, vhi);
        const vf first = interleave_low(y0, y1), second = interleave_high(y0, y1);
        float* dst = out + oh * g.ow + 2 * tx0;
        // (Not past the row: its next tile block, or the other output row of these tiles, may be written.)
        if (2 * tx0 + 2 * kW <= g.ow) {
          store(dst, first);
          store(dst + kW, second);
        } else {
          float both[2 * kW];
          store(both, first);
          store(both + kW, second);
          for (int64_t j = 0; j < g.ow - 2 * tx0; ++j) dst[j] = both[j];
        }
      }
    }
  }
}

}  // namespace

extern const WinogradTiles winograd_tiles_table;
const WinogradTiles winograd_tiles_table = {pad_plane, input, output};

}  // namespace ascendsim::kernels::ASCENDSIM_ISA_NS
