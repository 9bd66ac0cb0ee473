// Lowering of the matrix, convolution, pooling, softmax and reduction families.
//
// MatMul(V2)(x1, x2[, bias]) -> Gemm (transpose_x1/x2 -> transA/transB), 2-D operands.
// BatchMatMul(V2)(x1, x2) -> MatMul with numpy batch broadcasting; adj_x1/adj_x2 transpose the last two axes
//   of an operand before the kernel sees it.
// Conv2D(x, filter[, bias]) in NCHW or NHWC (x's format; for ND x the data_format attribute, CANN's default
//   NHWC): strides/dilations as 4-element lists in that order, pads as [top, bottom, left, right] -> Conv's
//   2-element strides/dilations and [top, left, bottom, right] pads. The Conv kernel is NCHW: an NHWC x is
//   transposed to NCHW before it and its NCHW result back to NHWC after it; the filter is read in its own
//   format (NCHW, NHWC, HWCN; ND as NCHW) and transposed to [Cout, Cin/groups, kh, kw].
// MaxPool/AvgPool (TensorFlow style: ksize/strides 4-element lists, padding SAME/VALID; AvgPool averages
//   over the valid elements only) and MaxPoolV3/AvgPoolV2 (padding_mode CALCULATED/SAME/VALID with explicit
//   pads, ceil_mode, global_pooling; AvgPoolV2 exclusive) -> MaxPool/AveragePool with explicit pads.
// LayerNorm(x, gamma, beta; begin_norm_axis, begin_params_axis, epsilon) -> the ascendsim::LayerNorm adapter
//   (kernels/layer_norm_kernel.cpp) over the axes from begin_norm_axis; gamma and beta cover x's axes from
//   begin_params_axis, which must be begin_norm_axis (the normalised shape); outputs y, and mean and variance
//   with the normalised axes kept as 1.
// SoftmaxV2/LogSoftmaxV2 axes (one axis) -> axis. Reduce*(x, axes) / Reduce*D (axes attribute), keep_dims
//   -> axes/keepdims (empty axes reduce every axis). ArgMaxV2/ArgMin(x, dimension) / ArgMaxD/ArgMinD
//   (dimension attribute), output dtype INT32 (default) or INT64 -> ArgMax/ArgMin keepdims=0.
#include <algorithm>

#include "core/enum_value.h"
#include "kernels/kernel_util.h"
#include "op/lower.h"

namespace ascendsim::op {
namespace {

aclError lower_matmul(LowerCtx& c) {
  if (aclError ret = c.same_dtype(0, 1)) return ret;
  const bool ta = c.out.attrs.get_int("transA", 0) != 0, tb = c.out.attrs.get_int("transB", 0) != 0;
  int64_t m = 0, n = 0;
  if (aclError ret = c.matrix_product(0, 1, ta, tb, "x1 and x2 (BatchMatMul for batches)", &m, &n)) return ret;
  if (c.present(3)) return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "offset_w (quantized weights) is not supported");
  c.pass_inputs(std::min<size_t>(c.call.inputs.size(), 3));
  c.out.out_dtypes = {c.in(0).dtype};
  c.out.out_dims = {{m, n}};
  return ACL_SUCCESS;
}

aclError lower_batch_matmul(LowerCtx& c) {
  if (aclError ret = c.same_dtype(0, 1)) return ret;
  if (c.present(2) || c.present(3))
    return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "bias and offset_w inputs are not supported by ascendsim");
  std::vector<int64_t> d[2] = {c.in(0).dims, c.in(1).dims};
  const char* adj_names[2] = {"adj_x1", "adj_x2"};
  c.out.inputs.clear();
  for (int i = 0; i < 2; ++i) {
    if (d[i].size() < 2)
      return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "x%d %s must have rank 2 or more", i + 1,
                     kernels::dims_str(d[i]).c_str());
    KernelInput in{i, {}};
    if (c.call.attrs.get_int(adj_names[i], 0) != 0) {
      for (size_t k = 0; k < d[i].size(); ++k) in.transpose.push_back(static_cast<int64_t>(k));
      std::swap(in.transpose[d[i].size() - 1], in.transpose[d[i].size() - 2]);
      std::swap(d[i][d[i].size() - 1], d[i][d[i].size() - 2]);
    }
    c.out.inputs.push_back(in);
  }
  if (d[0].back() != d[1][d[1].size() - 2])
    return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "x1 %s and x2 %s (after adj_x1/adj_x2) do not share the reduction dim",
                   kernels::dims_str(c.in(0).dims).c_str(), kernels::dims_str(c.in(1).dims).c_str());
  std::vector<int64_t> batch;
  if (!kernels::broadcast_shapes({std::vector<int64_t>(d[0].begin(), d[0].end() - 2),
                                  std::vector<int64_t>(d[1].begin(), d[1].end() - 2)}, &batch))
    return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "the batch dims of x1 %s and x2 %s do not broadcast",
                   kernels::dims_str(d[0]).c_str(), kernels::dims_str(d[1]).c_str());
  batch.push_back(d[0][d[0].size() - 2]);
  batch.push_back(d[1].back());
  c.out.out_dtypes = {c.in(0).dtype};
  c.out.out_dims = {batch};
  return ACL_SUCCESS;
}

