// Index and shape kernels: Gather, GatherElements, TopK, Shape, Size, ConstantOfShape, Range, OneHot.
//
// Gather copies (outer x inner) blocks picked by the indices (negative indices count from the end);
// GatherElements walks the indices tensor with an odometer. Indices out of range cannot be reported from
// run() (no error channel on the hot path), so they yield zeros instead of reading outside the tensor.
// TopK partially sorts (value, index) pairs per row (ties: the lower index first, as onnxruntime).
#include <algorithm>
#include <cstring>
#include <numeric>

#include "kernels/kernel_util.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

int64_t elem_size(aclDataType d) { return static_cast<int64_t>(aclDataTypeSize(d)); }
bool index_dtype(aclDataType d) { return d == ACL_INT32 || d == ACL_INT64; }

std::unique_ptr<Kernel> make_gather(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() < 2 || spec.outputs.empty()) return refuse(spec, error, "needs inputs data and indices");
  if (!index_dtype(spec.inputs[1].dtype)) return refuse(spec, error, std::string("indices dtype ") + dtype_name(spec.inputs[1].dtype) + " is not INT32 or INT64");
  const auto &xd = spec.inputs[0].dims, &idd = spec.inputs[1].dims;
  int64_t axis = 0, given = spec.attrs ? spec.attrs->get_int("axis", 0) : 0;
  if (!norm_axis(given, static_cast<int64_t>(xd.size()), &axis)) return refuse(spec, error, "axis " + std::to_string(given) + " is out of range for rank " + std::to_string(xd.size()));
  std::vector<int64_t> want(xd.begin(), xd.begin() + axis);
  want.insert(want.end(), idd.begin(), idd.end());
  want.insert(want.end(), xd.begin() + axis + 1, xd.end());
  if (spec.outputs[0].dims != want) return refuse(spec, error, "output shape " + dims_str(spec.outputs[0].dims) + " is not " + dims_str(want));
  int64_t outer = product(xd, 0, static_cast<size_t>(axis)), dim = xd[static_cast<size_t>(axis)];
  int64_t inner = product(xd, static_cast<size_t>(axis) + 1) * elem_size(spec.inputs[0].dtype);
  int64_t count = spec.inputs[1].numel();
  aclDataType it = spec.inputs[1].dtype;
  return make_lambda_kernel([=](const void* const* in, void* const* out) {
    auto* src = static_cast<const uint8_t*>(in[0]);
    auto* dst = static_cast<uint8_t*>(out[0]);
    parallel_for(outer * count, std::max<int64_t>(1, 65536 / std::max<int64_t>(inner, 1)), [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        int64_t o = p / count, k = p % count;
        int64_t index = read_index(it, in[1], k);
        if (index < 0) index += dim;
        uint8_t* d = dst + p * inner;
        if (index < 0 || index >= dim) {
          std::memset(d, 0, static_cast<size_t>(inner));
        } else {
          std::memcpy(d, src + (o * dim + index) * inner, static_cast<size_t>(inner));
        }
      }
    });
  });
}

