// Resize, modes nearest, linear and cubic (IR form: inputs (x, None, scales, sizes); the output shape is static).
//
// Per axis the output coordinate maps to an input coordinate by coordinate_transformation_mode
// (half_pixel, half_pixel_symmetric, pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nearest)
// with the scale from `scales` when given, else out/in. Each output index of an axis has taps (input index, weight): nearest
// one (nearest_mode round_prefer_floor, round_prefer_ceil, floor, ceil), linear two (the coordinate clamped to
// the axis), cubic four at floor(x)-1 .. floor(x)+2 with Keys' coefficients of cubic_coeff_a, indices clamped to
// the edge (exclude_outside: taps outside get weight 0 and the rest are renormalized), as onnxruntime computes
// them. An output element sums the products of its taps over the resized axes (1-D, 2-D or more: t^k terms,
// k = resized axes). Tap tables are built at load, so run() only gathers.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/kernel_util.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

struct AxisMap {
  int taps = 1;                 // per output index: 1 (nearest, or an axis not resized), 2 (linear), 4 (cubic)
  std::vector<int64_t> index;   // taps entries per output index
  std::vector<float> weight;
  void add(const int64_t* i, const float* w, int n) {
    index.insert(index.end(), i, i + n);
    weight.insert(weight.end(), w, w + n);
  }
};

// Keys' cubic convolution weights of the taps at floor(x) - 1 .. floor(x) + 2 for t = x - floor(x).
void cubic_weights(double t, double a, float* w) {
  const double d[4] = {t + 1, t, 1 - t, 2 - t};
  for (int k = 0; k < 4; ++k) {
    const double x = d[k];
    w[k] = static_cast<float>(x <= 1 ? ((a + 2) * x - (a + 3)) * x * x + 1 : ((a * x - 5 * a) * x + 8 * a) * x - 4 * a);
  }
}

