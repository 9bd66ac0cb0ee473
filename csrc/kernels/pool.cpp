// MaxPool / AveragePool (1-D and 2-D NCHW: kernel_shape, strides, pads, dilations for MaxPool, ceil_mode,
// count_include_pad, auto_pad; and 3-D whose last axis has kernel 1, stride 1 and no pads, a 2-D pool of pixels
// of several floats: the NC1HWC0 pools of the layout pass, [N, C1, H, W, 16]) and GlobalAveragePool /
// GlobalMaxPool.
//
// Each (image, channel) plane is pooled independently (parallel_for over planes). Window bounds follow
// onnxruntime: a window starts at o*stride - pad_begin; for averages with count_include_pad the divisor
// counts the window clipped to the padded extent (input + end pad), otherwise only the input elements it
// covers. The planes run separably or tap by tap over whole output rows, in vectors (simd/pool_rows.cpp); planes
// narrower than a few vectors, 16 at a time as the lanes of one plane of pixels (transposed in and out). The
// output shape is the one the compiler computed (ceil_mode included) and is checked here.
#include <algorithm>

#include "kernels/kernel_util.h"
#include "kernels/simd/pool_rows.h"
#include "kernels/simd/row_loops.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

// Planes narrower than this pool kLanes at a time as the lanes of one plane of pixels (transposed in and out):
// along their rows a vector was mostly empty or masked (ShuffleNet's 3x3 stride-2 average pool of 480 planes of
// 14x14: 44.5 us, onnxruntime's blocked pool 6 us plus its reorders).
constexpr int64_t kNarrowPlaneWidth = 32;
constexpr int64_t kLanes = 16;

