// Reductions: ReduceMean/Sum/Max/Min/Prod/L1/L2/SumSquare/LogSumExp (attribute `axes`, absent = all axes;
// `keepdims`) and ArgMax/ArgMin (axis, keepdims, select_last_index; int64 output).
//
// The input is viewed as kept dims x reduced dims. Each output element walks its reduced elements with an
// odometer over the reduced dims' strides (the last reduced dim is the innermost, usually stride 1);
// output elements are split over threads. A float Sum/Mean/Max/Min over a run of axes followed by kept axes
// (a blocked layout's spatial mean) instead combines whole rows (reduce_rows). Float values accumulate in
// double; integer inputs (shape arithmetic) are reduced exactly in int64 for Sum/Max/Min/Prod.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "kernels/kernel_util.h"
#include "kernels/layout.h"
#include "kernels/simd/row_loops.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

enum RedOp { kMean, kSum, kMax, kMin, kProd, kL1, kL2, kSumSquare, kLogSumExp };

struct Layout {
  std::vector<int64_t> keep_dims, keep_strides, red_dims, red_strides;
  int64_t out_count = 1, red_count = 1;
  int64_t base(int64_t o) const {
    int64_t off = 0;
    for (size_t d = keep_dims.size(); d-- > 0;) {
      off += (o % keep_dims[d]) * keep_strides[d];
      o /= keep_dims[d];
    }
    return off;
  }
  // Calls fn(offset) for every reduced element of the output element at `base`.
  template <class Fn>
  void walk(int64_t base_off, Fn fn) const {
    if (red_dims.empty()) {
      fn(base_off);
      return;
    }
    size_t last = red_dims.size() - 1;
    int64_t outer = red_count / std::max<int64_t>(red_dims[last], 1);
    int64_t idx[kMaxRank] = {0};  // red_dims.size() <= kMaxRank
    for (int64_t o = 0; o < outer; ++o) {
      int64_t off = base_off;
      for (size_t d = 0; d < last; ++d) off += idx[d] * red_strides[d];
      for (int64_t i = 0; i < red_dims[last]; ++i) fn(off + i * red_strides[last]);
      for (size_t d = last; d-- > 0;) {
        if (++idx[d] < red_dims[d]) break;
        idx[d] = 0;
      }
    }
  }
};

// The input as [outer, len, inner] when the reduced axes (size-1 axes aside) are one consecutive run with
// kept axes after it (inner > 1), e.g. a blocked layout's spatial mean; else inner == 0.
struct RowRun {
  int64_t outer = 1, len = 1, inner = 0;
};

RowRun row_run(const std::vector<int64_t>& dims, const std::vector<bool>& reduced) {
  RowRun r;
  int phase = 0;  // 0: kept axes before the run, 1: in the run, 2: kept axes after it
  int64_t inner = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 1) continue;
    if (reduced[i]) {
      if (phase == 2) return RowRun{};
      phase = 1;
      r.len *= dims[i];
    } else if (phase == 0) {
      r.outer *= dims[i];
    } else {
      phase = 2;
      inner *= dims[i];
    }
  }
  if (phase == 2) r.inner = inner;
  return r;
}