// The spatial (H, W) entries of a 4-element list attribute `name` in NCHW (or, `nhwc`, NHWC) order; `fallback`
// when missing.
aclError hw_pair(LowerCtx& c, const char* name, bool required, int64_t fallback, int64_t out[2], bool nhwc = false) {
  const char* order = nhwc ? "NHWC" : "NCHW";
  std::vector<int64_t> v = c.ints(name);
  if (v.empty()) {
    if (required) return c.error(ACL_ERROR_OP_ATTR_NOT_MATCH, "needs the attribute '%s' (4 values, %s order)", name, order);
    out[0] = out[1] = fallback;
    return ACL_SUCCESS;
  }
  const size_t h = nhwc ? 1 : 2;
  if (v.size() != 4 || v[h] <= 0 || v[h + 1] <= 0)
    return c.error(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute '%s' %s must hold 4 positive values (%s order)", name,
                   kernels::dims_str(v).c_str(), order);
  out[0] = v[h];
  out[1] = v[h + 1];
  return ACL_SUCCESS;
}

// Pads [top, bottom, left, right] -> the kernels' [top, left, bottom, right].
aclError pads4(LowerCtx& c, const char* name, bool required, int64_t out[4]) {
  std::vector<int64_t> v = c.ints(name);
  if (v.empty() && !required) v.assign(4, 0);
  if (v.size() != 4 || *std::min_element(v.begin(), v.end()) < 0)
    return c.error(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute '%s' %s must hold 4 values >= 0 [top, bottom, left, right]",
                   name, kernels::dims_str(v).c_str());
  out[0] = v[0];
  out[1] = v[2];
  out[2] = v[1];
  out[3] = v[3];
  return ACL_SUCCESS;
}

aclError check_nchw(LowerCtx& c) {
  const std::string data_format = c.call.attrs.get_string(
      "data_format", c.in(0).format == ACL_FORMAT_NHWC ? "NHWC" : "NCHW");
  if (data_format != "NCHW" || (c.in(0).format != ACL_FORMAT_NCHW && c.in(0).format != ACL_FORMAT_ND))
    return c.error(ACL_ERROR_FORMAT_NOT_MATCH, "ascendsim runs it in NCHW only (data_format '%s', x format %s)",
                   data_format.c_str(), format_text(c.in(0).format));
  if (c.in(0).dims.size() != 4)
    return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "x %s must be 4-D (NCHW)", kernels::dims_str(c.in(0).dims).c_str());
  return ACL_SUCCESS;
}

int64_t out_size(int64_t in, int64_t pad_total, int64_t window, int64_t stride, bool ceil_mode) {
  const int64_t span = in + pad_total - window;
  return (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
}

// The permutation that takes a 4-D tensor in `format` to NCHW (N, C, H, W read off the format's letters).
std::vector<int64_t> to_nchw(aclFormat format) {
  const std::string letters = format_text(format);
  std::vector<int64_t> perm;
  for (char letter : std::string("NCHW")) perm.push_back(static_cast<int64_t>(letters.find(letter)));
  return perm;
}

// Conv2D's layout: x's format, or for ND x the data_format attribute (CANN's default NHWC); a data_format that
// contradicts x's format is refused.
aclError conv_layout(LowerCtx& c, bool* nhwc) {
  const aclFormat f = c.in(0).format;
  const std::string attr = c.call.attrs.get_string("data_format", "");
  if (f != ACL_FORMAT_NCHW && f != ACL_FORMAT_NHWC && f != ACL_FORMAT_ND)
    return c.error(ACL_ERROR_FORMAT_NOT_MATCH, "x has format %s: ascendsim runs it in NCHW or NHWC", format_text(f));
  const std::string layout = f == ACL_FORMAT_ND ? (attr.empty() ? "NHWC" : attr) : format_text(f);
  if (layout != "NCHW" && layout != "NHWC")
    return c.error(ACL_ERROR_FORMAT_NOT_MATCH, "data_format '%s' is not NCHW or NHWC", layout.c_str());
  if (!attr.empty() && attr != layout)
    return c.error(ACL_ERROR_FORMAT_NOT_MATCH, "data_format '%s' does not match x's format %s", attr.c_str(),
                   layout.c_str());
  if (c.in(0).dims.size() != 4)
    return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "x %s must be 4-D (%s)", kernels::dims_str(c.in(0).dims).c_str(),
                   layout.c_str());
  *nhwc = layout == "NHWC";
  return ACL_SUCCESS;
}

