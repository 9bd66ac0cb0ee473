// Lowering of the data-movement families. Value inputs (perm, shape, paddings, multiples, axis, ...) must
// be host constants (aclSetTensorConst, or ACL_MEMTYPE_HOST placement); their *D twins take attributes.
//
// Transpose(x, perm) / TransposeD(perm) -> Transpose. Reshape(x, shape) (0 copies a dim, -1 is inferred)
//   -> Reshape. Concat(concat_dim, x...) / ConcatV2(x..., concat_dim) / ConcatD / ConcatV2D(x...; concat_dim)
//   -> Concat. Split(split_dim, x) / SplitD(x; split_dim), num_split -> Split in equal parts. Gather(x, indices)
//   (axis 0) / GatherV2(x, indices, axis) / GatherV2D(axis) -> Gather (batch_dims 0). PadD(paddings:
//   list of [before, after]) / Pad(x, paddings [rank, 2]) -> Pad, constant 0. Tile(x, multiples) / TileD
//   -> Tile. BroadcastTo(x, shape) / BroadcastToD -> Expand. Fill(dims, value) -> Expand of the value.
// TransData(src_format, dst_format; default: the input's and the output's formats): between NCHW, NHWC and
//   HWCN it is a Transpose (the permutation read off the format letters); NCHW/NHWC <-> NC1HWC0 (C split
//   in C1 blocks of C0 = 16 elements, 32 for 1-byte types, the tail zero-padded) runs the ascendsim
//   TransData adapter kernel (transdata_kernel.cpp). The original C of an NC1HWC0 -> 4-D transfer is read
//   from the output description.
#include <algorithm>
#include <cstring>

#include "kernels/kernel_util.h"
#include "op/lower.h"
#include "runtime/format_shape.h"

namespace ascendsim::op {
namespace {

aclError value_list(LowerCtx& c, size_t input, const char* attr, const char* what, std::vector<int64_t>* out) {
  if (c.call.inputs.size() > input) return c.int_values(input, what, out);
  const kernels::AttrValue* v = c.call.attrs.find(attr);
  if (v == nullptr) return c.error(ACL_ERROR_OP_ATTR_NOT_MATCH, "needs the attribute '%s'", attr);
  *out = c.ints(attr);
  return ACL_SUCCESS;
}

void single(LowerCtx& c, aclDataType dtype, std::vector<int64_t> dims, size_t kernel_inputs = 1) {
  c.pass_inputs(kernel_inputs);
  c.out.out_dtypes = {dtype};
  c.out.out_dims = {std::move(dims)};
}

aclError lower_transpose(LowerCtx& c) {
  std::vector<int64_t> perm;
  if (aclError ret = value_list(c, 1, "perm", "perm", &perm)) return ret;
  const auto& x = c.in(0).dims;
  std::vector<int64_t> sorted = perm, dims;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != static_cast<int64_t>(i) || perm.size() != x.size())
      return c.error(ACL_ERROR_OP_ATTR_NOT_MATCH, "perm %s is not a permutation of the %zu axes of x",
                     kernels::dims_str(perm).c_str(), x.size());
  for (int64_t p : perm) dims.push_back(x[static_cast<size_t>(p)]);
  c.out.attrs = {};
  set_ints(c.out.attrs, "perm", perm);
  single(c, c.in(0).dtype, dims);
  return ACL_SUCCESS;
}

aclError lower_reshape(LowerCtx& c) {
  std::vector<int64_t> shape;
  if (aclError ret = c.int_values(1, "shape", &shape)) return ret;
  const auto& x = c.in(0).dims;
  int64_t known = 1, total = 1, infer = -1;
  for (int64_t d : x) total *= d;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && i < x.size()) shape[i] = x[i];
    if (shape[i] == -1 && infer < 0) {
      infer = static_cast<int64_t>(i);
    } else if (shape[i] < 0) {
      return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "shape %s has an invalid dim", kernels::dims_str(shape).c_str());
    } else {
      known *= shape[i];
    }
  }
  if (infer >= 0 && known > 0) shape[static_cast<size_t>(infer)] = total / known;
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  if (count != total)
    return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "cannot reshape x %s to %s", kernels::dims_str(x).c_str(),
                   kernels::dims_str(shape).c_str());
  c.out.attrs = {};
  single(c, c.in(0).dtype, shape);
  return ACL_SUCCESS;
}