std::unique_ptr<Kernel> make_gather_elements(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() < 2 || spec.outputs.empty()) return refuse(spec, error, "needs inputs data and indices");
  if (!index_dtype(spec.inputs[1].dtype)) return refuse(spec, error, "indices must be INT32 or INT64");
  const auto &xd = spec.inputs[0].dims, &idd = spec.inputs[1].dims;
  if (xd.size() != idd.size() || xd.empty()) return refuse(spec, error, "data " + dims_str(xd) + " and indices " + dims_str(idd) + " must have the same rank >= 1");
  int64_t axis = 0, given = spec.attrs ? spec.attrs->get_int("axis", 0) : 0;
  if (!norm_axis(given, static_cast<int64_t>(xd.size()), &axis)) return refuse(spec, error, "axis " + std::to_string(given) + " is out of range");
  if (spec.outputs[0].dims != idd) return refuse(spec, error, "output shape must equal the indices shape");
  for (size_t i = 0; i < xd.size(); ++i)
    if (static_cast<int64_t>(i) != axis && idd[i] > xd[i]) return refuse(spec, error, "indices " + dims_str(idd) + " exceed data " + dims_str(xd));
  auto xs = contiguous_strides(xd);
  int64_t elem = elem_size(spec.inputs[0].dtype), count = spec.inputs[1].numel(), dim = xd[static_cast<size_t>(axis)];
  aclDataType it = spec.inputs[1].dtype;
  return make_lambda_kernel([=](const void* const* in, void* const* out) {
    auto* src = static_cast<const uint8_t*>(in[0]);
    auto* dst = static_cast<uint8_t*>(out[0]);
    for (int64_t p = 0; p < count; ++p) {
      int64_t rem = p, off = 0, index = read_index(it, in[1], p);
      if (index < 0) index += dim;
      bool ok = index >= 0 && index < dim;
      for (size_t d = idd.size(); d-- > 0;) {
        int64_t i = rem % idd[d];
        rem /= idd[d];
        off += (static_cast<int64_t>(d) == axis ? index : i) * xs[d];
      }
      if (ok) {
        std::memcpy(dst + p * elem, src + off * elem, static_cast<size_t>(elem));
      } else {
        std::memset(dst + p * elem, 0, static_cast<size_t>(elem));
      }
    }
  });
}

std::unique_ptr<Kernel> make_topk(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() < 2 || spec.outputs.size() != 2) return refuse(spec, error, "needs inputs X, K and outputs Values, Indices");
  aclDataType d = spec.inputs[0].dtype;
  if (!is_float_dtype(d) && d != ACL_INT32 && d != ACL_INT64) return refuse(spec, error, std::string("dtype ") + dtype_name(d) + " is not supported");
  if (spec.outputs[1].dtype != ACL_INT64) return refuse(spec, error, "Indices must be INT64");
  const auto& xd = spec.inputs[0].dims;
  int64_t axis = 0, given = spec.attrs ? spec.attrs->get_int("axis", -1) : -1;
  if (!norm_axis(given, static_cast<int64_t>(xd.size()), &axis)) return refuse(spec, error, "axis " + std::to_string(given) + " is out of range");
  int64_t k = spec.outputs[0].dims.size() == xd.size() ? spec.outputs[0].dims[static_cast<size_t>(axis)] : -1;
  if (k < 0 || k > xd[static_cast<size_t>(axis)]) return refuse(spec, error, "K does not fit axis " + std::to_string(axis));
  bool largest = !spec.attrs || spec.attrs->get_int("largest", 1) != 0;
  int64_t outer = product(xd, 0, static_cast<size_t>(axis)), len = xd[static_cast<size_t>(axis)];
  int64_t inner = product(xd, static_cast<size_t>(axis) + 1);
  TensorDesc in = spec.inputs[0];
  aclDataType od = spec.outputs[0].dtype;
  return make_lambda_kernel([=](const void* const* inputs, void* const* outputs) {
    parallel_for(outer * inner, 1, [&](int64_t r0, int64_t r1) {
      std::vector<std::pair<double, int64_t>> row(static_cast<size_t>(len));
      std::vector<float> vals(static_cast<size_t>(k));
      std::vector<int64_t> ivals(static_cast<size_t>(k));
      for (int64_t r = r0; r < r1; ++r) {
        int64_t base = (r / inner) * len * inner + r % inner;
        for (int64_t i = 0; i < len; ++i) {
          double v;
          if (is_float_dtype(in.dtype)) {
            float f;
            load_float(in.dtype, inputs[0], base + i * inner, 1, 1, &f);
            v = f;
          } else {
            v = static_cast<double>(read_index(in.dtype, inputs[0], base + i * inner));
          }
          row[static_cast<size_t>(i)] = {v, i};
        }
        auto cmp = [largest](const std::pair<double, int64_t>& a, const std::pair<double, int64_t>& b) {
          if (a.first != b.first) return largest ? a.first > b.first : a.first < b.first;
          return a.second < b.second;
        };
        std::partial_sort(row.begin(), row.begin() + k, row.end(), cmp);
        int64_t obase = (r / inner) * k * inner + r % inner;
        for (int64_t i = 0; i < k; ++i) {
          static_cast<int64_t*>(outputs[1])[obase + i * inner] = row[static_cast<size_t>(i)].second;
          if (is_float_dtype(od)) {
            float f = static_cast<float>(row[static_cast<size_t>(i)].first);
            store_float(od, &f, 1, outputs[0], obase + i * inner);
          } else {
            int64_t v = static_cast<int64_t>(row[static_cast<size_t>(i)].first);
            store_int(od, &v, 1, outputs[0], obase + i * inner);
          }
        }
      }
    });
  });
}

