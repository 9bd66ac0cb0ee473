// ConvTranspose (1-D and 2-D NCHW): groups, strides, dilations, pads, output_padding, output_shape,
// auto_pad, optional bias, fused activation.
//
// Per image and group, one sgemm (gemm.h) forms col = W_g^T x X_g, a (C_out/g * kh * kw) x (H * W)
// matrix, and col2im scatters-adds each column entry into the output position oh = ih*stride - pad +
// ki*dilation (rows of col2im run in parallel over output channels, so no two threads touch one output
// plane). Float16 storage is widened; ROUND_INPUTS_FP16 rounds inputs to float16 values.
#include <algorithm>

#include "kernels/epilogue.h"
#include "kernels/gemm.h"
#include "kernels/kernel_util.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

struct Geometry {
  int64_t n = 0, c = 0, h = 1, w = 1, m = 0, oh = 1, ow = 1, kh = 1, kw = 1;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1, ph = 0, pw = 0, group = 1;
};

class ConvTransposeKernel final : public Kernel {
 public:
  ConvTransposeKernel(const NodeSpec& spec, Geometry g, Activation act)
      : x_(spec.inputs[0]), w_(spec.inputs[1]), out_(spec.outputs[0]), g_(g), act_(act) {
    round_ = (spec.flags & kRoundInputsFp16) != 0;
    if (spec.inputs.size() > 2 && (spec.present.size() <= 2 || spec.present[2])) {
      has_bias_ = true;
      b_ = spec.inputs[2];
    }
    if (spec.constant_data.size() > 1 && spec.constant_data[1] != nullptr && w_.dtype == ACL_FLOAT)
      rounded_constant(static_cast<const float*>(spec.constant_data[1]), w_.numel(), round_, &rounded_w_);
  }

  void run(const void* const* inputs, void* const* outputs) override {
    const Geometry& g = g_;
    const float* x = float_input(x_, inputs[0], round_, 1);
    const float* w = !rounded_w_.empty() ? rounded_w_.data() : float_input(w_, inputs[1], round_, 2);
    const float* bias = has_bias_ ? float_input(b_, inputs[2], false, 4) : nullptr;
    int64_t total = out_.numel();
    float* out = out_.dtype == ACL_FLOAT ? static_cast<float*>(outputs[0]) : scratch_floats(3, static_cast<size_t>(total));
    int64_t cg = g.c / g.group, mg = g.m / g.group, kk = mg * g.kh * g.kw, in_sp = g.h * g.w, out_sp = g.oh * g.ow;
    float* col = scratch_floats(5, static_cast<size_t>(std::max<int64_t>(kk * in_sp, 1)));
    std::fill(out, out + total, 0.0f);
    for (int64_t n = 0; n < g.n; ++n) {
      for (int64_t gi = 0; gi < g.group; ++gi) {
        if (cg > 0 && kk > 0 && in_sp > 0)
          sgemm(true, false, kk, in_sp, cg, 1.0f, w + gi * cg * kk, kk, x + (n * g.c + gi * cg) * in_sp, in_sp, 0.0f, col,
                in_sp);
        float* dst = out + (n * g.m + gi * mg) * out_sp;
        parallel_for(mg, 1, [&](int64_t m0, int64_t m1) {
          for (int64_t m = m0; m < m1; ++m) {
            float* plane = dst + m * out_sp;
            for (int64_t ki = 0; ki < g.kh; ++ki) {
              for (int64_t kj = 0; kj < g.kw; ++kj) {
                const float* src = col + ((m * g.kh + ki) * g.kw + kj) * in_sp;
                for (int64_t ih = 0; ih < g.h; ++ih) {
                  int64_t oh = ih * g.sh - g.ph + ki * g.dh;
                  if (oh < 0 || oh >= g.oh) continue;
                  for (int64_t iw = 0; iw < g.w; ++iw) {
                    int64_t ow = iw * g.sw - g.pw + kj * g.dw;
                    if (ow >= 0 && ow < g.ow) plane[oh * g.ow + ow] += src[ih * g.w + iw];
                  }
                }
              }
            }
          }
        });
      }
      float* image = out + n * g.m * out_sp;
      for (int64_t m = 0; m < g.m; ++m) {
        float* plane = image + m * out_sp;
        if (bias != nullptr)
          for (int64_t i = 0; i < out_sp; ++i) plane[i] += bias[m];
        apply_activation(act_, plane, out_sp);
      }
    }
    if (out_.dtype != ACL_FLOAT) store_float(out_.dtype, out, total, outputs[0], 0);
  }

 private:
  TensorDesc x_, w_, out_, b_;
  Geometry g_;
  Activation act_;
  bool round_ = false, has_bias_ = false;
  std::vector<float> rounded_w_;  // constant weights rounded to float16 values once (ROUND_INPUTS_FP16)
};