// Concat(concat_dim, x...) and ConcatV2(x..., concat_dim) take the axis as a value input; ConcatD/ConcatV2D as
// the attribute concat_dim.
aclError lower_concat(LowerCtx& c) {
  const size_t n = c.call.inputs.size();
  const bool first = c.op.name == "Concat", last = c.op.name == "ConcatV2";
  const size_t begin = first ? 1 : 0, end = last ? n - 1 : n;
  std::vector<int64_t> dim;
  if (first || last) {
    if (aclError ret = c.int_values(first ? 0 : n - 1, "concat_dim", &dim)) return ret;
  } else if (const kernels::AttrValue* v = c.call.attrs.find("concat_dim")) {
    dim = {v->i};
  }
  if (dim.size() != 1) return c.error(ACL_ERROR_OP_ATTR_NOT_MATCH, "needs one 'concat_dim' value");
  if (aclError ret = c.same_dtype(begin, end - 1)) return ret;
  const auto& x = c.in(begin).dims;
  int64_t axis = 0;
  if (aclError ret = c.axis(dim[0], x.size(), "concat_dim", &axis)) return ret;
  std::vector<int64_t> dims = x;
  c.out.inputs.clear();
  for (size_t i = begin; i < end; ++i) {
    const auto& d = c.in(i).dims;
    bool fits = d.size() == x.size();
    for (size_t k = 0; fits && k < d.size(); ++k) fits = static_cast<int64_t>(k) == axis || d[k] == x[k];
    if (!fits)
      return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "input %zu %s does not fit input %zu %s along concat_dim %lld", i,
                     kernels::dims_str(d).c_str(), begin, kernels::dims_str(x).c_str(), static_cast<long long>(axis));
    if (i > begin) dims[static_cast<size_t>(axis)] += d[static_cast<size_t>(axis)];
    c.out.inputs.push_back({static_cast<int>(i), {}});
  }
  c.out.attrs = {};
  set_int(c.out.attrs, "axis", axis);
  c.out.out_dtypes = {c.in(begin).dtype};
  c.out.out_dims = {dims};
  return ACL_SUCCESS;
}

// Split(split_dim, x) takes the axis as a value input, SplitD as the attribute split_dim.
aclError lower_split(LowerCtx& c) {
  const bool value_input = c.call.inputs.size() == 2;
  const size_t source = value_input ? 1 : 0;
  std::vector<int64_t> dim = {c.call.attrs.get_int("split_dim", 0)};
  if (value_input)
    if (aclError ret = c.int_values(0, "split_dim", &dim)) return ret;
  if (dim.size() != 1) return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "split_dim must hold one value");
  const auto& x = c.in(source).dims;
  int64_t axis = 0;
  if (aclError ret = c.axis(dim[0], x.size(), "split_dim", &axis)) return ret;
  const int64_t parts = c.call.attrs.get_int("num_split", 0);
  if (parts <= 0 || static_cast<size_t>(parts) != c.call.outputs.size())
    return c.error(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "num_split %lld must equal the output count %zu",
                   static_cast<long long>(parts), c.call.outputs.size());
  if (x[static_cast<size_t>(axis)] % parts != 0)
    return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "dim %lld of x %s does not split in %lld equal parts",
                   static_cast<long long>(axis), kernels::dims_str(x).c_str(), static_cast<long long>(parts));
  std::vector<int64_t> dims = x;
  dims[static_cast<size_t>(axis)] /= parts;
  c.out.attrs = {};
  set_int(c.out.attrs, "axis", axis);
  c.out.inputs = {{static_cast<int>(source), {}}};
  c.out.out_dtypes.assign(static_cast<size_t>(parts), c.in(source).dtype);
  c.out.out_dims.assign(static_cast<size_t>(parts), dims);
  return ACL_SUCCESS;
}