std::unique_ptr<Kernel> make_shape(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.empty() || spec.outputs.empty()) return refuse(spec, error, "needs an input and an output");
  if (spec.outputs[0].dtype != ACL_INT64) return refuse(spec, error, "output must be INT64");
  const auto& xd = spec.inputs[0].dims;
  int64_t rank = static_cast<int64_t>(xd.size());
  int64_t start = spec.attrs ? spec.attrs->get_int("start", 0) : 0, end = spec.attrs ? spec.attrs->get_int("end", rank) : rank;
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  std::vector<int64_t> values(xd.begin() + start, xd.begin() + end);
  if (spec.outputs[0].numel() != static_cast<int64_t>(values.size())) return refuse(spec, error, "output size does not match the shape slice");
  return make_lambda_kernel([values](const void* const*, void* const* out) {
    if (!values.empty()) std::memcpy(out[0], values.data(), values.size() * 8);
  });
}

std::unique_ptr<Kernel> make_constant_of_shape(const NodeSpec& spec, std::string* error) {
  if (spec.outputs.empty()) return refuse(spec, error, "needs an output");
  aclDataType d = spec.outputs[0].dtype;
  int64_t elem = elem_size(d);
  std::vector<uint8_t> value(static_cast<size_t>(std::max<int64_t>(elem, 1)), 0);
  if (const AttrValue* v = spec.attrs ? spec.attrs->find("value") : nullptr; v != nullptr) {
    if (v->type != AttrValue::Type::Tensor || v->tensor.dtype != d || static_cast<int64_t>(v->tensor.data.size()) != elem)
      return refuse(spec, error, "attribute 'value' must be a 1-element tensor of the output dtype");
    value = v->tensor.data;
  } else if (d != ACL_FLOAT) {
    return refuse(spec, error, "without 'value' the output must be FLOAT");
  }
  int64_t count = spec.outputs[0].numel();
  return make_lambda_kernel([value, count, elem](const void* const*, void* const* out) {
    auto* dst = static_cast<uint8_t*>(out[0]);
    for (int64_t i = 0; i < count; ++i) std::memcpy(dst + i * elem, value.data(), static_cast<size_t>(elem));
  });
}

std::unique_ptr<Kernel> make_range(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() != 3 || spec.outputs.empty()) return refuse(spec, error, "needs inputs start, limit, delta");
  aclDataType d = spec.outputs[0].dtype;
  if (d != ACL_FLOAT && d != ACL_DOUBLE && d != ACL_INT32 && d != ACL_INT64 && d != ACL_INT16)
    return refuse(spec, error, std::string("dtype ") + dtype_name(d) + " is not supported");
  for (const auto& in : spec.inputs)
    if (in.dtype != d || in.numel() != 1) return refuse(spec, error, "start/limit/delta must be scalars of the output dtype");
  int64_t count = spec.outputs[0].numel();
  return make_lambda_kernel([d, count](const void* const* in, void* const* out) {
    if (d == ACL_FLOAT) {  // accumulated in the output dtype, as onnxruntime does
      float value = *static_cast<const float*>(in[0]), delta = *static_cast<const float*>(in[2]);
      for (int64_t i = 0; i < count; ++i, value += delta) static_cast<float*>(out[0])[i] = value;
    } else if (d == ACL_DOUBLE) {
      double value = *static_cast<const double*>(in[0]), delta = *static_cast<const double*>(in[2]);
      for (int64_t i = 0; i < count; ++i, value += delta) static_cast<double*>(out[0])[i] = value;
    } else {
      int64_t start = read_index(d, in[0], 0), delta = read_index(d, in[2], 0);
      for (int64_t i = 0; i < count; ++i) {
        int64_t v = start + i * delta;
        store_int(d, &v, 1, out[0], i);
      }
    }
  });
}

