// Resize, modes nearest and linear (IR form: inputs (x, None, scales, sizes); the output shape is static).
//
// Per axis the output coordinate maps to an input coordinate by coordinate_transformation_mode
// (half_pixel, pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nearest) with the scale
// from `scales` when given, else out/in. Nearest picks one index per axis (nearest_mode round_prefer_floor,
// round_prefer_ceil, floor, ceil); linear interpolates the resized axes (1-D, 2-D or more: 2^k corners per
// output element, k = resized axes). Index/weight tables are built at load, so run() only gathers.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/kernel_util.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

struct AxisMap {
  std::vector<int64_t> lo, hi;
  std::vector<float> w;  // weight of hi (linear)
};

std::unique_ptr<Kernel> make_resize(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.empty() || spec.outputs.empty()) return refuse(spec, error, "needs an input and an output");
  aclDataType d = spec.inputs[0].dtype;
  bool is_float = d == ACL_FLOAT || d == ACL_FLOAT16;
  if (!is_float && !(d == ACL_UINT8 || d == ACL_INT8 || d == ACL_INT32 || d == ACL_INT64))
    return refuse(spec, error, std::string("dtype ") + dtype_name(d) + " is not supported");
  const Attrs empty;
  const Attrs& a = spec.attrs ? *spec.attrs : empty;
  std::string mode = a.get_string("mode", "nearest");
  if (mode != "nearest" && mode != "linear") return refuse(spec, error, "mode='" + mode + "' is not supported (nearest, linear)");
  if (mode == "linear" && !is_float) return refuse(spec, error, "linear mode needs FLOAT or FLOAT16");
  std::string ctm = a.get_string("coordinate_transformation_mode", "half_pixel");
  if (ctm != "half_pixel" && ctm != "pytorch_half_pixel" && ctm != "align_corners" && ctm != "asymmetric" && ctm != "tf_half_pixel_for_nearest")
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
    if (in == out && scales[ax] == 1.0) {
      for (int64_t o = 0; o < out; ++o) {
        m.lo.push_back(o);
        m.hi.push_back(o);
        m.w.push_back(0.0f);
      }
      continue;
    }
    resized.push_back(ax);
    for (int64_t o = 0; o < out; ++o) {
      double s = scales[ax], x;
      if (ctm == "half_pixel") x = (o + 0.5) / s - 0.5;
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
        m.lo.push_back(i);
        m.hi.push_back(i);
        m.w.push_back(0.0f);
      } else {
        x = std::clamp(x, 0.0, static_cast<double>(in - 1));
        int64_t lo = static_cast<int64_t>(std::floor(x)), hi = std::min(lo + 1, in - 1);
        m.lo.push_back(lo);
        m.hi.push_back(hi);
        m.w.push_back(static_cast<float>(x - static_cast<double>(lo)));
      }
    }
  }
  if (resized.size() > 6) return refuse(spec, error, "more than 6 resized axes");
  bool linear = mode == "linear";
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
          if (!linear) {
            int64_t off = 0;
            for (size_t ax = 0; ax < rank; ++ax) off += maps[ax].lo[static_cast<size_t>(idx[ax])] * xs[ax];
            if (x != nullptr) {
              y[r * inner + j] = x[off];
            } else {
              std::memcpy(static_cast<uint8_t*>(outputs[0]) + (r * inner + j) * static_cast<int64_t>(elem),
                          static_cast<const uint8_t*>(inputs[0]) + off * static_cast<int64_t>(elem), elem);
            }
            continue;
          }
          int64_t base = 0;
          for (size_t ax = 0; ax < rank; ++ax) base += maps[ax].lo[static_cast<size_t>(idx[ax])] * xs[ax];
          float acc = 0.0f;
          size_t corners = size_t(1) << resized.size();
          for (size_t c = 0; c < corners; ++c) {
            float weight = 1.0f;
            int64_t off = base;
            for (size_t k = 0; k < resized.size(); ++k) {
              size_t ax = resized[k];
              size_t o = static_cast<size_t>(idx[ax]);
              float w = maps[ax].w[o];
              if (c & (size_t(1) << k)) {
                weight *= w;
                off += (maps[ax].hi[o] - maps[ax].lo[o]) * xs[ax];
              } else {
                weight *= 1.0f - w;
              }
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