std::unique_ptr<Kernel> make_pool(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.empty() || spec.outputs.empty()) return refuse(spec, error, "needs an input and an output");
  aclDataType d = spec.inputs[0].dtype;
  if ((d != ACL_FLOAT && d != ACL_FLOAT16) || spec.outputs[0].dtype != d)
    return refuse(spec, error, std::string("dtype ") + dtype_name(d) + " is not supported (FLOAT, FLOAT16)");
  if (spec.outputs.size() > 1) return refuse(spec, error, "the Indices output is not supported");
  const auto& xd = spec.inputs[0].dims;
  if (xd.size() < 3 || xd.size() > 5) return refuse(spec, error, "only 1-D and 2-D pooling is supported (and 3-D of kernel 1 on the last axis), input " + dims_str(xd));
  const Attrs empty;
  const Attrs& a = spec.attrs ? *spec.attrs : empty;
  size_t sp = xd.size() - 2;
  auto kernel = a.get_ints("kernel_shape"), strides = a.get_ints("strides"), pads = a.get_ints("pads"), dil = a.get_ints("dilations");
  if (kernel.size() != sp) return refuse(spec, error, "kernel_shape " + dims_str(kernel) + " does not match input rank");
  if (strides.empty()) strides.assign(sp, 1);
  if (dil.empty()) dil.assign(sp, 1);
  if (pads.empty()) pads.assign(2 * sp, 0);
  if (strides.size() != sp || dil.size() != sp || pads.size() != 2 * sp) return refuse(spec, error, "strides/pads/dilations do not match the spatial rank");
  int64_t lanes = 1;
  if (sp == 3) {  // pixels of xd[4] floats, pooled over the first two axes
    if (kernel[2] != 1 || strides[2] != 1 || dil[2] != 1 || pads[2] != 0 || pads[5] != 0)
      return refuse(spec, error, "only 1-D and 2-D pooling is supported (3-D needs kernel 1, stride 1, dilation 1 and no pads on "
                                 "the last axis), given kernel_shape " + dims_str(kernel) + ", strides " + dims_str(strides) +
                                 ", pads " + dims_str(pads));
    lanes = xd[4];
    kernel.pop_back();
    strides.pop_back();
    dil.pop_back();
    pads = {pads[0], pads[1], pads[3], pads[4]};
    sp = 2;
  }
  std::string auto_pad = a.get_string("auto_pad", "NOTSET");
  bool ceil_mode = a.get_int("ceil_mode", 0) != 0;
  if (sp == 1) {
    kernel.insert(kernel.begin(), 1);
    strides.insert(strides.begin(), 1);
    dil.insert(dil.begin(), 1);
    pads = {0, pads[0], 0, pads[1]};
  }
  int64_t sizes[2] = {sp == 1 ? 1 : xd[2], sp == 1 ? xd[2] : xd[3]};
  if (std::string why = window_attrs_problem({sizes[0], sizes[1]}, kernel, strides, dil, pads); !why.empty())
    return refuse(spec, error, why);
  if (!resolve_auto_pad(auto_pad, {sizes[0], sizes[1]}, kernel, strides, dil, &pads))
    return refuse(spec, error, "auto_pad='" + auto_pad + "' is not supported");
  PoolGeometry g;
  g.max = spec.op_type == "MaxPool";
  g.include_pad = a.get_int("count_include_pad", 0) != 0;
  if (!g.max && (dil[0] != 1 || dil[1] != 1)) return refuse(spec, error, "dilations are not supported for AveragePool");
  g.planes = xd[0] * xd[1];
  g.h = sizes[0]; g.w = sizes[1];
  g.lanes = lanes;
  g.kh = kernel[0]; g.kw = kernel[1]; g.sh = strides[0]; g.sw = strides[1]; g.dh = dil[0]; g.dw = dil[1];
  g.ph = pads[0]; g.pw = pads[1]; g.ph_end = pads[2]; g.pw_end = pads[3];
  int64_t out[2];
  for (size_t i = 0; i < 2; ++i) {
    int64_t span = sizes[i] + pads[i] + pads[i + 2] - dil[i] * (kernel[i] - 1) - 1;
    if (span < 0 || strides[i] < 1) return refuse(spec, error, "the window is larger than the padded input");
    int64_t count = (ceil_mode ? (span + strides[i] - 1) / strides[i] : span / strides[i]) + 1;
    if (ceil_mode && (count - 1) * strides[i] >= sizes[i] + pads[i]) --count;
    out[i] = count;
  }
  g.oh = out[0]; g.ow = out[1];
  std::vector<int64_t> want = {xd[0], xd[1]};
  if (xd.size() > 3) want.push_back(g.oh);
  want.push_back(g.ow);
  if (xd.size() == 5) want.push_back(lanes);
  if (spec.outputs[0].dims != want) return refuse(spec, error, "output shape " + dims_str(spec.outputs[0].dims) + " is not " + dims_str(want));
  TensorDesc in = spec.inputs[0], od = spec.outputs[0];
  return make_lambda_kernel([g, in, od](const void* const* inputs, void* const* outputs) {
    const float* x = float_input(in, inputs[0], false, 1);
    float* y = od.dtype == ACL_FLOAT ? static_cast<float*>(outputs[0]) : scratch_floats(3, static_cast<size_t>(od.numel()));
    const PoolRows& rows = pool_rows();
    const auto planes = g.max ? rows.max_planes : rows.average_planes;
    const int64_t work_floats = g.lanes > 1 ? 0 : rows.work_floats(g);
    const int64_t in_plane = g.h * g.w * g.lanes, out_plane = g.oh * g.ow * g.lanes;
    const int64_t grain = std::max<int64_t>(1, 4096 / std::max<int64_t>(out_plane * g.kh * g.kw, 1));
    if (g.lanes == 1 && g.w < kNarrowPlaneWidth && g.planes >= kLanes) {  // narrow planes: kLanes at a time as lanes
      PoolGeometry pixels_of_lanes = g;
      pixels_of_lanes.lanes = kLanes;
      const int64_t groups = g.planes / kLanes;
      const RowLoops& loops = row_loops();
      parallel_for(groups, std::max<int64_t>(1, grain / kLanes), [&](int64_t q0, int64_t q1) {
        float* pixels = scratch_floats(6, static_cast<size_t>(in_plane * kLanes));
        float* pooled = scratch_floats(7, static_cast<size_t>(out_plane * kLanes));
        for (int64_t q = q0; q < q1; ++q) {
          const float* from = x + q * kLanes * in_plane;
          loops.transpose(reinterpret_cast<const uint32_t*>(from), in_plane, kLanes, in_plane,
                          reinterpret_cast<uint32_t*>(pixels), kLanes);
          rows.lanes_planes(pixels_of_lanes, pixels, 1, pooled);
          loops.transpose(reinterpret_cast<const uint32_t*>(pooled), kLanes, out_plane, kLanes,
                          reinterpret_cast<uint32_t*>(y + q * kLanes * out_plane), out_plane);
        }
      });
      const int64_t rest = groups * kLanes;  // the last planes, fewer than kLanes
      if (rest < g.planes)
        planes(g, x + rest * in_plane, g.planes - rest, scratch_floats(6, static_cast<size_t>(work_floats)), y + rest * out_plane);
    } else {
      parallel_for(g.planes, grain, [&](int64_t p0, int64_t p1) {
        if (g.lanes > 1) {
          rows.lanes_planes(g, x + p0 * in_plane, p1 - p0, y + p0 * out_plane);
        } else {
          planes(g, x + p0 * in_plane, p1 - p0, scratch_floats(6, static_cast<size_t>(work_floats)), y + p0 * out_plane);
        }
      });
    }
    if (od.dtype != ACL_FLOAT) store_float(od.dtype, y, od.numel(), outputs[0], 0);
  });
}