// Sum / Mean / Max / Min of a RowRun: rows of `inner` values are combined whole (vectorizable loops rather
// than one strided walk per output); sums accumulate in double as the general path does, lines of 16 in the
// variant's loop (row_loops line_sums: EfficientNet-B0's 144 x 56 x 56 blocked squeeze 61 -> 18 us, onnxruntime 22).
void reduce_rows(RedOp op, const RowRun& r, const float* x, float* y) {
  constexpr int64_t kChunk = 256;  // inner values per unit: the double accumulators stay in L1
  const int64_t chunks = (r.inner + kChunk - 1) / kChunk;
  parallel_for(r.outer * chunks, std::max<int64_t>(1, 16384 / std::max<int64_t>(r.len * kChunk, 1)), [&](int64_t u0, int64_t u1) {
    double acc[kChunk];
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t o = u / chunks, j0 = (u % chunks) * kChunk, n = std::min(kChunk, r.inner - j0);
      const float* src = x + o * r.len * r.inner + j0;
      float* dst = y + o * r.inner + j0;
      if (op == kMax || op == kMin) {
        std::copy(src, src + n, dst);
        for (int64_t i = 1; i < r.len; ++i) {
          const float* row = src + i * r.inner;
          if (op == kMax) {
            for (int64_t j = 0; j < n; ++j) dst[j] = std::max(dst[j], row[j]);
          } else {
            for (int64_t j = 0; j < n; ++j) dst[j] = std::min(dst[j], row[j]);
          }
        }
        continue;
      }
      if (n % kUnit == 0) {  // whole lines of 16 (a blocked plane): the variant's loop, its sums in registers
        for (int64_t j = 0; j < n; j += kUnit) row_loops().line_sums(src + j, r.len, r.inner, acc + j);
      } else {
        std::fill(acc, acc + n, 0.0);
        for (int64_t i = 0; i < r.len; ++i) {
          const float* row = src + i * r.inner;
          for (int64_t j = 0; j < n; ++j) acc[j] += row[j];
        }
      }
      const double scale = op == kMean ? 1.0 / static_cast<double>(r.len) : 1.0;
      for (int64_t j = 0; j < n; ++j) dst[j] = static_cast<float>(acc[j] * scale);
    }
  });
}

Layout make_layout(const std::vector<int64_t>& dims, const std::vector<bool>& reduced) {
  Layout l;
  auto strides = contiguous_strides(dims);
  for (size_t i = 0; i < dims.size(); ++i) {
    if (reduced[i]) {
      l.red_dims.push_back(dims[i]);
      l.red_strides.push_back(strides[i]);
      l.red_count *= dims[i];
    } else {
      l.keep_dims.push_back(dims[i]);
      l.keep_strides.push_back(strides[i]);
      l.out_count *= dims[i];
    }
  }
  return l;
}

bool parse_axes(const NodeSpec& spec, const std::vector<int64_t>& given, size_t rank, std::vector<bool>* reduced, std::string* error) {
  reduced->assign(rank, given.empty());
  for (int64_t a : given) {
    int64_t axis = 0;
    if (!norm_axis(a, static_cast<int64_t>(rank), &axis))
      return fail_spec(spec, error, "axes value " + std::to_string(a) + " is out of range for rank " + std::to_string(rank));
    (*reduced)[static_cast<size_t>(axis)] = true;
  }
  return true;
}

std::vector<int64_t> reduced_shape(const std::vector<int64_t>& dims, const std::vector<bool>& reduced, bool keep) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (!reduced[i]) out.push_back(dims[i]);
    else if (keep) out.push_back(1);
  }
  return out;
}