// Gather(x, indices) gathers along axis 0; GatherV2(x, indices, axis) / GatherV2D (attribute axis) along axis.
aclError lower_gather(LowerCtx& c) {
  std::vector<int64_t> axis_value = {0};
  if (c.op.name != "Gather")
    if (aclError ret = value_list(c, 2, "axis", "axis", &axis_value)) return ret;
  if (axis_value.size() != 1) return c.error(ACL_ERROR_OP_ATTR_NOT_MATCH, "axis must be one value");
  if (c.call.attrs.get_int("batch_dims", 0) != 0)
    return c.error(ACL_ERROR_OP_ATTR_NOT_MATCH, "batch_dims other than 0 is not supported by ascendsim");
  if (c.in(1).dtype != ACL_INT32 && c.in(1).dtype != ACL_INT64)
    return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "indices must be INT32 or INT64, not %s", dtype_text(c.in(1).dtype));
  const auto& x = c.in(0).dims;
  int64_t axis = 0;
  if (aclError ret = c.axis(axis_value[0], x.size(), "axis", &axis)) return ret;
  std::vector<int64_t> dims(x.begin(), x.begin() + axis);
  dims.insert(dims.end(), c.in(1).dims.begin(), c.in(1).dims.end());
  dims.insert(dims.end(), x.begin() + axis + 1, x.end());
  c.out.attrs = {};
  set_int(c.out.attrs, "axis", axis);
  single(c, c.in(0).dtype, dims, 2);
  return ACL_SUCCESS;
}

aclError lower_pad(LowerCtx& c) {
  const auto& x = c.in(0).dims;
  std::vector<int64_t> flat;
  if (c.call.inputs.size() > 1) {
    if (aclError ret = c.int_values(1, "paddings", &flat)) return ret;
  } else {
    const kernels::AttrValue* v = c.call.attrs.find("paddings");
    if (v == nullptr || v->type != kernels::AttrValue::Type::IntLists)
      return c.error(ACL_ERROR_OP_ATTR_NOT_MATCH, "needs the list-of-int-lists attribute 'paddings'");
    for (const auto& pair : v->int_lists) {
      if (pair.size() != 2) return c.error(ACL_ERROR_OP_ATTR_NOT_MATCH, "each paddings entry must be [before, after]");
      flat.insert(flat.end(), pair.begin(), pair.end());
    }
  }
  if (flat.size() != 2 * x.size())
    return c.error(ACL_ERROR_OP_ATTR_NOT_MATCH, "paddings has %zu values, x %s needs %zu", flat.size(),
                   kernels::dims_str(x).c_str(), 2 * x.size());
  std::vector<int64_t> pads(2 * x.size()), dims(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    if (flat[2 * i] < 0 || flat[2 * i + 1] < 0)
      return c.error(ACL_ERROR_OP_ATTR_NOT_MATCH, "paddings must be >= 0");
    pads[i] = flat[2 * i];
    pads[i + x.size()] = flat[2 * i + 1];
    dims[i] = x[i] + flat[2 * i] + flat[2 * i + 1];
  }
  c.out.attrs = {};
  set_ints(c.out.attrs, "pads", pads);
  single(c, c.in(0).dtype, dims);
  return ACL_SUCCESS;
}

aclError lower_tile(LowerCtx& c) {
  std::vector<int64_t> multiples;
  if (aclError ret = value_list(c, 1, "multiples", "multiples", &multiples)) return ret;
  const auto& x = c.in(0).dims;
  if (multiples.size() != x.size())
    return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "multiples %s does not match the rank of x %s",
                   kernels::dims_str(multiples).c_str(), kernels::dims_str(x).c_str());
  std::vector<int64_t> dims;
  for (size_t i = 0; i < x.size(); ++i) {
    if (multiples[i] < 0) return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "multiples must be >= 0");
    dims.push_back(x[i] * multiples[i]);
  }
  c.out.attrs = {};
  single(c, c.in(0).dtype, dims);
  c.out.inputs.push_back({-1, {}});  // the kernel's repeats input: the output shape says it
  return ACL_SUCCESS;
}

aclError lower_expand(LowerCtx& c) {
  const bool fill = c.op.family == Family::Fill;
  std::vector<int64_t> shape, dims;
  if (aclError ret = fill ? c.int_values(0, "dims", &shape) : value_list(c, 1, "shape", "shape", &shape)) return ret;
  const OpTensor& x = c.in(fill ? 1 : 0);
  if (!kernels::broadcast_shapes({x.dims, shape}, &dims) || (fill && dims != shape))
    return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "%s %s does not broadcast to %s", fill ? "value" : "x",
                   kernels::dims_str(x.dims).c_str(), kernels::dims_str(shape).c_str());
  c.out.attrs = {};
  c.out.inputs = {{fill ? 1 : 0, {}}};
  c.out.out_dtypes = {x.dtype};
  c.out.out_dims = {dims};
  return ACL_SUCCESS;
}

