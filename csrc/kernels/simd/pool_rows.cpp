// Pooling over one plane. Strides 1 and 2 (every common pool) run separably: each input row is first copied
// into a row buffer padded with the pool's identity (-inf for max, 0 for sums), and reduced over the window's
// columns for every output column (horizontal: a vector of outputs per tap, one load, or at stride 2 one load of
// the even elements); each output row then reduces the rows of its window (vertical), whole vectors throughout
// (the buffers are padded to them). Averages divide by the window's count, which is separable too: (rows of the
// window counted) x (columns counted), clipped as onnxruntime does (the padded extent with count_include_pad,
// else the input). Other strides run tap by tap over whole output rows: for each tap (i, j), the output columns
// whose input column is inside the plane take max(y, x[ih][ow * sw + j * dw - pw]) (or add it). Global pooling
// reduces each plane in vectors. Max keeps the larger of two values unless the comparison fails (std::max's
// choice), so NaN inputs are skipped in every path.
#include "kernels/simd/pool_rows.h"

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

// The separable planes (see the top of the file): the work buffer holds the padded row, the horizontal results
// of every input row (owp floats each) and, for averages, the column counts.
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
  return s.row + g.h * s.owp + s.owp;
}

// One horizontal row: h[ow] = op over the window's columns of the padded row; kTaps: the column taps when known
// at compile time (2 and 3: unrolled), else 0 and g.kw.
template <int kTaps, class Op>
ASCENDSIM_INLINE void horizontal(const PoolGeometry& g, const Separable& s, const float* row, vf id, Op op, float* h) {
  const int64_t taps = kTaps > 0 ? kTaps : g.kw;
  for (int64_t ow0 = 0; ow0 < s.owp; ow0 += kW) {
    vf acc = id;
    for (int64_t j = 0; j < taps; ++j) {
      const float* at = row + g.sw * ow0 + j * g.dw;
      acc = op(acc, g.sw == 1 ? load(at) : load_evens(at));
    }
    store(h + ow0, acc);
  }
}

template <class Op>
ASCENDSIM_INLINE void separable_plane(const PoolGeometry& g, const float* x, float* work, float identity, Op op,
                                      const float* counts, float* y) {
  const Separable s = separable_shape(g);
  float* row = work;
  float* rows = work + s.row;
  const vf id = splat(identity);
  // Horizontal: every input row over the window's columns.
  for (int64_t c = 0; c < s.row; ++c) row[c] = identity;
  for (int64_t ih = 0; ih < g.h; ++ih) {
    const float* src = x + ih * g.w;
    for (int64_t c = 0; c < g.w; ++c) row[g.pw + c] = src[c];  // (the pads around it keep the identity)
    float* h = rows + ih * s.owp;
    if (g.kw == 3) {
      horizontal<3>(g, s, row, id, op, h);
    } else if (g.kw == 2) {
      horizontal<2>(g, s, row, id, op, h);
    } else {
      horizontal<0>(g, s, row, id, op, h);
    }
  }
  // Vertical: every output row over the window's rows (rows outside the plane count as the identity).
  for (int64_t oh = 0; oh < g.oh; ++oh) {
    const float rows_counted = counts != nullptr ? static_cast<float>(window_count(oh, g.sh, g.ph, g.ph_end, g.kh,
                                                                                   g.h, g.include_pad))
                                                 : 1.0f;
    for (int64_t ow0 = 0; ow0 < s.owp; ow0 += kW) {
      vf acc = id;
      for (int64_t i = 0; i < g.kh; ++i) {
        const int64_t ih = oh * g.sh - g.ph + i * g.dh;
        if (ih >= 0 && ih < g.h) acc = op(acc, load(rows + ih * s.owp + ow0));
      }
      if (counts != nullptr) {
        const vf count = load(counts + ow0) * rows_counted;
        acc = count > 0.0f ? acc / count : vf{};
      }
      if (ow0 < g.ow) store_first(y + oh * g.ow + ow0, acc, imin(kW, g.ow - ow0));
    }
  }
}

void max_plane(const PoolGeometry& g, const float* x, float* work, float* y) {
  if (!separable(g)) {
    max_by_taps(g, x, y);
    return;
  }
  separable_plane(g, x, work, -__builtin_inff(), [](vf a, vf b) { return vmax(a, b); }, nullptr, y);
}

void average_plane(const PoolGeometry& g, const float* x, float* work, float* y) {
  if (!separable(g)) {
    average_by_taps(g, x, y);
    return;
  }
  const Separable s = separable_shape(g);
  float* counts = work + s.row + g.h * s.owp;
  for (int64_t ow = 0; ow < s.owp; ++ow)
    counts[ow] = ow < g.ow ? static_cast<float>(window_count(ow, g.sw, g.pw, g.pw_end, g.kw, g.w, g.include_pad)) : 1.0f;
  separable_plane(g, x, work, 0.0f, [](vf a, vf b) { return a + b; }, counts, y);
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
const PoolRows pool_rows_table = {work_floats, max_plane, average_plane, global_planes};

}  // namespace ascendsim::kernels::ASCENDSIM_ISA_NS