std::unique_ptr<Kernel> make_reduce(const NodeSpec& spec, std::string* error) {
  static const std::map<std::string, RedOp> ops = {
      {"ReduceMean", kMean}, {"ReduceSum", kSum}, {"ReduceMax", kMax}, {"ReduceMin", kMin}, {"ReduceProd", kProd},
      {"ReduceL1", kL1}, {"ReduceL2", kL2}, {"ReduceSumSquare", kSumSquare}, {"ReduceLogSumExp", kLogSumExp}};
  RedOp op = ops.at(spec.op_type);
  if (spec.inputs.empty() || spec.outputs.empty()) return refuse(spec, error, "needs an input and an output");
  if (spec.inputs.size() > 1 && (spec.present.size() <= 1 || spec.present[1]))
    return refuse(spec, error, "axes must be the attribute 'axes' (the compiler's IR form)");
  aclDataType d = spec.inputs[0].dtype;
  bool is_int = d == ACL_INT32 || d == ACL_INT64;
  if (d != ACL_FLOAT && d != ACL_FLOAT16 && !is_int) return refuse(spec, error, std::string("dtype ") + dtype_name(d) + " is not supported");
  if (is_int && op != kSum && op != kMax && op != kMin && op != kProd && op != kMean)
    return refuse(spec, error, std::string("dtype ") + dtype_name(d) + " is not supported for this reduction");
  if (spec.outputs[0].dtype != d) return refuse(spec, error, "output dtype differs from the input's");
  const auto& dims = spec.inputs[0].dims;
  if (dims.size() > static_cast<size_t>(kMaxRank)) return refuse(spec, error, "rank above 8 is not supported");
  std::vector<bool> reduced;
  if (!parse_axes(spec, spec.attrs ? spec.attrs->get_ints("axes") : std::vector<int64_t>{}, dims.size(), &reduced, error)) return nullptr;
  bool keep = !spec.attrs || spec.attrs->get_int("keepdims", 1) != 0;
  auto want = reduced_shape(dims, reduced, keep);
  if (spec.outputs[0].dims != want) return refuse(spec, error, "output shape " + dims_str(spec.outputs[0].dims) + " is not " + dims_str(want));
  Layout l = make_layout(dims, reduced);
  RowRun rows = row_run(dims, reduced);
  if (is_int || (op != kMean && op != kSum && op != kMax && op != kMin) || spec.inputs[0].numel() == 0) rows.inner = 0;
  TensorDesc in = spec.inputs[0], od = spec.outputs[0];
  return make_lambda_kernel([l, rows, in, od, op, is_int](const void* const* inputs, void* const* outputs) {
    int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(l.red_count, 1));
    if (is_int) {
      parallel_for(l.out_count, grain, [&](int64_t o0, int64_t o1) {
        for (int64_t o = o0; o < o1; ++o) {
          int64_t acc = op == kMax ? std::numeric_limits<int64_t>::min() : op == kMin ? std::numeric_limits<int64_t>::max() : op == kProd ? 1 : 0;
          l.walk(l.base(o), [&](int64_t off) {
            int64_t v = read_index(in.dtype, inputs[0], off);
            // Sums and products wrap as two's complement, computed unsigned (signed overflow is undefined).
            const auto ua = static_cast<uint64_t>(acc), uv = static_cast<uint64_t>(v);
            acc = op == kMax ? std::max(acc, v) : op == kMin ? std::min(acc, v) : static_cast<int64_t>(op == kProd ? ua * uv : ua + uv);
          });
          if (op == kMean) acc = l.red_count ? acc / l.red_count : 0;
          store_int(od.dtype, &acc, 1, outputs[0], o);
        }
      });
      return;
    }
    const float* x = float_input(in, inputs[0], false, 1);
    float* y = od.dtype == ACL_FLOAT ? static_cast<float*>(outputs[0]) : scratch_floats(3, static_cast<size_t>(l.out_count));
    if (rows.inner > 0) {
      reduce_rows(op, rows, x, y);
      if (od.dtype != ACL_FLOAT) store_float(od.dtype, y, l.out_count, outputs[0], 0);
      return;
    }
    parallel_for(l.out_count, grain, [&](int64_t o0, int64_t o1) {
      for (int64_t o = o0; o < o1; ++o) {
        int64_t base = l.base(o);
        double acc = 0;
        switch (op) {
          case kMax: {
            float m = -std::numeric_limits<float>::infinity();
            l.walk(base, [&](int64_t off) { m = std::max(m, x[off]); });
            acc = m;
            break;
          }
          case kMin: {
            float m = std::numeric_limits<float>::infinity();
            l.walk(base, [&](int64_t off) { m = std::min(m, x[off]); });
            acc = m;
            break;
          }
          case kProd:
            acc = 1;
            l.walk(base, [&](int64_t off) { acc *= x[off]; });
            break;
          case kL1: l.walk(base, [&](int64_t off) { acc += std::fabs(x[off]); }); break;
          case kL2: case kSumSquare: l.walk(base, [&](int64_t off) { acc += static_cast<double>(x[off]) * x[off]; }); break;
          case kLogSumExp: {
            float m = -std::numeric_limits<float>::infinity();
            l.walk(base, [&](int64_t off) { m = std::max(m, x[off]); });
            l.walk(base, [&](int64_t off) { acc += std::exp(static_cast<double>(x[off]) - m); });
            acc = std::log(acc) + m;
            break;
          }
          default: l.walk(base, [&](int64_t off) { acc += x[off]; }); break;
        }
        if (op == kMean) acc = l.red_count ? acc / static_cast<double>(l.red_count) : std::nan("");
        if (op == kL2) acc = std::sqrt(acc);
        y[o] = static_cast<float>(acc);
      }
    });
    if (od.dtype != ACL_FLOAT) store_float(od.dtype, y, l.out_count, outputs[0], 0);
  });
}

