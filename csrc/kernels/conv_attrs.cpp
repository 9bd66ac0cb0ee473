// Reading a Conv's attributes into its geometry (see conv_attrs.h). Asymmetric pads: the index math uses the
// begin pads; the end pads only shape the output size.
#include "kernels/conv_attrs.h"

#include "kernels/kernel_util.h"

namespace ascendsim::kernels {

bool read_conv_geometry(const NodeSpec& spec, const std::vector<int64_t>& xd, const std::vector<int64_t>& wd,
                        ConvGeometry* out, std::string* error) {
  if (xd.size() != 3 && xd.size() != 4)
    return fail_spec(spec, error, "only 1-D and 2-D convolutions are supported, input shape " + dims_str(xd));
  if (wd.size() != xd.size()) return fail_spec(spec, error, "weight " + dims_str(wd) + " does not match input " + dims_str(xd));
  const bool one_d = xd.size() == 3;
  const Attrs empty;
  const Attrs& a = spec.attrs ? *spec.attrs : empty;
  ConvGeometry g;
  g.n = xd[0];
  g.c = xd[1];
  g.h = one_d ? 1 : xd[2];
  g.w = xd.back();
  g.m = wd[0];
  g.group = a.get_int("group", 1);
  g.kh = one_d ? 1 : wd[2];
  g.kw = wd.back();
  auto strides = a.get_ints("strides"), dil = a.get_ints("dilations"), pads = a.get_ints("pads");
  const size_t sp = one_d ? 1 : 2;
  if (strides.empty()) strides.assign(sp, 1);
  if (dil.empty()) dil.assign(sp, 1);
  if (pads.empty()) pads.assign(2 * sp, 0);
  if (strides.size() != sp || dil.size() != sp || pads.size() != 2 * sp)
    return fail_spec(spec, error, "strides/dilations/pads do not match the spatial rank " + std::to_string(sp));
  const std::string auto_pad = a.get_string("auto_pad", "NOTSET");
  if (one_d) {
    strides.insert(strides.begin(), 1);
    dil.insert(dil.begin(), 1);
    pads = {0, pads[0], 0, pads[1]};
  }
  if (std::string why = window_attrs_problem({g.h, g.w}, {g.kh, g.kw}, strides, dil, pads); !why.empty())
    return fail_spec(spec, error, why);
  g.sh = strides[0];
  g.sw = strides[1];
  g.dh = dil[0];
  g.dw = dil[1];
  if (!resolve_auto_pad(auto_pad, {g.h, g.w}, {g.kh, g.kw}, strides, dil, &pads))
    return fail_spec(spec, error, "auto_pad='" + auto_pad + "' is not supported");
  g.ph = pads[0];
  g.pw = pads[1];
  if (g.group < 1 || g.c % g.group != 0 || g.m % g.group != 0 || wd[1] * g.group != g.c)
    return fail_spec(spec, error, "group " + std::to_string(g.group) + " does not fit input " + dims_str(xd) + " and weight " + dims_str(wd));
  if (g.sh < 1 || g.sw < 1 || g.dh < 1 || g.dw < 1) return fail_spec(spec, error, "strides and dilations must be >= 1");
  g.oh = (g.h + pads[0] + pads[2] - g.dh * (g.kh - 1) - 1) / g.sh + 1;
  g.ow = (g.w + pads[1] + pads[3] - g.dw * (g.kw - 1) - 1) / g.sw + 1;
  *out = g;
  return true;
}

bool check_conv_operands(const NodeSpec& spec, const ConvGeometry& g, const std::vector<int64_t>& want,
                         std::string* error) {
  if (spec.outputs[0].dims != want)
    return fail_spec(spec, error, "output shape " + dims_str(spec.outputs[0].dims) + " is not " + dims_str(want));
  if (spec.inputs.size() > 2 && (spec.present.size() <= 2 || spec.present[2]) && spec.inputs[2].numel() != g.m)
    return fail_spec(spec, error, "bias " + dims_str(spec.inputs[2].dims) + " must have " + std::to_string(g.m) + " elements");
  // fused_sum=1 (docs/om-format.md): input 3 is added before the activation, shaped as the output.
  const bool fused_sum = spec.attrs != nullptr && spec.attrs->get_int("fused_sum", 0) != 0;
  if (fused_sum != (spec.inputs.size() > 3))
    return fail_spec(spec, error, fused_sum ? "fused_sum=1 needs a 4th input, the tensor to add"
                                            : "takes 2 or 3 inputs (4 with fused_sum=1), given " + std::to_string(spec.inputs.size()));
  if (fused_sum && (spec.inputs.size() != 4 || (spec.present.size() > 3 && !spec.present[3]) || spec.inputs[3].dims != want))
    return fail_spec(spec, error, "the fused sum must be one tensor shaped as the output " + dims_str(want));
  return true;
}

}  // namespace ascendsim::kernels