std::unique_ptr<Kernel> make_global_pool(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.empty() || spec.outputs.empty()) return refuse(spec, error, "needs an input and an output");
  aclDataType d = spec.inputs[0].dtype;
  if ((d != ACL_FLOAT && d != ACL_FLOAT16) || spec.outputs[0].dtype != d)
    return refuse(spec, error, std::string("dtype ") + dtype_name(d) + " is not supported (FLOAT, FLOAT16)");
  const auto& xd = spec.inputs[0].dims;
  if (xd.size() < 3) return refuse(spec, error, "input rank must be >= 3");
  std::vector<int64_t> want(xd.size(), 1);
  want[0] = xd[0];
  want[1] = xd[1];
  if (spec.outputs[0].dims != want) return refuse(spec, error, "output shape " + dims_str(spec.outputs[0].dims) + " is not " + dims_str(want));
  int64_t planes = xd[0] * xd[1], len = product(xd, 2);
  bool max = spec.op_type == "GlobalMaxPool";
  TensorDesc in = spec.inputs[0], od = spec.outputs[0];
  return make_lambda_kernel([=](const void* const* inputs, void* const* outputs) {
    const float* x = float_input(in, inputs[0], false, 1);
    float* y = od.dtype == ACL_FLOAT ? static_cast<float*>(outputs[0]) : scratch_floats(3, static_cast<size_t>(planes));
    parallel_for(planes, std::max<int64_t>(1, 16384 / std::max<int64_t>(len, 1)), [&](int64_t p0, int64_t p1) {
      pool_rows().global_planes(x + p0 * len, p1 - p0, len, max, y + p0);
    });
    if (od.dtype != ACL_FLOAT) store_float(od.dtype, y, planes, outputs[0], 0);
  });
}

}  // namespace

ASCENDSIM_KERNEL(MaxPool, "", make_pool);
ASCENDSIM_KERNEL(AveragePool, "", make_pool);
ASCENDSIM_KERNEL(GlobalAveragePool, "", make_global_pool);
ASCENDSIM_KERNEL(GlobalMaxPool, "", make_global_pool);

}  // namespace ascendsim::kernels
