// Pooling over one plane, a whole output row at a time: for each tap (i, j) of the window, the output columns
// whose input column is inside the plane take max(y, x[ih][ow * sw + j * dw - pw]) (or add it): contiguous (or
// stride-2) runs that vectorize, instead of a bounds-checked window per output. Stride-2 runs take a vector of
// taps by one shuffle of two loads while those reads stay in the row. Averages then divide by the window's
// count, which is separable: (rows of the window counted) x (columns counted), clipped as onnxruntime does (the
// padded extent with count_include_pad, else the input); each output sums its taps in the order the scalar
// loop did. Global pooling reduces each plane in vectors.
#include "kernels/simd/pool_rows.h"

#include "kernels/simd/simd.h"

namespace ascendsim::kernels::ASCENDSIM_ISA_NS {
namespace {

// The valid output columns [lo, hi) of tap offset `off` (input column ow * sw + off inside the row).
ASCENDSIM_INLINE void tap_columns(const PoolGeometry& g, int64_t off, int64_t* lo, int64_t* hi) {
  *lo = imin(imax((-off + g.sw - 1) / g.sw, 0), g.ow);
  *hi = imin(imax((g.w - off + g.sw - 1) / g.sw, *lo), g.ow);
}

void max_plane(const PoolGeometry& g, const float* x, float* y) {
  for (int64_t oh = 0; oh < g.oh; ++oh) {
    float* yr = y + oh * g.ow;
    for (int64_t c = 0; c < g.ow; ++c) yr[c] = -__builtin_inff();
    for (int64_t i = 0; i < g.kh; ++i) {
      const int64_t ih = oh * g.sh - g.ph + i * g.dh;
      if (ih < 0 || ih >= g.h) continue;
      const float* row = x + ih * g.w;
      for (int64_t j = 0; j < g.kw; ++j) {
        const int64_t off = j * g.dw - g.pw;  // input column of output column ow: ow * sw + off
        int64_t lo, hi;
        tap_columns(g, off, &lo, &hi);
        if (lo == hi) continue;
        const float* src = row + lo * g.sw + off;
        float* dst = yr + lo;
        const int64_t n = hi - lo;
        // (fmax_ / vmax keep the first operand unless the second is larger: std::max's choice with NaN)
        if (g.sw == 1) {
          for (int64_t k = 0; k < n; ++k) dst[k] = fmax_(dst[k], src[k]);
        } else if (g.sw == 2) {
          int64_t k = 0;
          for (; k + kW <= n && lo * g.sw + off + 2 * (k + kW) <= g.w; k += kW)
            store(dst + k, vmax(load(dst + k), load_evens(src + 2 * k)));
          for (; k < n; ++k) dst[k] = fmax_(dst[k], src[2 * k]);
        } else {
          for (int64_t k = 0; k < n; ++k) dst[k] = fmax_(dst[k], src[k * g.sw]);
        }
      }
    }
  }
}

// The window's extent along one axis for output o: its count (padded or inside the input).
ASCENDSIM_INLINE int64_t window_count(int64_t o, int64_t stride, int64_t pad, int64_t pad_end, int64_t kernel, int64_t size,
                                      bool include_pad) {
  const int64_t start = o * stride - pad, end = imin(start + kernel, size + pad_end);
  return include_pad ? end - start : imin(end, size) - imax(start, 0);
}

void average_plane(const PoolGeometry& g, const float* x, float* y) {
  for (int64_t oh = 0; oh < g.oh; ++oh) {
    float* yr = y + oh * g.ow;
    for (int64_t c = 0; c < g.ow; ++c) yr[c] = 0.0f;
    for (int64_t i = 0; i < g.kh; ++i) {
      const int64_t ih = oh * g.sh - g.ph + i;
      if (ih < 0 || ih >= g.h) continue;
      const float* row = x + ih * g.w;
      for (int64_t j = 0; j < g.kw; ++j) {
        const int64_t off = j - g.pw;
        int64_t lo, hi;
        tap_columns(g, off, &lo, &hi);
        const float* src = row + lo * g.sw + off;
        float* dst = yr + lo;
        const int64_t n = hi - lo;
        if (g.sw == 1) {
          for (int64_t k = 0; k < n; ++k) dst[k] += src[k];
        } else if (g.sw == 2) {
          int64_t k = 0;
          for (; k + kW <= n && lo * g.sw + off + 2 * (k + kW) <= g.w; k += kW) store(dst + k, load(dst + k) + load_evens(src + 2 * k));
          for (; k < n; ++k) dst[k] += src[2 * k];
        } else {
          for (int64_t k = 0; k < n; ++k) dst[k] += src[k * g.sw];
        }
      }
    }
    const int64_t rows = window_count(oh, g.sh, g.ph, g.ph_end, g.kh, g.h, g.include_pad);
    for (int64_t ow = 0; ow < g.ow; ++ow) {
      const int64_t count = rows * window_count(ow, g.sw, g.pw, g.pw_end, g.kw, g.w, g.include_pad);
      yr[ow] = count > 0 ? yr[ow] / static_cast<float>(count) : 0.0f;
    }
  }
}

void global_planes(const float* x, int64_t planes, int64_t len, bool max, float* y) {
  for (int64_t p = 0; p < planes; ++p) {
    const float* r = x + p * len;
    int64_t i = 0;
    if (max) {
      float m = -__builtin_inff();
      if (len >= kW) {
        vf v = load(r);
        for (i = kW; i + kW <= len; i += kW) v = vmax(v, load(r + i));
        for (int l = 0; l < kW; ++l) m = fmax_(m, v[l]);
      }
      for (; i < len; ++i) m = fmax_(m, r[i]);
      y[p] = m;
    } else {
      vf v = {};
      for (; i + kW <= len; i += kW) v += load(r + i);
      float s = 0.0f;
      for (int l = 0; l < kW; ++l) s += v[l];
      for (; i < len; ++i) s += r[i];
      y[p] = len > 0 ? s / static_cast<float>(len) : 0.0f;
    }
  }
}

}  // namespace

extern const PoolRows pool_rows_table;
const PoolRows pool_rows_table = {max_plane, average_plane, global_planes};

}  // namespace ascendsim::kernels::ASCENDSIM_ISA_NS