aclFormat format_attr(LowerCtx& c, const char* name, const OpTensor& t) {
  const std::string text = c.call.attrs.get_string(name, "");
  if (text.empty()) return t.storage_format != ACL_FORMAT_UNDEFINED ? t.storage_format : t.format;
  for (aclFormat f : {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_ND, ACL_FORMAT_NC1HWC0, ACL_FORMAT_HWCN,
                      ACL_FORMAT_FRACTAL_Z, ACL_FORMAT_FRACTAL_NZ})
    if (text == format_text(f)) return f;
  return ACL_FORMAT_UNDEFINED;
}

aclError lower_transdata(LowerCtx& c) {
  const aclFormat src = format_attr(c, "src_format", c.in(0)), dst = format_attr(c, "dst_format", c.call.outputs[0]);
  const std::string a = format_text(src), b = format_text(dst);
  const auto& x = c.in(0).dims;
  const bool four_d = [](aclFormat f) { return f == ACL_FORMAT_NCHW || f == ACL_FORMAT_NHWC || f == ACL_FORMAT_HWCN; }(src);
  if (four_d && (dst == ACL_FORMAT_NCHW || dst == ACL_FORMAT_NHWC || dst == ACL_FORMAT_HWCN) && src != dst) {
    std::vector<int64_t> perm;
    for (char letter : b) perm.push_back(static_cast<int64_t>(a.find(letter)));
    if (x.size() != 4) return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "x %s must be 4-D", kernels::dims_str(x).c_str());
    c.out.kernel = "Transpose";
    c.out.attrs = {};
    set_ints(c.out.attrs, "perm", perm);
    std::vector<int64_t> dims;
    for (int64_t p : perm) dims.push_back(x[static_cast<size_t>(p)]);
    single(c, c.in(0).dtype, dims);
    return ACL_SUCCESS;
  }
  std::vector<int64_t> dims;
  int64_t channels = 0;
  if ((src == ACL_FORMAT_NCHW || src == ACL_FORMAT_NHWC) && dst == ACL_FORMAT_NC1HWC0) {
    if (aclError ret = trans_shape(src, x, c.in(0).dtype, dst, c.call.api, &dims)) return ret;
    channels = src == ACL_FORMAT_NCHW ? x[1] : x[3];
  } else if (src == ACL_FORMAT_NC1HWC0 && (dst == ACL_FORMAT_NCHW || dst == ACL_FORMAT_NHWC)) {
    dims = c.call.outputs[0].dims;
    std::vector<int64_t> back;
    bool ok = dims.size() == 4 && c.call.outputs[0].is_static() &&
              trans_shape(dst, dims, c.in(0).dtype, src, c.call.api, &back) == ACL_SUCCESS && back == x;
    if (!ok)
      return c.error(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "the output %s %s is not the %s shape of x %s", b.c_str(),
                     kernels::dims_str(dims).c_str(), b.c_str(), kernels::dims_str(x).c_str());
    channels = dst == ACL_FORMAT_NCHW ? dims[1] : dims[3];
  } else {
    return c.error(ACL_ERROR_FORMAT_NOT_MATCH, "ascendsim has no transfer from %s to %s (NCHW, NHWC, HWCN, NC1HWC0)",
                   a.c_str(), b.c_str());
  }
  c.out.kernel = "TransData";
  c.out.domain = "ascendsim";
  c.out.attrs = {};
  set_int(c.out.attrs, "src_format", src);
  set_int(c.out.attrs, "dst_format", dst);
  set_int(c.out.attrs, "channels", channels);
  single(c, c.in(0).dtype, dims);
  return ACL_SUCCESS;
}

}  // namespace

aclError lower_layout(LowerCtx& c) {
  switch (c.op.family) {
    case Family::Transpose: return lower_transpose(c);
    case Family::Reshape: return lower_reshape(c);
    case Family::Concat: return lower_concat(c);
    case Family::Split: return lower_split(c);
    case Family::Gather: return lower_gather(c);
    case Family::Pad: return lower_pad(c);
    case Family::Tile: return lower_tile(c);
    case Family::Expand: case Family::Fill: return lower_expand(c);
    default: return lower_transdata(c);
  }
}

}  // namespace ascendsim::op
