// Row-wise float ops: Softmax/LogSoftmax (one axis, opset 13 meaning), BatchNormalization (inference, with the
// compiler's fused activation), LayerNormalization (with the optional Mean/InvStdDev outputs) and
// InstanceNormalization.
//
// Each views its input as (outer, axis, inner) blocks: Softmax/LayerNorm normalise over the axis part,
// BatchNorm/InstanceNorm per channel. Work is split over the outer dim with parallel_for. Float16
// storage is widened to float32 scratch and narrowed on store. The row loops are the active kernel
// variant's (simd/row_loops.h): the LayerNorm/InstanceNorm statistics sum in vectors of float partial sums
// added in double, which keeps long rows accurate.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/epilogue.h"
#include "kernels/kernel_util.h"
#include "kernels/layout.h"
#include "kernels/simd/row_loops.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

bool float_io(const NodeSpec& spec, std::string* error) {
  for (size_t i = 0; i < spec.inputs.size(); ++i) {
    if (i < spec.present.size() && !spec.present[i]) continue;
    aclDataType d = spec.inputs[i].dtype;
    if (d != ACL_FLOAT && d != ACL_FLOAT16)
      return fail_spec(spec, error, "input " + std::to_string(i) + " dtype " + dtype_name(d) + " is not supported (FLOAT, FLOAT16)");
  }
  for (const auto& o : spec.outputs)
    if (o.dtype != ACL_FLOAT && o.dtype != ACL_FLOAT16) return fail_spec(spec, error, std::string("output dtype ") + dtype_name(o.dtype) + " is not supported");
  if (spec.inputs.empty() || spec.outputs.empty()) return fail_spec(spec, error, "needs an input and an output");
  if (spec.outputs[0].dims != spec.inputs[0].dims)
    return fail_spec(spec, error, "output shape " + dims_str(spec.outputs[0].dims) + " differs from the input " + dims_str(spec.inputs[0].dims));
  return true;
}

bool present(const NodeSpec& spec, size_t i) { return i < spec.inputs.size() && (i >= spec.present.size() || spec.present[i]); }

// Output 0 through float32: the user buffer or scratch, stored back by finish().
struct FloatOut {
  FloatOut(const TensorDesc& d, void* p, int slot)
      : desc(d), ptr(p), data(d.dtype == ACL_FLOAT ? static_cast<float*>(p) : scratch_floats(slot, static_cast<size_t>(d.numel()))) {}
  void finish() const {
    if (desc.dtype != ACL_FLOAT) store_float(desc.dtype, data, desc.numel(), ptr, 0);
  }
  const TensorDesc& desc;
  void* ptr;
  float* data;
};

std::unique_ptr<Kernel> make_softmax(const NodeSpec& spec, std::string* error) {
  if (!float_io(spec, error)) return nullptr;
  const auto& dims = spec.inputs[0].dims;
  int64_t axis = 0;
  int64_t given = spec.attrs ? spec.attrs->get_int("axis", -1) : -1;
  if (dims.empty()) return refuse(spec, error, "input must have rank >= 1");
  if (!norm_axis(given, static_cast<int64_t>(dims.size()), &axis))
    return refuse(spec, error, "axis " + std::to_string(given) + " is out of range for rank " + std::to_string(dims.size()));
  int64_t outer = product(dims, 0, static_cast<size_t>(axis)), len = dims[static_cast<size_t>(axis)];
  int64_t inner = product(dims, static_cast<size_t>(axis) + 1);
  bool log = spec.op_type == "LogSoftmax";
  TensorDesc in = spec.inputs[0], out_desc = spec.outputs[0];
  return make_lambda_kernel([=](const void* const* inputs, void* const* outputs) {
    const float* x = float_input(in, inputs[0], false, 1);
    FloatOut out(out_desc, outputs[0], 3);
    float* y = out.data;
    const RowLoops& loops = row_loops();
    if (inner == 1) {  // contiguous rows
      parallel_for(outer, std::max<int64_t>(1, 8192 / std::max<int64_t>(len, 1)), [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) loops.softmax(x + r * len, y + r * len, len, log);
      });
    } else {  // the axis strided: blocks of kUnit adjacent inner positions, in vectors across them
      const int64_t blocks = (inner + kUnit - 1) / kUnit;
      parallel_for(outer * blocks, std::max<int64_t>(1, 8192 / std::max<int64_t>(len * kUnit, 1)), [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
          const int64_t o = b / blocks, j0 = (b % blocks) * kUnit;
          loops.softmax_strided(x + o * len * inner + j0, y + o * len * inner + j0, len, inner,
                                std::min(kUnit, inner - j0), log);
        }
      });
    }
    out.finish();
  });
}