std::unique_ptr<Kernel> make_arg(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.empty() || spec.outputs.empty()) return refuse(spec, error, "needs an input and an output");
  aclDataType d = spec.inputs[0].dtype;
  if (!is_float_dtype(d) && d != ACL_INT32 && d != ACL_INT64 && d != ACL_INT8 && d != ACL_UINT8)
    return refuse(spec, error, std::string("dtype ") + dtype_name(d) + " is not supported");
  if (spec.outputs[0].dtype != ACL_INT64) return refuse(spec, error, "output must be INT64");
  const auto& dims = spec.inputs[0].dims;
  int64_t given = spec.attrs ? spec.attrs->get_int("axis", 0) : 0, axis = 0;
  if (!norm_axis(given, static_cast<int64_t>(dims.size()), &axis))
    return refuse(spec, error, "axis " + std::to_string(given) + " is out of range for rank " + std::to_string(dims.size()));
  if (dims[static_cast<size_t>(axis)] == 0) return refuse(spec, error, "cannot reduce an empty axis");
  bool keep = !spec.attrs || spec.attrs->get_int("keepdims", 1) != 0;
  bool last = spec.attrs && spec.attrs->get_int("select_last_index", 0) != 0;
  std::vector<bool> reduced(dims.size(), false);
  reduced[static_cast<size_t>(axis)] = true;
  if (spec.outputs[0].dims != reduced_shape(dims, reduced, keep))
    return refuse(spec, error, "output shape " + dims_str(spec.outputs[0].dims) + " is not " + dims_str(reduced_shape(dims, reduced, keep)));
  int64_t outer = product(dims, 0, static_cast<size_t>(axis)), len = dims[static_cast<size_t>(axis)];
  int64_t inner = product(dims, static_cast<size_t>(axis) + 1);
  bool is_max = spec.op_type == "ArgMax";
  TensorDesc in = spec.inputs[0];
  return make_lambda_kernel([=](const void* const* inputs, void* const* outputs) {
    const float* x = is_float_dtype(in.dtype) ? float_input(in, inputs[0], false, 1) : nullptr;
    int64_t* y = static_cast<int64_t*>(outputs[0]);
    parallel_for(outer * inner, std::max<int64_t>(1, 16384 / len), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        int64_t base = (r / inner) * len * inner + r % inner;
        auto value = [&](int64_t i) { return x ? static_cast<double>(x[base + i * inner]) : static_cast<double>(read_index(in.dtype, inputs[0], base + i * inner)); };
        double best = value(0);
        int64_t index = 0;
        for (int64_t i = 1; i < len; ++i) {
          double v = value(i);
          bool better = is_max ? (last ? v >= best : v > best) : (last ? v <= best : v < best);
          if (better) {
            best = v;
            index = i;
          }
        }
        y[r] = index;
      }
    });
  });
}

}  // namespace

ASCENDSIM_KERNEL(ReduceMean, "", make_reduce);
ASCENDSIM_KERNEL(ReduceSum, "", make_reduce);
ASCENDSIM_KERNEL(ReduceMax, "", make_reduce);
ASCENDSIM_KERNEL(ReduceMin, "", make_reduce);
ASCENDSIM_KERNEL(ReduceProd, "", make_reduce);
ASCENDSIM_KERNEL(ReduceL1, "", make_reduce);
ASCENDSIM_KERNEL(ReduceL2, "", make_reduce);
ASCENDSIM_KERNEL(ReduceSumSquare, "", make_reduce);
ASCENDSIM_KERNEL(ReduceLogSumExp, "", make_reduce);
ASCENDSIM_KERNEL(ArgMax, "", make_arg);
ASCENDSIM_KERNEL(ArgMin, "", make_arg);

}  // namespace ascendsim::kernels