aclError lower_conv(LowerCtx& c) {
  bool nhwc = false;
  if (aclError ret = conv_layout(c, &nhwc)) return ret;
  if (aclError ret = c.same_dtype(0, 1)) return ret;
  if (c.present(3)) return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "offset_w (quantized weights) is not supported");
  const aclFormat wf = c.in(1).format;
  if (wf != ACL_FORMAT_NCHW && wf != ACL_FORMAT_NHWC && wf != ACL_FORMAT_HWCN && wf != ACL_FORMAT_ND)
    return c.error(ACL_ERROR_FORMAT_NOT_MATCH, "filter has format %s: ascendsim reads NCHW, NHWC or HWCN filters",
                   format_text(wf));
  const std::vector<int64_t> x_perm = nhwc ? to_nchw(ACL_FORMAT_NHWC) : std::vector<int64_t>{};
  const std::vector<int64_t> w_perm = wf == ACL_FORMAT_NCHW || wf == ACL_FORMAT_ND ? std::vector<int64_t>{}
                                                                                   : to_nchw(wf);
  std::vector<int64_t> x, w;  // NCHW views
  for (size_t i = 0; i < 4; ++i) x.push_back(c.in(0).dims[x_perm.empty() ? i : static_cast<size_t>(x_perm[i])]);
  if (c.in(1).dims.size() != 4)
    return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "filter %s must be 4-D", kernels::dims_str(c.in(1).dims).c_str());
  for (size_t i = 0; i < 4; ++i) w.push_back(c.in(1).dims[w_perm.empty() ? i : static_cast<size_t>(w_perm[i])]);
  const int64_t groups = c.call.attrs.get_int("groups", 1);
  if (groups <= 0 || x[1] != w[1] * groups || w[0] % groups != 0)
    return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "filter %s (%s) does not fit x %s with groups %lld",
                   kernels::dims_str(c.in(1).dims).c_str(), format_text(wf), kernels::dims_str(c.in(0).dims).c_str(),
                   static_cast<long long>(groups));
  int64_t strides[2], dil[2], pads[4];
  if (aclError ret = hw_pair(c, "strides", true, 1, strides, nhwc)) return ret;
  if (aclError ret = hw_pair(c, "dilations", false, 1, dil, nhwc)) return ret;
  if (aclError ret = pads4(c, "pads", true, pads)) return ret;
  std::vector<int64_t> dims = {x[0], w[0]};
  for (int i = 0; i < 2; ++i) {
    dims.push_back(out_size(x[2 + i], pads[i] + pads[i + 2], dil[i] * (w[2 + i] - 1) + 1, strides[i], false));
    if (dims.back() <= 0)
      return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "the window does not fit x %s", kernels::dims_str(c.in(0).dims).c_str());
  }
  c.out.attrs = {};
  set_ints(c.out.attrs, "strides", {strides[0], strides[1]});
  set_ints(c.out.attrs, "dilations", {dil[0], dil[1]});
  set_ints(c.out.attrs, "pads", {pads[0], pads[1], pads[2], pads[3]});
  set_int(c.out.attrs, "group", groups);
  c.pass_inputs(std::min<size_t>(c.call.inputs.size(), 3));
  c.out.inputs[0].transpose = x_perm;
  c.out.inputs[1].transpose = w_perm;
  c.out.out_dtypes = {c.in(0).dtype};
  if (nhwc) {  // the kernel writes NCHW, transposed to NHWC
    c.out.kernel_out_dims = {dims};
    c.out.out_transpose = {{0, 2, 3, 1}};
    dims = {dims[0], dims[2], dims[3], dims[1]};
  }
  c.out.out_dims = {dims};
  return ACL_SUCCESS;
}