std::unique_ptr<Kernel> make_batchnorm(const NodeSpec& spec, std::string* error) {
  if (!float_io(spec, error)) return nullptr;
  if (spec.inputs.size() < 5) return refuse(spec, error, "needs inputs X, scale, B, mean, var");
  if (spec.outputs.size() > 1) return refuse(spec, error, "training mode (running statistics outputs) is not supported");
  const auto& dims = spec.inputs[0].dims;
  if (dims.size() < 2) return refuse(spec, error, "input rank must be >= 2");
  int64_t n = dims[0], c = dims[1], inner = product(dims, 2);
  for (size_t i = 1; i < 5; ++i)
    if (spec.inputs[i].numel() != c) return refuse(spec, error, "input " + std::to_string(i) + " must have " + std::to_string(c) + " elements");
  float eps = static_cast<float>(spec.attrs ? spec.attrs->get_float("epsilon", 1e-5) : 1e-5);
  Activation act;  // the compiler's fused activation (epilogue.h): a clamp (Relu, Clip) inside the affine loop,
  if (!parse_activation(spec, &act, error)) return nullptr;  // any other on each plane while it is in cache
  float lo = 0, hi = 0;
  const bool clamps = activation_bounds(act, &lo, &hi);
  std::vector<TensorDesc> ins = spec.inputs;
  TensorDesc out_desc = spec.outputs[0];
  return make_lambda_kernel([=](const void* const* inputs, void* const* outputs) {
    const float* x = float_input(ins[0], inputs[0], false, 1);
    float* params = scratch_floats(6, static_cast<size_t>(4 * c));
    for (size_t k = 1; k < 5; ++k) load_float(ins[k].dtype, inputs[k], 0, 1, c, params + (k - 1) * c);
    FloatOut out(out_desc, outputs[0], 3);
    parallel_for(n * c, std::max<int64_t>(1, 16384 / std::max<int64_t>(inner, 1)), [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        int64_t ch = p % c;
        float scale = params[ch] / std::sqrt(params[3 * c + ch] + eps);
        float shift = params[c + ch] - params[2 * c + ch] * scale;
        const float* xr = x + p * inner;
        float* yr = out.data + p * inner;
        row_loops().affine(xr, yr, inner, scale, shift, lo, hi);
        if (!clamps) apply_activation(act, yr, inner);
      }
    });
    out.finish();
  });
}