// OneHot(indices, depth, values): the output (depth from its shape, fixed at compile time) is `values[0]`
// everywhere but `values[1]` where the index along `axis` equals the (negative: counted from the end) index.
std::unique_ptr<Kernel> make_one_hot(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() != 3 || spec.outputs.size() != 1) return refuse(spec, error, "needs inputs indices, depth and values");
  const TensorDesc indices = spec.inputs[0], out = spec.outputs[0];
  if (!is_int_dtype(indices.dtype) && !is_float_dtype(indices.dtype)) return refuse(spec, error, "indices must be numeric");
  if (spec.inputs[2].numel() != 2 || spec.inputs[2].dtype != out.dtype) return refuse(spec, error, "values must hold 2 elements of the output dtype");
  int64_t axis = 0, given = spec.attrs ? spec.attrs->get_int("axis", -1) : -1;
  const auto rank = static_cast<int64_t>(indices.dims.size()) + 1;
  if (!norm_axis(given, rank, &axis)) return refuse(spec, error, "axis " + std::to_string(given) + " is out of range for rank " + std::to_string(rank));
  if (static_cast<int64_t>(out.dims.size()) != rank) return refuse(spec, error, "output rank must be the indices' rank + 1");
  const int64_t depth = out.dims[static_cast<size_t>(axis)];
  std::vector<int64_t> want(indices.dims);
  want.insert(want.begin() + axis, depth);
  if (out.dims != want) return refuse(spec, error, "output shape " + dims_str(out.dims) + " is not " + dims_str(want));
  const int64_t inner = product(indices.dims, static_cast<size_t>(axis)), count = indices.numel(), elem = elem_size(out.dtype);
  const int64_t total = out.numel();
  return make_lambda_kernel([=](const void* const* in, void* const* outputs) {
    auto* dst = static_cast<uint8_t*>(outputs[0]);
    const auto* values = static_cast<const uint8_t*>(in[2]);
    for (int64_t i = 0; i < total; ++i) std::memcpy(dst + i * elem, values, static_cast<size_t>(elem));
    for (int64_t p = 0; p < count; ++p) {
      int64_t index;
      load_int(indices.dtype, in[0], p, 1, 1, &index);  // a float index is truncated, as ONNX says
      if (index < 0) index += depth;
      if (index < 0 || index >= depth) continue;  // out of range: the row keeps the off value (onnxruntime)
      std::memcpy(dst + ((p / inner * depth + index) * inner + p % inner) * elem, values + elem, static_cast<size_t>(elem));
    }
  });
}

std::unique_ptr<Kernel> make_size(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() != 1 || spec.outputs.size() != 1) return refuse(spec, error, "needs an input and an output");
  if (spec.outputs[0].dtype != ACL_INT64 || spec.outputs[0].numel() != 1) return refuse(spec, error, "output must be an INT64 scalar");
  const int64_t size = spec.inputs[0].numel();
  return make_lambda_kernel([size](const void* const*, void* const* out) { std::memcpy(out[0], &size, 8); });
}

}  // namespace

ASCENDSIM_KERNEL(Gather, "", make_gather);
ASCENDSIM_KERNEL(GatherElements, "", make_gather_elements);
ASCENDSIM_KERNEL(TopK, "", make_topk);
ASCENDSIM_KERNEL(Shape, "", make_shape);
ASCENDSIM_KERNEL(ConstantOfShape, "", make_constant_of_shape);
ASCENDSIM_KERNEL(Range, "", make_range);
ASCENDSIM_KERNEL(OneHot, "", make_one_hot);
ASCENDSIM_KERNEL(Size, "", make_size);

}  // namespace ascendsim::kernels
