// Pooling over one plane. Strides 1 and 2 (every common pool) run separably, per output row: the rows of its
// window are combined into a row buffer padded with the pool's identity (-inf for max, 0 for sums) (vertical),
// and that row is reduced over the window's columns for every output column (horizontal: a vector of outputs per
// tap, one load, or at stride 2 one load of the even elements), whole vectors throughout (the buffer is padded to
// them). Averages multiply by the reciprocal of the window's count, which is separable too: (rows of the window
// counted) x (columns counted), clipped as onnxruntime does (the padded extent with count_include_pad, else the
// input). Other strides run tap by tap over whole output rows: for each tap (i, j), the output columns whose input
// column is inside the plane take max(y, x[ih][ow * sw + j * dw - pw]) (or add it). Global pooling
// reduces each plane in vectors. Planes of pixels of several floats (NC1HWC0: a pixel's 16 channels of a block)
// pool each output pixel's window of valid pixels as whole vectors, lanes wide, with no row buffer. Max keeps the
// larger of two values unless the comparison fails (std::max's choice), so NaN inputs are skipped in every path.
#include "kernels/simd/pool_rows.h"

#include "kernels/conv_geometry.h"
#include "kernels/simd/simd.h"

namespace ascendsim::kernels::ASCENDSIM_ISA_NS {
namespace {

// A column tap of the window: its input offset (input column ow * sw + off for output column ow) and the output
// columns [lo, hi) whose input column lies inside the row. The same for every row of a plane: computed once per
// plane, where two integer divisions per tap and row cost more than the taps' arithmetic (3x slower than
// onnxruntime on a 3x3 stride-2 pool).
struct ColumnTap {
  int64_t off, lo, hi;
};
constexpr int64_t kTableTaps = 64;  // wider windows compute each tap's columns on the fly
constexpr int64_t kRowsPerPass = 8;  // window rows combined in registers per pass over the row buffer

ASCENDSIM_INLINE ColumnTap column_tap(const PoolGeometry& g, int64_t j) {
  const int64_t off = j * g.dw - g.pw;
  const int64_t lo = imin(imax((-off + g.sw - 1) / g.sw, 0), g.ow);
  return ColumnTap{off, lo, imin(imax((g.w - off + g.sw - 1) / g.sw, lo), g.ow)};
}

// Calls tap(ColumnTap) for every column tap of one input row, from the table when it has them.
template <class Fn>
ASCENDSIM_INLINE void for_each_column_tap(const PoolGeometry& g, const ColumnTap* table, Fn tap) {
  for (int64_t j = 0; j < g.kw; ++j) tap(j < kTableTaps ? table[j] : column_tap(g, j));
}

// dst[k] = combine(dst[k], src[k * sw]) over the tap's columns, stride-2 rows a vector at a time while the
// vector's reads stay in the row.
template <class Scalar, class Vector>
ASCENDSIM_INLINE void tap_row(const PoolGeometry& g, const ColumnTap& t, const float* row, float* yr, Scalar scalar,
                              Vector vector) {
  const float* src = row + t.lo * g.sw + t.off;
  float* dst = yr + t.lo;
  const int64_t n = t.hi - t.lo;
  if (g.sw == 1) {
    for (int64_t k = 0; k < n; ++k) dst[k] = scalar(dst[k], src[k]);
  } else if (g.sw == 2) {
    int64_t k = 0;
    for (; k + kW <= n && t.lo * g.sw + t.off + 2 * (k + kW) <= g.w; k += kW)
      store(dst + k, vector(load(dst + k), load_evens(src + 2 * k)));
    for (; k < n; ++k) dst[k] = scalar(dst[k], src[2 * k]);
  } else {
    for (int64_t k = 0; k < n; ++k) dst[k] = scalar(dst[k], src[k * g.sw]);
  }
}

void max_by_taps(const PoolGeometry& g, const float* x, float* y) {
  ColumnTap table[kTableTaps];
  for (int64_t j = 0; j < imin(g.kw, kTableTaps); ++j) table[j] = column_tap(g, j);
  // (fmax_ / vmax keep the first operand unless the second is larger: std::max's choice with NaN)
  const auto scalar = [](float a, float b) { return fmax_(a, b); };
  const auto vector = [](vf a, vf b) { return vmax(a, b); };
  for (int64_t oh = 0; oh < g.oh; ++oh) {
    float* yr = y + oh * g.ow;
    for (int64_t c = 0; c < g.ow; ++c) yr[c] = -__builtin_inff();
    for (int64_t i = 0; i < g.kh; ++i) {
      const int64_t ih = oh * g.sh - g.ph + i * g.dh;
      if (ih < 0 || ih >= g.h) continue;
      const float* row = x + ih * g.w;
      for_each_column_tap(g, table, [&](const ColumnTap& t) { tap_row(g, t, row, yr, scalar, vector); });
    }
  }
}

// The window's extent along one axis for output o: its count (padded or inside the input).
ASCENDSIM_INLINE int64_t window_count(int64_t o, int64_t stride, int64_t pad, int64_t pad_end, int64_t kernel, int64_t size,
                                      bool include_pad) {
  const int64_t start = o * stride - pad, end = imin(start + kernel, size + pad_end);
  return include_pad ? end - start : imin(end, size) - imax(start, 0);
}

void average_by_taps(const PoolGeometry& g, const float* x, float* y) {
  ColumnTap table[kTableTaps];
  for (int64_t j = 0; j < imin(g.kw, kTableTaps); ++j) table[j] = column_tap(g, j);
  const auto scalar = [](float a, float b) { return a + b; };
  const auto vector = [](vf a, vf b) { return a + b; };
  for (int64_t oh = 0; oh < g.oh; ++oh) {
    float* yr = y + oh * g.ow;
    for (int64_t c = 0; c < g.ow; ++c) yr[c] = 0.0f;
    for (int64_t i = 0; i < g.kh; ++i) {
      const int64_t ih = oh * g.sh - g.ph + i;
      if (ih < 0 || ih >= g.h) continue;
      const float* row = x + ih * g.w;
      for_each_column_tap(g, table, [&](const ColumnTap& t) { tap_row(g, t, row, yr, scalar, vector); });
    }
    const int64_t rows = window_count(oh, g.sh, g.ph, g.ph_end, g.kh, g.h, g.include_pad);
    for (int64_t ow = 0; ow < g.ow; ++ow) {
      const int64_t count = rows * window_count(ow, g.sw, g.pw, g.pw_end, g.kw, g.w, g.include_pad);
      yr[ow] = count > 0 ? yr[ow] / static_cast<float>(count) : 0.0f;
    }
  }
}

// The separable planes (see the top of the file): the work buffer holds the padded row and, for averages, the
// column counts.
struct Separable {
  int64_t owp, row;  // output columns rounded up to whole vectors; floats of the padded row buffer
};

ASCENDSIM_INLINE bool separable(const PoolGeometry& g) { return g.sw <= 2; }

ASCENDSIM_INLINE Separable separable_shape(const PoolGeometry& g) {
  const int64_t owp = (g.ow + kW - 1) / kW * kW;
  return Separable{owp, g.sw * owp + (g.kw - 1) * g.dw + 2 * kW};
}

int64_t work_floats(const PoolGeometry& g) {
  if (!separable(g)) return 0;
  const Separable s = separable_shape(g);
  return s.row + (g.max ? 0 : (g.kh + 1) * s.owp);
}

// row[0, w) = op over the rows srcs[0 .. count) (and row[0, w) itself unless `first`), in vectors, each vector
// combined in a register and stored once: combining row by row through the buffer stored and reloaded every
// vector per window row, at an address one float off alignment (the left pad), and a 3x3 stride-2 max pool of
// 64 x 112 x 112 ran 135 us there against onnxruntime's 41 (Zen 5). The last vector is stored whole, its lanes
// past w set to `id` (the row buffer has room for them, and they are its padding): a masked store per row is slow
// on AMD CPUs (Zen 3: a quarter of a 3x3 pool's time on 28x28 planes).
template <class Op>
ASCENDSIM_INLINE void combine_rows(const float* const* srcs, int64_t count, int64_t w, bool first, vf id, Op op,
                                   float* row) {
  int64_t c = 0;
  // (In the order of the rows, the buffer's first: max keeps its first operand when a comparison fails.)
  for (; c + kW <= w; c += kW) {
    vf v = first ? load(srcs[0] + c) : op(load(row + c), load(srcs[0] + c));
    for (int64_t i = 1; i < count; ++i) v = op(v, load(srcs[i] + c));
    store(row + c, v);
  }
  if (c < w) {
    vf v = first ? load_first(srcs[0] + c, w - c) : op(load(row + c), load_first(srcs[0] + c, w - c));
    for (int64_t i = 1; i < count; ++i) v = op(v, load_first(srcs[i] + c, w - c));
    store(row + c, first_lanes(v, w - c, id));
  }
}

// One output row from the padded row: y[ow] = op over the window's columns, times the reciprocal of the window's
// count for averages (`inverse`: one per output column, for this row's count of window rows; null for max);
// kTaps: the column taps when known at compile time (2 and 3: unrolled), else 0 and g.kw.
// `spill`: how many floats after the row the call writes later: the row's last vector is stored whole when it fits
// in them (a masked store is slow on AMD CPUs).
template <int kTaps, class Op>
ASCENDSIM_INLINE void horizontal(const PoolGeometry& g, const Separable& s, const float* row, vf id, Op op,
                                 const float* inverse, int64_t spill, float* y) {
  const int64_t taps = kTaps > 0 ? kTaps : g.kw;
  for (int64_t ow0 = 0; ow0 < s.owp; ow0 += kW) {
    vf acc = id;
    for (int64_t j = 0; j < taps; ++j) {
      const float* at = row + g.sw * ow0 + j * g.dw;
      acc = op(acc, g.sw == 1 ? load(at) : load_evens(at));
    }
    if (inverse != nullptr) acc *= load(inverse + ow0);
    if (ow0 + kW <= g.ow + spill) {
      store(y + ow0, acc);
    } else if (ow0 < g.ow) {
      store_first(y + ow0, acc, g.ow - ow0);
    }
  }
}

// Per output row: the window's rows that lie inside the plane are combined into the padded row (vertical, whole
// vectors), then that one row is reduced over the window's columns (horizontal). Reducing every input row
// horizontally first, as this did before, ran the stride-2 deinterleaving of three taps on twice the rows and
// copied each row in single floats: 30 instructions per output of a 3x3 stride-2 pool, 2-3x onnxruntime's time.
template <class Op>
ASCENDSIM_INLINE void separable_planes(const PoolGeometry& g, const float* x, int64_t planes, float* work,
                                       float identity, Op op, const float* inverses, float* y) {
  const Separable s = separable_shape(g);
  float* row = work;
  const vf id = splat(identity);
  for (int64_t c = 0; c < s.row; ++c) row[c] = identity;  // the pads around the plane's columns keep it
  for (int64_t p = 0; p < planes; ++p, x += g.h * g.w, y += g.oh * g.ow) {
    for (int64_t oh = 0; oh < g.oh; ++oh) {
      // The window's rows inside the plane, kRowsPerPass at a time into the row buffer.
      bool first = true;
      const float* srcs[kRowsPerPass];
      int64_t count = 0;
      for (int64_t i = 0; i < g.kh; ++i) {
        const int64_t ih = oh * g.sh - g.ph + i * g.dh;
        if (ih < 0 || ih >= g.h) continue;
        srcs[count++] = x + ih * g.w;
        if (count == kRowsPerPass) {
          combine_rows(srcs, count, g.w, first, id, op, row + g.pw);
          first = false;
          count = 0;
        }
      }
      if (count > 0) {
        combine_rows(srcs, count, g.w, first, id, op, row + g.pw);
        first = false;
      }
      if (first)  // the window's rows are all padding
        for (int64_t c = 0; c < g.w; ++c) row[g.pw + c] = identity;
      const float* inverse = nullptr;
      if (inverses != nullptr) {
        const int64_t rows = window_count(oh, g.sh, g.ph, g.ph_end, g.kh, g.h, g.include_pad);
        inverse = inverses + imin(imax(rows, 0), g.kh) * s.owp;
      }
      float* yr = y + oh * g.ow;
      // (not past the call's last plane: another thread's may follow)
      const int64_t spill = (g.oh - 1 - oh) * g.ow + (planes - 1 - p) * g.oh * g.ow;
      if (g.kw == 3) {
        horizontal<3>(g, s, row, id, op, inverse, spill, yr);
      } else if (g.kw == 2) {
        horizontal<2>(g, s, row, id, op, inverse, spill, yr);
      } else {
        horizontal<0>(g, s, row, id, op, inverse, spill, yr);
      }
    }
  }
}

void max_planes(const PoolGeometry& g, const float* x, int64_t planes, float* work, float* y) {
  if (!separable(g)) {
    for (int64_t p = 0; p < planes; ++p) max_by_taps(g, x + p * g.h * g.w, y + p * g.oh * g.ow);
    return;
  }
  separable_planes(g, x, planes, work, -__builtin_inff(), [](vf a, vf b) { return vmax(a, b); }, nullptr, y);
}

void average_planes(const PoolGeometry& g, const float* x, int64_t planes, float* work, float* y) {
  if (!separable(g)) {
    for (int64_t p = 0; p < planes; ++p) average_by_taps(g, x + p * g.h * g.w, y + p * g.oh * g.ow);
    return;
  }
  // Row r of the table: 1 / (count of the window's rows r x count of its columns) per output column (0 for an
  // empty window, whose sum is 0); row 0 for windows without rows. A multiply per output instead of a division
  // (the division was another 15 % of a 3 x 3 stride-2 pool), within an ulp of it.
  const Separable s = separable_shape(g);
  float* inverses = work + s.row;
  for (int64_t ow = 0; ow < s.owp; ++ow) {
    const int64_t columns = ow < g.ow ? window_count(ow, g.sw, g.pw, g.pw_end, g.kw, g.w, g.include_pad) : 1;
    inverses[ow] = 0.0f;
    for (int64_t rows = 1; rows <= g.kh; ++rows)
      inverses[rows * s.owp + ow] = columns > 0 ? 1.0f / static_cast<float>(rows * columns) : 0.0f;
  }
  separable_planes(g, x, planes, work, 0.0f, [](vf a, vf b) { return a + b; }, inverses, y);
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

// The valid taps [first, end) of a window along one axis: tap t reads o * stride - pad + t * dilation, inside
// [0, size).
struct TapRange {
  int64_t first, end;
};
ASCENDSIM_INLINE TapRange tap_range(int64_t o, int64_t stride, int64_t pad, int64_t dilation, int64_t kernel, int64_t size) {
  const int64_t start = o * stride - pad;
  const int64_t first = start < 0 ? (-start + dilation - 1) / dilation : 0;
  const int64_t end = start + (kernel - 1) * dilation < size ? kernel : (size - 1 - start) / dilation + 1;
  return TapRange{imin(first, kernel), imax(imin(end, kernel), imin(first, kernel))};
}

// kG output pixels `step` floats apart (their windows' origins too, from `origin`), each over the same taps, each
// its own accumulator (one chain of maxima per pixel was the whole cost: 9 dependent maxima per output).
template <bool kMax, int kG>
ASCENDSIM_INLINE void pool_pixels(const PoolGeometry& g, const float* plane, int64_t origin, int64_t step, TapRange rows,
                                  TapRange cols, const float* scales, float* out) {
  for (int64_t l = 0; l < g.lanes; l += kW) {
    const int64_t n = imin(kW, g.lanes - l);
    vf acc[kG];
    ASCENDSIM_UNROLL_TILE
    for (int q = 0; q < kG; ++q) acc[q] = kMax ? splat(-__builtin_inff()) : vf{};
    for (int64_t i = rows.first; i < rows.end; ++i)
      for (int64_t j = cols.first; j < cols.end; ++j) {
        const float* at = plane + origin + (i * g.dh * g.w + j * g.dw) * g.lanes + l;
        ASCENDSIM_UNROLL_TILE
        for (int q = 0; q < kG; ++q) {
          const vf v = load_first(at + q * step, n);
          acc[q] = kMax ? vmax(acc[q], v) : acc[q] + v;
        }
      }
    ASCENDSIM_UNROLL_TILE
    for (int q = 0; q < kG; ++q) store_first(out + q * g.lanes + l, kMax ? acc[q] : acc[q] * scales[q], n);
  }
}

// Per output row: the pixels whose window has every column inside the row (interior) kPixelGroup at a time,
// the others one by one with their valid columns. (An empty window, all pads: -inf for max as the plane paths
// give, 0 for an average.)
template <bool kMax>
void pool_lanes(const PoolGeometry& g, const float* x, int64_t planes, float* y) {
  constexpr int kPixelGroup = 4;
  const int64_t step = g.sw * g.lanes;
  const OutputSpan inner = interior_outputs(g.ow, g.w, g.kw, g.sw, g.pw, g.dw);
  const int64_t inner_lo = inner.lo, inner_hi = inner.hi;
  for (int64_t p = 0; p < planes; ++p) {
    const float* plane = x + p * g.h * g.w * g.lanes;
    float* out = y + p * g.oh * g.ow * g.lanes;
    for (int64_t oh = 0; oh < g.oh; ++oh) {
      const TapRange rows = tap_range(oh, g.sh, g.ph, g.dh, g.kh, g.h);
      const int64_t row_count = kMax ? 0 : window_count(oh, g.sh, g.ph, g.ph_end, g.kh, g.h, g.include_pad);
      auto origin = [&](int64_t ow) { return ((oh * g.sh - g.ph) * g.w + ow * g.sw - g.pw) * g.lanes; };  // (may lie before the plane)
      auto scale = [&](int64_t ow) {
        if (kMax) return 1.0f;
        const int64_t count = row_count * window_count(ow, g.sw, g.pw, g.pw_end, g.kw, g.w, g.include_pad);
        return count > 0 ? 1.0f / static_cast<float>(count) : 0.0f;
      };
      float* row = out + oh * g.ow * g.lanes;
      int64_t ow = 0;
      for (; ow < g.ow; ++ow) {
        if (ow == inner_lo) {
          const TapRange all{0, g.kw};
          for (; ow + kPixelGroup <= inner_hi; ow += kPixelGroup) {
            float scales[kPixelGroup];
            for (int q = 0; q < kPixelGroup; ++q) scales[q] = scale(ow + q);
            pool_pixels<kMax, kPixelGroup>(g, plane, origin(ow), step, rows, all, scales, row + ow * g.lanes);
          }
          for (; ow < inner_hi; ++ow) {
            const float one = scale(ow);
            pool_pixels<kMax, 1>(g, plane, origin(ow), step, rows, all, &one, row + ow * g.lanes);
          }
          if (ow >= g.ow) break;
        }
        const float one = scale(ow);
        pool_pixels<kMax, 1>(g, plane, origin(ow), step, rows, tap_range(ow, g.sw, g.pw, g.dw, g.kw, g.w), &one,
                             row + ow * g.lanes);
      }
    }
  }
}

void lanes_planes(const PoolGeometry& g, const float* x, int64_t planes, float* y) {
  if (g.max) {
    pool_lanes<true>(g, x, planes, y);
  } else {
    pool_lanes<false>(g, x, planes, y);
  }
}

}  // namespace

extern const PoolRows pool_rows_table;
const PoolRows pool_rows_table = {work_floats, max_planes, average_planes, global_planes, lanes_planes};

}  // namespace ascendsim::kernels::ASCENDSIM_ISA_NS