// LayerNormalization (normalised over dims [axis, rank)) and InstanceNormalization (over the spatial dims
// of each (n, c)): mean and variance per row, then scale/bias.
std::unique_ptr<Kernel> make_norm(const NodeSpec& spec, std::string* error) {
  bool layer = spec.op_type == "LayerNormalization";
  const auto& dims = spec.inputs.empty() ? std::vector<int64_t>{} : spec.inputs[0].dims;
  if (spec.outputs.empty()) return refuse(spec, error, "needs an output");
  NodeSpec first = spec;
  first.outputs.resize(1);
  if (!float_io(first, error)) return nullptr;
  for (size_t k = 1; k < spec.outputs.size(); ++k)
    if (spec.outputs[k].dtype != ACL_FLOAT) return refuse(spec, error, "Mean/InvStdDev outputs must be FLOAT");
  int64_t axis = 0;
  if (layer) {
    int64_t given = spec.attrs ? spec.attrs->get_int("axis", -1) : -1;
    if (!norm_axis(given, static_cast<int64_t>(dims.size()), &axis))
      return refuse(spec, error, "axis " + std::to_string(given) + " is out of range for rank " + std::to_string(dims.size()));
    if (spec.attrs && spec.attrs->get_int("stash_type", 1) != 1) return refuse(spec, error, "stash_type other than 1 (float) is not supported");
  } else {
    if (dims.size() < 3) return refuse(spec, error, "input rank must be >= 3");
    axis = 2;
    if (spec.outputs.size() > 1) return refuse(spec, error, "takes one output");
  }
  int64_t rows = product(dims, 0, static_cast<size_t>(axis)), len = product(dims, static_cast<size_t>(axis));
  int64_t channels = layer ? 1 : dims[1];
  // Scale/bias: LayerNorm's broadcast over the normalised shape (full or a single value); InstanceNorm's per channel.
  int64_t param_len = layer ? len : channels;
  bool has_scale = present(spec, 1), has_bias = present(spec, 2);
  if (!layer && (!has_scale || !has_bias)) return refuse(spec, error, "needs inputs input, scale, B");
  for (size_t k = 1; k < 3; ++k) {
    if (!present(spec, k)) continue;
    int64_t count = spec.inputs[k].numel();
    if (count != param_len && !(layer && count == 1))
      return refuse(spec, error, "input " + std::to_string(k) + " " + dims_str(spec.inputs[k].dims) + " does not match the normalised size " + std::to_string(param_len));
  }
  float eps = static_cast<float>(spec.attrs ? spec.attrs->get_float("epsilon", 1e-5) : 1e-5);
  std::vector<TensorDesc> ins = spec.inputs;
  std::vector<TensorDesc> outs = spec.outputs;
  return make_lambda_kernel([=](const void* const* inputs, void* const* outputs) {
    const float* x = float_input(ins[0], inputs[0], false, 1);
    const float* scale = has_scale ? float_input(ins[1], inputs[1], false, 2) : nullptr;
    const float* bias = has_bias ? float_input(ins[2], inputs[2], false, 4) : nullptr;
    int64_t scale_n = has_scale ? ins[1].numel() : 0, bias_n = has_bias ? ins[2].numel() : 0;
    FloatOut out(outs[0], outputs[0], 3);
    float* mean_out = outs.size() > 1 ? static_cast<float*>(outputs[1]) : nullptr;
    float* inv_out = outs.size() > 2 ? static_cast<float*>(outputs[2]) : nullptr;
    const RowLoops& loops = row_loops();
    parallel_for(rows, std::max<int64_t>(1, 8192 / std::max<int64_t>(len, 1)), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const float* xr = x + r * len;
        float* yr = out.data + r * len;
        float mean = 0, inv = 0;
        loops.moments(xr, len, eps, &mean, &inv);
        if (mean_out) mean_out[r] = mean;
        if (inv_out) inv_out[r] = inv;
        if (layer) {
          loops.normalize(xr, yr, len, mean, inv, scale, scale_n, bias, bias_n);
        } else {
          int64_t ch = r % channels;
          float s = scale[ch] * inv, b = bias[ch] - mean * s;
          loops.affine(xr, yr, len, s, b, -INFINITY, INFINITY);
        }
      }
    });
    out.finish();
  });
}

}  // namespace

ASCENDSIM_KERNEL(Softmax, "", make_softmax);
ASCENDSIM_KERNEL(LogSoftmax, "", make_softmax);
ASCENDSIM_KERNEL(BatchNormalization, "", make_batchnorm);
ASCENDSIM_KERNEL(LayerNormalization, "", make_norm);
ASCENDSIM_KERNEL(InstanceNormalization, "", make_norm);

}  // namespace ascendsim::kernels