aclError lower_layer_norm(LowerCtx& c) {
  const auto& x = c.in(0).dims;
  int64_t norm = 0, params = 0;
  if (aclError ret = c.axis(c.call.attrs.get_int("begin_norm_axis", 0), x.size(), "begin_norm_axis", &norm)) return ret;
  if (aclError ret = c.axis(c.call.attrs.get_int("begin_params_axis", 0), x.size(), "begin_params_axis", &params))
    return ret;
  if (params != norm)
    return c.error(ACL_ERROR_OP_ATTR_NOT_MATCH, "begin_params_axis %lld differs from begin_norm_axis %lld: ascendsim "
                   "needs gamma and beta over the normalised axes", static_cast<long long>(params),
                   static_cast<long long>(norm));
  const std::vector<int64_t> normalised(x.begin() + norm, x.end());
  for (size_t i = 1; i < 3; ++i)
    if (c.in(i).dims != normalised)
      return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "%s %s must have x's shape from begin_params_axis %s",
                     i == 1 ? "gamma" : "beta", kernels::dims_str(c.in(i).dims).c_str(),
                     kernels::dims_str(normalised).c_str());
  const aclDataType dtype = c.in(0).dtype;
  for (size_t i = 1; i < 3; ++i)
    if (c.in(i).dtype != dtype && c.in(i).dtype != ACL_FLOAT)
      return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "%s is %s: it must be x's dtype %s or FLOAT", i == 1 ? "gamma" : "beta",
                     dtype_text(c.in(i).dtype), dtype_text(dtype));
  std::vector<int64_t> stats(x.begin(), x.begin() + norm);
  stats.resize(x.size(), 1);
  const double epsilon = c.call.attrs.get_float("epsilon", 1e-7);
  c.out.attrs = {};
  c.out.domain = "ascendsim";
  set_int(c.out.attrs, "axis", norm);
  set_float(c.out.attrs, "epsilon", epsilon);
  c.pass_inputs(3);
  c.out.out_dtypes = {dtype, dtype, dtype};
  c.out.out_dims = {x, stats, stats};
  return ACL_SUCCESS;
}

aclError lower_pool(LowerCtx& c) {
  if (aclError ret = check_nchw(c)) return ret;
  const auto& x = c.in(0).dims;
  const bool v_form = c.op.family == Family::PoolV;
  int64_t k[2], s[2], pads[4] = {0, 0, 0, 0};
  bool ceil_mode = false, include_pad = false;
  if (aclError ret = hw_pair(c, "ksize", true, 1, k)) return ret;
  if (aclError ret = hw_pair(c, "strides", true, 1, s)) return ret;
  std::string mode = c.call.attrs.get_string(v_form ? "padding_mode" : "padding", v_form ? "CALCULATED" : "");
  if (v_form && c.call.attrs.get_int("global_pooling", 0) != 0) {
    k[0] = x[2];
    k[1] = x[3];
    mode = "VALID";
  }
  if (mode == "CALCULATED" && v_form) {
    if (aclError ret = pads4(c, "pads", false, pads)) return ret;
    ceil_mode = c.call.attrs.get_int("ceil_mode", 0) != 0;
    include_pad = c.op.kernel == "AveragePool" && c.call.attrs.get_int("exclusive", 1) == 0;
  } else if (mode == "SAME") {
    for (int i = 0; i < 2; ++i) {
      const int64_t o = (x[2 + i] + s[i] - 1) / s[i];
      const int64_t total = std::max<int64_t>(0, (o - 1) * s[i] + k[i] - x[2 + i]);
      pads[i] = total / 2;
      pads[i + 2] = total - total / 2;
    }
  } else if (mode != "VALID") {
    return c.error(ACL_ERROR_OP_ATTR_NOT_MATCH, "%s '%s' is not supported (%s)", v_form ? "padding_mode" : "padding",
                   mode.c_str(), v_form ? "CALCULATED, SAME, VALID" : "SAME, VALID");
  }
  std::vector<int64_t> dims = {x[0], x[1]};
  for (int i = 0; i < 2; ++i) {
    dims.push_back(out_size(x[2 + i], pads[i] + pads[i + 2], k[i], s[i], ceil_mode));
    if (dims.back() <= 0 || k[i] > x[2 + i] + pads[i] + pads[i + 2])
      return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "the window %lldx%lld does not fit x %s", static_cast<long long>(k[0]),
                     static_cast<long long>(k[1]), kernels::dims_str(x).c_str());
  }
  c.out.attrs = {};
  set_ints(c.out.attrs, "kernel_shape", {k[0], k[1]});
  set_ints(c.out.attrs, "strides", {s[0], s[1]});
  set_ints(c.out.attrs, "pads", {pads[0], pads[1], pads[2], pads[3]});
  set_int(c.out.attrs, "ceil_mode", ceil_mode ? 1 : 0);
  set_int(c.out.attrs, "count_include_pad", include_pad ? 1 : 0);
  c.pass_inputs(1);
  c.out.out_dtypes = {c.in(0).dtype};
  c.out.out_dims = {dims};
  return ACL_SUCCESS;
}