std::unique_ptr<Kernel> make_resize(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.empty() || spec.outputs.empty()) return refuse(spec, error, "needs an input and an output");
  aclDataType d = spec.inputs[0].dtype;
  bool is_float = d == ACL_FLOAT || d == ACL_FLOAT16;
  if (!is_float && !(d == ACL_UINT8 || d == ACL_INT8 || d == ACL_INT32 || d == ACL_INT64))
    return refuse(spec, error, std::string("dtype ") + dtype_name(d) + " is not supported");
  const Attrs empty;
  const Attrs& a = spec.attrs ? *spec.attrs : empty;
  std::string mode = a.get_string("mode", "nearest");
  if (mode != "nearest" && mode != "linear" && mode != "cubic") return refuse(spec, error, "mode='" + mode + "' is not supported (nearest, linear, cubic)");
  if (mode != "nearest" && !is_float) return refuse(spec, error, mode + " mode needs FLOAT or FLOAT16");
  const double cubic_a = a.get_float("cubic_coeff_a", -0.75);
  const bool exclude_outside = a.get_int("exclude_outside", 0) != 0;
  std::string ctm = a.get_string("coordinate_transformation_mode", "half_pixel");
  if (ctm != "half_pixel" && ctm != "half_pixel_symmetric" && ctm != "pytorch_half_pixel" && ctm != "align_corners" && ctm != "asymmetric" &&
      ctm != "tf_half_pixel_for_nearest")
    return refuse(spec, error, "coordinate_transformation_mode='" + ctm + "' is not supported");
  std::string nearest = a.get_string("nearest_mode", "round_prefer_floor");
  if (nearest != "round_prefer_floor" && nearest != "round_prefer_ceil" && nearest != "floor" && nearest != "ceil")
    return refuse(spec, error, "nearest_mode='" + nearest + "' is not supported");
  if (a.get_int("antialias", 0) != 0) return refuse(spec, error, "antialias=1 is not supported");
  if (a.get_string("keep_aspect_ratio_policy", "stretch") != "stretch") return refuse(spec, error, "keep_aspect_ratio_policy other than 'stretch' is not supported");
  const auto &xd = spec.inputs[0].dims, &od = spec.outputs[0].dims;
  size_t rank = xd.size();
  if (rank == 0 || rank > static_cast<size_t>(kMaxRank)) return refuse(spec, error, "input rank must be 1..8");
  if (od.size() != rank) return refuse(spec, error, "output rank differs from the input's");
  std::vector<double> scales(rank, 0.0);
  bool has_scales = spec.inputs.size() > 2 && (spec.present.size() <= 2 || spec.present[2]) && spec.inputs[2].numel() == static_cast<int64_t>(rank);
  if (has_scales) {
    if (spec.inputs[2].dtype != ACL_FLOAT) return refuse(spec, error, "scales must be FLOAT");
    if (spec.constant_data.size() <= 2 || spec.constant_data[2] == nullptr) return refuse(spec, error, "scales must be a constant");
    for (size_t i = 0; i < rank; ++i) scales[i] = static_cast<const float*>(spec.constant_data[2])[i];
  }
  for (size_t i = 0; i < rank; ++i)
    if (scales[i] <= 0) scales[i] = xd[i] > 0 ? static_cast<double>(od[i]) / static_cast<double>(xd[i]) : 1.0;
  std::vector<AxisMap> maps(rank);
  std::vector<size_t> resized;
  for (size_t ax = 0; ax < rank; ++ax) {
    int64_t in = xd[ax], out = od[ax];
    AxisMap& m = maps[ax];
    const float one = 1.0f;
    if (in == out && scales[ax] == 1.0) {
      for (int64_t o = 0; o < out; ++o) m.add(&o, &one, 1);
      continue;
    }
    resized.push_back(ax);
    m.taps = mode == "nearest" ? 1 : mode == "linear" ? 2 : 4;
    for (int64_t o = 0; o < out; ++o) {
      double s = scales[ax], x;
      if (ctm == "half_pixel") x = (o + 0.5) / s - 0.5;
      else if (ctm == "half_pixel_symmetric") x = in / 2.0 * (1 - out / (in * s)) + (o + 0.5) / s - 0.5;  // centred
      else if (ctm == "pytorch_half_pixel") x = out > 1 ? (o + 0.5) / s - 0.5 : 0.0;
      else if (ctm == "align_corners") x = out > 1 ? static_cast<double>(o) * (in - 1) / static_cast<double>(out - 1) : 0.0;
      else if (ctm == "tf_half_pixel_for_nearest") x = (o + 0.5) / s;
      else x = o / s;
      if (mode == "nearest") {
        double r;
        if (nearest == "floor") r = std::floor(x);
        else if (nearest == "ceil") r = std::ceil(x);
        else if (nearest == "round_prefer_ceil") r = std::floor(x + 0.5);
        else r = (x - std::floor(x) == 0.5) ? std::floor(x) : std::round(x);
        int64_t i = std::clamp<int64_t>(static_cast<int64_t>(r), 0, in - 1);
        m.add(&i, &one, 1);
      } else if (mode == "linear") {
        x = std::clamp(x, 0.0, static_cast<double>(in - 1));
        int64_t lo = static_cast<int64_t>(std::floor(x)), hi = std::min(lo + 1, in - 1);
        const float w = static_cast<float>(x - static_cast<double>(lo));
        const int64_t i[2] = {lo, hi};
        const float wt[2] = {1.0f - w, w};
        m.add(i, wt, 2);
      } else {
        x = std::clamp(x, -static_cast<double>(in) - 4, 2.0 * static_cast<double>(in) + 4);  // (keeps the conversion defined)
        const double base = std::floor(x);
        int64_t i[4];
        float w[4];
        cubic_weights(x - base, cubic_a, w);
        float total = 0;
        for (int k = 0; k < 4; ++k) {
          const int64_t at = static_cast<int64_t>(base) - 1 + k;
          if (exclude_outside && (at < 0 || at >= in)) w[k] = 0;
          total += w[k];
          i[k] = std::clamp<int64_t>(at, 0, in - 1);
        }
        if (exclude_outside && total != 0)
          for (float& v : w) v /= total;
        m.add(i, w, 4);
      }
    }
  }
  if (resized.size() > 6) return refuse(spec, error, "more than 6 resized axes");
  const bool gather = mode == "nearest";
  size_t terms = 1;
  for (size_t ax : resized) terms *= static_cast<size_t>(maps[ax].taps);
  TensorDesc in_desc = spec.inputs[0], out_desc = spec.outputs[0];
  auto xs = contiguous_strides(xd);
  int64_t inner = od.empty() ? 1 : od.back(), rows = inner == 0 ? 0 : out_desc.numel() / inner;
  return make_lambda_kernel([=](const void* const* inputs, void* const* outputs) {
    if (rows == 0) return;
    const float* x = is_float ? float_input(in_desc, inputs[0], false, 1) : nullptr;
    float* y = out_desc.dtype == ACL_FLOAT ? static_cast<float*>(outputs[0])
               : is_float ? scratch_floats(3, static_cast<size_t>(out_desc.numel())) : nullptr;
    size_t elem = aclDataTypeSize(in_desc.dtype);
    parallel_for(rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(inner, 1)), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        int64_t idx[kMaxRank] = {0}, rem = r;
        for (size_t ax = rank - 1; ax-- > 0;) {
          idx[ax] = rem % od[ax];
          rem /= od[ax];
        }
        for (int64_t j = 0; j < inner; ++j) {
          idx[rank - 1] = j;
          if (gather) {
            int64_t off = 0;
            for (size_t ax = 0; ax < rank; ++ax) off += maps[ax].index[static_cast<size_t>(idx[ax])] * xs[ax];
            if (x != nullptr) {
              y[r * inner + j] = x[off];
            } else {
              std::memcpy(static_cast<uint8_t*>(outputs[0]) + (r * inner + j) * static_cast<int64_t>(elem),
                          static_cast<const uint8_t*>(inputs[0]) + off * static_cast<int64_t>(elem), elem);
            }
            continue;
          }
          int64_t base = 0;  // the axes not resized
          for (size_t ax = 0; ax < rank; ++ax)
            if (maps[ax].taps == 1) base += maps[ax].index[static_cast<size_t>(idx[ax])] * xs[ax];
          float acc = 0.0f;
          for (size_t c = 0; c < terms; ++c) {  // one tap per resized axis, the first axis fastest
            float weight = 1.0f;
            int64_t off = base;
            for (size_t k = 0, rest = c; k < resized.size(); ++k) {
              const AxisMap& m = maps[resized[k]];
              const size_t at = static_cast<size_t>(idx[resized[k]]) * static_cast<size_t>(m.taps) + rest % static_cast<size_t>(m.taps);
              rest /= static_cast<size_t>(m.taps);
              weight *= m.weight[at];
              off += m.index[at] * xs[resized[k]];
            }
            if (weight != 0.0f) acc += weight * x[off];
          }
          y[r * inner + j] = acc;
        }
      }
    });
    if (is_float && out_desc.dtype != ACL_FLOAT) store_float(out_desc.dtype, y, out_desc.numel(), outputs[0], 0);
  });
}

}  // namespace

ASCENDSIM_KERNEL(Resize, "", make_resize);

}  // namespace ascendsim::kernels