std::unique_ptr<Kernel> make_conv_transpose(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() < 2 || spec.outputs.empty()) return refuse(spec, error, "needs inputs X and W");
  for (size_t i = 0; i < spec.inputs.size(); ++i) {
    if (i < spec.present.size() && !spec.present[i]) continue;
    aclDataType d = spec.inputs[i].dtype;
    if (d != ACL_FLOAT && d != ACL_FLOAT16) return refuse(spec, error, std::string("dtype ") + dtype_name(d) + " is not supported (FLOAT, FLOAT16)");
  }
  const auto &xd = spec.inputs[0].dims, &wd = spec.inputs[1].dims, &od = spec.outputs[0].dims;
  if ((xd.size() != 3 && xd.size() != 4) || wd.size() != xd.size() || od.size() != xd.size())
    return refuse(spec, error, "only 1-D and 2-D transposed convolutions are supported, input " + dims_str(xd));
  const Attrs empty;
  const Attrs& a = spec.attrs ? *spec.attrs : empty;
  bool one_d = xd.size() == 3;
  size_t sp = one_d ? 1 : 2;
  Geometry g;
  g.n = xd[0];
  g.c = xd[1];
  g.h = one_d ? 1 : xd[2];
  g.w = xd.back();
  g.group = a.get_int("group", 1);
  g.m = wd[1] * g.group;
  g.kh = one_d ? 1 : wd[2];
  g.kw = wd.back();
  g.oh = one_d ? 1 : od[2];
  g.ow = od.back();
  if (g.group < 1 || wd[0] != g.c || g.c % g.group != 0) return refuse(spec, error, "group " + std::to_string(g.group) + " does not fit input " + dims_str(xd) + " and weight " + dims_str(wd));
  auto strides = a.get_ints("strides"), dil = a.get_ints("dilations"), pads = a.get_ints("pads"), extra = a.get_ints("output_padding");
  if (strides.empty()) strides.assign(sp, 1);
  if (dil.empty()) dil.assign(sp, 1);
  if (extra.empty()) extra.assign(sp, 0);
  if (strides.size() != sp || dil.size() != sp || extra.size() != sp) return refuse(spec, error, "strides/dilations/output_padding do not match the spatial rank");
  std::string auto_pad = a.get_string("auto_pad", "NOTSET");
  std::vector<int64_t> in_sizes = one_d ? std::vector<int64_t>{g.w} : std::vector<int64_t>{g.h, g.w};
  std::vector<int64_t> kernel = one_d ? std::vector<int64_t>{g.kw} : std::vector<int64_t>{g.kh, g.kw};
  std::vector<int64_t> out_sizes(od.begin() + 2, od.end());
  std::vector<int64_t> sizes = in_sizes;  // every size and attribute the formulas below multiply or add
  sizes.insert(sizes.end(), out_sizes.begin(), out_sizes.end());
  std::vector<int64_t> padding = pads;
  padding.insert(padding.end(), extra.begin(), extra.end());
  if (std::string why = window_attrs_problem(sizes, kernel, strides, dil, padding); !why.empty())
    return refuse(spec, error, why);
  if (pads.empty() || a.has("output_shape") || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    // Total padding from the (static) output size; SAME_LOWER puts the extra pad at the beginning.
    pads.assign(2 * sp, 0);
    for (size_t i = 0; i < sp; ++i) {
      int64_t total = strides[i] * (in_sizes[i] - 1) + extra[i] + (kernel[i] - 1) * dil[i] + 1 - out_sizes[i];
      if (auto_pad == "VALID" || (auto_pad == "NOTSET" && !a.has("output_shape"))) total = 0;
      int64_t small = total / 2, large = total - small;
      pads[i] = auto_pad == "SAME_LOWER" ? large : small;
      pads[i + sp] = auto_pad == "SAME_LOWER" ? small : large;
    }
  }
  if (pads.size() != 2 * sp) return refuse(spec, error, "pads do not match the spatial rank");
  for (size_t i = 0; i < sp; ++i) {
    int64_t want = strides[i] * (in_sizes[i] - 1) + extra[i] + (kernel[i] - 1) * dil[i] + 1 - pads[i] - pads[i + sp];
    if (want != out_sizes[i]) return refuse(spec, error, "output shape " + dims_str(od) + " does not match the attributes");
  }
  if (od[0] != g.n || od[1] != g.m) return refuse(spec, error, "output shape " + dims_str(od) + " does not match N and C_out");
  g.sh = one_d ? 1 : strides[0];
  g.sw = strides.back();
  g.dh = one_d ? 1 : dil[0];
  g.dw = dil.back();
  g.ph = one_d ? 0 : pads[0];
  g.pw = one_d ? pads[0] : pads[1];
  if (spec.inputs.size() > 2 && (spec.present.size() <= 2 || spec.present[2]) && spec.inputs[2].numel() != g.m)
    return refuse(spec, error, "bias must have " + std::to_string(g.m) + " elements");
  Activation act;
  if (!parse_activation(spec, &act, error)) return nullptr;
  return std::make_unique<ConvTransposeKernel>(spec, g, act);
}

}  // namespace

ASCENDSIM_KERNEL(ConvTranspose, "", make_conv_transpose);

}  // namespace ascendsim::kernels