aclError lower_softmax(LowerCtx& c) {
  const std::vector<int64_t> axes = c.ints("axes", {-1});
  if (axes.size() != 1)
    return c.error(ACL_ERROR_OP_ATTR_NOT_MATCH, "axes %s: ascendsim supports one axis", kernels::dims_str(axes).c_str());
  int64_t axis = 0;
  if (aclError ret = c.axis(axes[0], c.in(0).dims.size(), "axes", &axis)) return ret;
  c.out.attrs = {};
  set_int(c.out.attrs, "axis", axis);
  c.pass_inputs(1);
  c.out.out_dtypes = {c.in(0).dtype};
  c.out.out_dims = {c.in(0).dims};
  return ACL_SUCCESS;
}

aclError lower_reduce(LowerCtx& c) {
  std::vector<int64_t> axes;
  if (c.call.inputs.size() > 1) {
    if (aclError ret = c.int_values(1, "axes", &axes)) return ret;
  } else {
    axes = c.ints("axes");
  }
  const auto& x = c.in(0).dims;
  std::vector<bool> reduced(x.size(), axes.empty());
  for (int64_t given : axes) {
    int64_t a = 0;
    if (aclError ret = c.axis(given, x.size(), "axis", &a)) return ret;
    reduced[static_cast<size_t>(a)] = true;
  }
  const bool keep = c.call.attrs.get_int("keep_dims", 0) != 0;
  std::vector<int64_t> dims, normalised;
  for (size_t i = 0; i < x.size(); ++i) {
    if (reduced[i]) normalised.push_back(static_cast<int64_t>(i));
    if (!reduced[i] || keep) dims.push_back(reduced[i] ? 1 : x[i]);
  }
  c.out.attrs = {};
  set_ints(c.out.attrs, "axes", normalised);
  set_int(c.out.attrs, "keepdims", keep ? 1 : 0);
  c.pass_inputs(1);
  c.out.out_dtypes = {c.in(0).dtype};
  c.out.out_dims = {dims};
  return ACL_SUCCESS;
}

aclError lower_arg(LowerCtx& c) {
  std::vector<int64_t> dim;
  if (c.call.inputs.size() > 1) {
    if (aclError ret = c.int_values(1, "dimension", &dim)) return ret;
  } else {
    dim = c.ints("dimension");
  }
  if (dim.size() != 1) return c.error(ACL_ERROR_OP_ATTR_NOT_MATCH, "needs one 'dimension' value");
  const auto& x = c.in(0).dims;
  int64_t axis = 0;
  if (aclError ret = c.axis(dim[0], x.size(), "dimension", &axis)) return ret;
  const int64_t dtype_value = c.call.attrs.get_int("dtype", ACL_INT32);
  const aclDataType dtype = data_type_or_undefined(dtype_value);
  if (dtype != ACL_INT32 && dtype != ACL_INT64)
    return c.error(ACL_ERROR_OP_ATTR_NOT_MATCH, "dtype %lld must be INT32 (3) or INT64 (9)",
                   static_cast<long long>(dtype_value));
  std::vector<int64_t> dims;
  for (size_t i = 0; i < x.size(); ++i)
    if (static_cast<int64_t>(i) != axis) dims.push_back(x[i]);
  c.out.attrs = {};
  set_int(c.out.attrs, "axis", axis);
  set_int(c.out.attrs, "keepdims", 0);
  c.pass_inputs(1);
  c.out.out_dtypes = {dtype};
  c.out.kernel_out_dtypes = {ACL_INT64};
  c.out.out_dims = {dims};
  return ACL_SUCCESS;
}

}  // namespace

aclError lower_nn(LowerCtx& c) {
  switch (c.op.family) {
    case Family::MatMul: return lower_matmul(c);
    case Family::BatchMatMul: return lower_batch_matmul(c);
    case Family::Conv2D: return lower_conv(c);
    case Family::Pool: case Family::PoolV: return lower_pool(c);
    case Family::Softmax: return lower_softmax(c);
    case Family::Reduce: return lower_reduce(c);
    case Family::LayerNorm: return lower_layer_norm(c);
    default: return lower_arg(c);
  }
}

}  // namespace ascendsim::op
