// Data-movement kernels, any dtype: Reshape/Flatten/Squeeze/Unsqueeze (a copy unless the output is the
// input), Transpose, Expand, Tile, Concat, Split, Slice and Pad (constant, reflect, edge, wrap).
//
// Transpose/Expand/Tile/Slice are one StridedCopy each (source strides permuted, zero for broadcast dims,
// interleaved repeat dims of stride 0 for Tile, start offset and step-scaled strides for Slice). Concat and
// Split copy contiguous (outer x chunk) blocks. Pad builds, per output dim, a table of source indices (-1 =
// the constant) and copies row by row. Shapes are static: factories check them against the node's output
// shapes; Slice reads its starts/ends/axes/steps inputs at run time (they are small).
#include <algorithm>
#include <cstring>
#include <map>

#include "kernels/copy_util.h"
#include "kernels/kernel_util.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

int64_t elem_size(aclDataType d) { return static_cast<int64_t>(aclDataTypeSize(d)); }

bool supported_dtype(const NodeSpec& spec, aclDataType d, std::string* error) {
  if (is_float_dtype(d) || is_int_dtype(d)) return true;
  return fail_spec(spec, error, std::string("dtype ") + dtype_name(d) + " is not supported");
}

std::unique_ptr<Kernel> make_reshape(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.empty() || spec.outputs.empty()) return refuse(spec, error, "needs an input and an output");
  if (spec.inputs[0].dtype != spec.outputs[0].dtype || spec.inputs[0].numel() != spec.outputs[0].numel())
    return refuse(spec, error, "cannot reshape " + dims_str(spec.inputs[0].dims) + " to " + dims_str(spec.outputs[0].dims));
  size_t bytes = spec.outputs[0].nbytes();
  return make_lambda_kernel([bytes](const void* const* in, void* const* out) {
    if (out[0] != in[0] && bytes > 0) std::memmove(out[0], in[0], bytes);
  });
}

std::unique_ptr<Kernel> make_transpose(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.empty() || spec.outputs.empty()) return refuse(spec, error, "needs an input and an output");
  if (!supported_dtype(spec, spec.inputs[0].dtype, error)) return nullptr;
  const auto& dims = spec.inputs[0].dims;
  std::vector<int64_t> perm = spec.attrs ? spec.attrs->get_ints("perm") : std::vector<int64_t>{};
  if (perm.empty())
    for (size_t i = dims.size(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
  std::vector<bool> seen(dims.size(), false);
  if (perm.size() != dims.size()) return refuse(spec, error, "perm " + dims_str(perm) + " does not match rank " + std::to_string(dims.size()));
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(dims.size()) || seen[static_cast<size_t>(p)])
      return refuse(spec, error, "perm " + dims_str(perm) + " is not a permutation");
    seen[static_cast<size_t>(p)] = true;
  }
  auto in_strides = contiguous_strides(dims);
  std::vector<int64_t> out_dims, strides;
  for (int64_t p : perm) {
    out_dims.push_back(dims[static_cast<size_t>(p)]);
    strides.push_back(in_strides[static_cast<size_t>(p)]);
  }
  if (out_dims != spec.outputs[0].dims) return refuse(spec, error, "output shape " + dims_str(spec.outputs[0].dims) + " is not " + dims_str(out_dims));
  StridedCopy copy;
  copy.init(out_dims, strides, elem_size(spec.inputs[0].dtype));
  return make_lambda_kernel([copy](const void* const* in, void* const* out) { copy.run(in[0], out[0]); });
}

std::unique_ptr<Kernel> make_expand(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.empty() || spec.outputs.empty()) return refuse(spec, error, "needs an input and an output");
  if (!supported_dtype(spec, spec.inputs[0].dtype, error)) return nullptr;
  const auto& od = spec.outputs[0].dims;
  std::vector<int64_t> joined;
  if (!broadcast_shapes({spec.inputs[0].dims, od}, &joined) || joined != od)
    return refuse(spec, error, "input " + dims_str(spec.inputs[0].dims) + " does not expand to " + dims_str(od));
  std::vector<int64_t> strides(od.size(), 0);
  const auto& id = spec.inputs[0].dims;
  auto cs = contiguous_strides(id);
  for (size_t i = 0; i < id.size(); ++i) strides[od.size() - id.size() + i] = id[i] == 1 ? 0 : cs[i];
  StridedCopy copy;
  copy.init(od, strides, elem_size(spec.inputs[0].dtype));
  return make_lambda_kernel([copy](const void* const* in, void* const* out) { copy.run(in[0], out[0]); });
}

std::unique_ptr<Kernel> make_tile(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() < 2 || spec.outputs.empty()) return refuse(spec, error, "needs inputs input and repeats");
  if (!supported_dtype(spec, spec.inputs[0].dtype, error)) return nullptr;
  const auto &id = spec.inputs[0].dims, &od = spec.outputs[0].dims;
  if (od.size() != id.size()) return refuse(spec, error, "output rank differs from the input's");
  std::vector<int64_t> dims, strides;
  auto cs = contiguous_strides(id);
  for (size_t i = 0; i < id.size(); ++i) {
    if (id[i] == 0 ? od[i] != 0 : od[i] % id[i] != 0)
      return refuse(spec, error, "output " + dims_str(od) + " is not a tiling of " + dims_str(id));
    dims.push_back(id[i] == 0 ? 0 : od[i] / id[i]);  // the repeat, stride 0
    strides.push_back(0);
    dims.push_back(id[i]);
    strides.push_back(cs[i]);
  }
  StridedCopy copy;
  copy.init(dims, strides, elem_size(spec.inputs[0].dtype));
  return make_lambda_kernel([copy](const void* const* in, void* const* out) { copy.run(in[0], out[0]); });
}

std::unique_ptr<Kernel> make_concat(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.empty() || spec.outputs.empty()) return refuse(spec, error, "needs inputs and an output");
  const auto& od = spec.outputs[0].dims;
  int64_t axis = 0, given = spec.attrs ? spec.attrs->get_int("axis", 0) : 0;
  if (!norm_axis(given, static_cast<int64_t>(od.size()), &axis)) return refuse(spec, error, "axis " + std::to_string(given) + " is out of range");
  int64_t elem = elem_size(spec.outputs[0].dtype), total = 0;
  std::vector<int64_t> chunks;  // bytes per outer row of each input
  for (const auto& in : spec.inputs) {
    if (in.dtype != spec.outputs[0].dtype) return refuse(spec, error, "inputs have different dtypes");
    if (in.dims.size() != od.size()) return refuse(spec, error, "inputs have different ranks");
    for (size_t i = 0; i < od.size(); ++i)
      if (static_cast<int64_t>(i) != axis && in.dims[i] != od[i]) return refuse(spec, error, "input " + dims_str(in.dims) + " does not fit output " + dims_str(od));
    total += in.dims[static_cast<size_t>(axis)];
    chunks.push_back(product(in.dims, static_cast<size_t>(axis)) * elem);
  }
  if (total != od[static_cast<size_t>(axis)]) return refuse(spec, error, "input sizes along the axis do not add up to " + std::to_string(od[static_cast<size_t>(axis)]));
  int64_t outer = product(od, 0, static_cast<size_t>(axis)), row = product(od, static_cast<size_t>(axis)) * elem;
  return make_lambda_kernel([chunks, outer, row](const void* const* in, void* const* out) {
    auto* dst = static_cast<uint8_t*>(out[0]);
    parallel_for(outer, std::max<int64_t>(1, 65536 / std::max<int64_t>(row, 1)), [&](int64_t o0, int64_t o1) {
      for (int64_t o = o0; o < o1; ++o) {
        int64_t at = o * row;
        for (size_t k = 0; k < chunks.size(); ++k) {
          if (chunks[k] > 0) std::memcpy(dst + at, static_cast<const uint8_t*>(in[k]) + o * chunks[k], static_cast<size_t>(chunks[k]));
          at += chunks[k];
        }
      }
    });
  });
}

std::unique_ptr<Kernel> make_split(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.empty() || spec.outputs.empty()) return refuse(spec, error, "needs an input and outputs");
  const auto& id = spec.inputs[0].dims;
  int64_t axis = 0, given = spec.attrs ? spec.attrs->get_int("axis", 0) : 0;
  if (!norm_axis(given, static_cast<int64_t>(id.size()), &axis)) return refuse(spec, error, "axis " + std::to_string(given) + " is out of range");
  int64_t elem = elem_size(spec.inputs[0].dtype), total = 0;
  std::vector<int64_t> chunks;
  for (const auto& o : spec.outputs) {
    if (o.dtype != spec.inputs[0].dtype || o.dims.size() != id.size()) return refuse(spec, error, "outputs do not match the input");
    for (size_t i = 0; i < id.size(); ++i)
      if (static_cast<int64_t>(i) != axis && o.dims[i] != id[i]) return refuse(spec, error, "output " + dims_str(o.dims) + " does not fit input " + dims_str(id));
    total += o.dims[static_cast<size_t>(axis)];
    chunks.push_back(product(o.dims, static_cast<size_t>(axis)) * elem);
  }
  if (total != id[static_cast<size_t>(axis)]) return refuse(spec, error, "output sizes along the axis do not add up to " + std::to_string(id[static_cast<size_t>(axis)]));
  int64_t outer = product(id, 0, static_cast<size_t>(axis)), row = product(id, static_cast<size_t>(axis)) * elem;
  return make_lambda_kernel([chunks, outer, row](const void* const* in, void* const* out) {
    auto* src = static_cast<const uint8_t*>(in[0]);
    for (int64_t o = 0; o < outer; ++o) {
      int64_t at = o * row;
      for (size_t k = 0; k < chunks.size(); ++k) {
        if (chunks[k] > 0) std::memcpy(static_cast<uint8_t*>(out[k]) + o * chunks[k], src + at, static_cast<size_t>(chunks[k]));
        at += chunks[k];
      }
    }
  });
}

// Slice: the copy is planned from starts/axes/steps (the output shape is static) once at load when they
// are constants, else on every run.
class SliceKernel final : public Kernel {
 public:
  explicit SliceKernel(const NodeSpec& spec) : in_(spec.inputs), present_(spec.present), out_dims_(spec.outputs[0].dims) {
    elem_ = elem_size(spec.inputs[0].dtype);
    fixed_ = true;
    for (size_t i = 1; i < in_.size(); ++i)
      if (has(i) && (i >= spec.constant_data.size() || spec.constant_data[i] == nullptr)) fixed_ = false;
    if (fixed_) plan(spec.constant_data.data(), &copy_, &offset_);
  }
  void run(const void* const* inputs, void* const* outputs) override {
    if (fixed_) {
      copy_.run(static_cast<const uint8_t*>(inputs[0]) + offset_ * elem_, outputs[0]);
      return;
    }
    StridedCopy copy;
    int64_t offset = 0;
    plan(inputs, &copy, &offset);
    copy.run(static_cast<const uint8_t*>(inputs[0]) + offset * elem_, outputs[0]);
  }

 private:
  void plan(const void* const* inputs, StridedCopy* copy, int64_t* offset) const {
    const auto& dims = in_[0].dims;
    size_t rank = dims.size();
    int64_t starts[kMaxRank], steps[kMaxRank];
    for (size_t i = 0; i < rank; ++i) {
      starts[i] = 0;
      steps[i] = 1;
    }
    int64_t count = in_[1].numel();
    for (int64_t k = 0; k < count; ++k) {
      int64_t axis = has(3) ? read_index(in_[3].dtype, inputs[3], k) : k;
      if (axis < 0) axis += static_cast<int64_t>(rank);
      if (axis < 0 || axis >= static_cast<int64_t>(rank)) continue;
      int64_t step = has(4) ? read_index(in_[4].dtype, inputs[4], k) : 1;
      if (step == 0) step = 1;
      int64_t dim = dims[static_cast<size_t>(axis)];
      // A step past the dim takes one element, as a step of the dim does; bounded so that stride * step cannot
      // overflow (a step of 2^63 - 1 reached the multiplication below).
      const int64_t most = std::max<int64_t>(dim, 1);
      step = std::clamp(step, -most, most);
      int64_t start = read_index(in_[1].dtype, inputs[1], k);
      if (start < 0) start += dim;
      start = step > 0 ? std::clamp<int64_t>(start, 0, dim) : std::clamp<int64_t>(start, 0, std::max<int64_t>(dim - 1, 0));
      starts[axis] = start;
      steps[axis] = step;
    }
    auto cs = contiguous_strides(dims);
    *offset = 0;
    std::vector<int64_t> strides(rank);
    for (size_t i = 0; i < rank; ++i) {
      *offset += starts[i] * cs[i];
      strides[i] = cs[i] * steps[i];
    }
    copy->init(out_dims_, strides, elem_);
  }
  bool has(size_t i) const { return i < in_.size() && (i >= present_.size() || present_[i]); }
  std::vector<TensorDesc> in_;
  std::vector<bool> present_;
  std::vector<int64_t> out_dims_;
  int64_t elem_ = 4, offset_ = 0;
  bool fixed_ = false;
  StridedCopy copy_;
};

std::unique_ptr<Kernel> make_slice(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() < 3 || spec.outputs.empty()) return refuse(spec, error, "needs inputs data, starts, ends");
  if (spec.inputs[0].dims.size() > static_cast<size_t>(kMaxRank)) return refuse(spec, error, "rank above 8 is not supported");
  if (spec.outputs[0].dims.size() != spec.inputs[0].dims.size()) return refuse(spec, error, "output rank differs from the input's");
  for (size_t i = 1; i < spec.inputs.size(); ++i) {
    if (i < spec.present.size() && !spec.present[i]) continue;
    aclDataType d = spec.inputs[i].dtype;
    if (d != ACL_INT32 && d != ACL_INT64) return refuse(spec, error, "input " + std::to_string(i) + " must be INT32 or INT64");
    if (spec.inputs[i].numel() != spec.inputs[1].numel()) return refuse(spec, error, "starts/ends/axes/steps differ in length");
  }
  return std::make_unique<SliceKernel>(spec);
}

// Pad: the source index of output index o along a dim of n elements padded by `before` (-1: the constant
// value), computed where it is needed rather than tabulated, so that a load costs nothing whatever the pads
// (a table per dim of a Pad by 2^38 grew past the host's memory before the load could fail).
enum class PadMode { kConstant, kEdge, kWrap, kReflect };

int64_t pad_source(int64_t o, int64_t before, int64_t n, PadMode mode) {
  const int64_t i = o - before;
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case PadMode::kConstant: return -1;
    case PadMode::kEdge: return i < 0 ? 0 : n - 1;
    case PadMode::kWrap: return ((i % n) + n) % n;
    case PadMode::kReflect: break;
  }
  const int64_t period = 2 * (n - 1), k = ((i % period) + period) % period;
  return k >= n ? period - k : k;
}

std::unique_ptr<Kernel> make_pad(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.empty() || spec.outputs.empty()) return refuse(spec, error, "needs an input and an output");
  if (!supported_dtype(spec, spec.inputs[0].dtype, error)) return nullptr;
  for (size_t i = 1; i < spec.inputs.size(); ++i)
    if (i >= spec.present.size() || spec.present[i]) return refuse(spec, error, "pads/value/axes must be attributes (the compiler's IR form)");
  const auto &id = spec.inputs[0].dims, &od = spec.outputs[0].dims;
  const std::string mode_name = spec.attrs ? spec.attrs->get_string("mode", "constant") : "constant";
  const std::map<std::string, PadMode> modes = {{"constant", PadMode::kConstant}, {"edge", PadMode::kEdge},
                                                {"wrap", PadMode::kWrap}, {"reflect", PadMode::kReflect}};
  const auto found = modes.find(mode_name);
  if (found == modes.end()) return refuse(spec, error, "mode='" + mode_name + "' is not supported");
  const PadMode mode = found->second;
  std::vector<int64_t> pads = spec.attrs ? spec.attrs->get_ints("pads") : std::vector<int64_t>{};
  size_t rank = id.size();
  if (rank == 0) return refuse(spec, error, "cannot pad a scalar");
  if (pads.size() != 2 * rank) return refuse(spec, error, "pads " + dims_str(pads) + " must have " + std::to_string(2 * rank) + " values");
  for (size_t d = 0; d < rank; ++d) {
    int64_t size = 0;
    if (__builtin_add_overflow(id[d], pads[d], &size) || __builtin_add_overflow(size, pads[d + rank], &size) ||
        od.size() != rank || size != od[d])
      return refuse(spec, error, "output shape " + dims_str(od) + " does not match pads " + dims_str(pads));
    if (mode != PadMode::kConstant && id[d] == 0 && size > 0)
      return refuse(spec, error, "mode='" + mode_name + "' cannot pad an empty dim");
    if (mode == PadMode::kReflect && (pads[d] > 0 || pads[d + rank] > 0) && id[d] < 2)
      return refuse(spec, error, "reflect padding needs at least 2 elements");
  }
  int64_t elem = elem_size(spec.inputs[0].dtype);
  // The constant value in the tensor's dtype.
  std::vector<uint8_t> value(static_cast<size_t>(elem), 0);
  float fv = static_cast<float>(spec.attrs ? spec.attrs->get_float("value", 0.0) : 0.0);
  if (is_float_dtype(spec.inputs[0].dtype)) {
    store_float(spec.inputs[0].dtype, &fv, 1, value.data(), 0);
  } else {
    int64_t iv = to_int64(fv);  // the same value on every CPU for a NaN or out-of-range value
    store_int(spec.inputs[0].dtype, &iv, 1, value.data(), 0);
  }
  auto cs = contiguous_strides(id);
  int64_t inner = od.back(), rows = inner == 0 ? 0 : spec.outputs[0].numel() / inner;
  const int64_t n = id.back(), before = pads[rank - 1];
  // Output columns [lo, hi) of a row read the source row's [lo - before, hi - before) in one copy.
  const int64_t lo = std::clamp<int64_t>(before, 0, inner), hi = std::clamp<int64_t>(before + n, lo, inner);
  return make_lambda_kernel([=](const void* const* in, void* const* out) {
    auto* src = static_cast<const uint8_t*>(in[0]);
    auto* dst = static_cast<uint8_t*>(out[0]);
    parallel_for(rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(inner, 1)), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        int64_t off = 0, rem = r;
        bool constant_row = false;
        for (size_t d = rank - 1; d-- > 0;) {
          int64_t i = pad_source(rem % od[d], pads[d], id[d], mode);
          rem /= od[d];
          if (i < 0) constant_row = true;
          off += i * cs[d];
        }
        uint8_t* row = dst + r * inner * elem;
        const uint8_t* from_row = src + off * elem;
        for (int64_t j = 0; j < inner; ++j) {
          if (j == lo && hi > lo && !constant_row) {
            std::memcpy(row + j * elem, from_row + (j - before) * elem, static_cast<size_t>((hi - lo) * elem));
            j = hi - 1;
            continue;
          }
          int64_t i = constant_row ? -1 : pad_source(j, before, n, mode);
          std::memcpy(row + j * elem, i < 0 ? value.data() : from_row + i * elem, static_cast<size_t>(elem));
        }
      }
    });
  });
}

}  // namespace

ASCENDSIM_KERNEL(Reshape, "", make_reshape);
ASCENDSIM_KERNEL(Flatten, "", make_reshape);
ASCENDSIM_KERNEL(Squeeze, "", make_reshape);
ASCENDSIM_KERNEL(Unsqueeze, "", make_reshape);
ASCENDSIM_KERNEL(Transpose, "", make_transpose);
ASCENDSIM_KERNEL(Expand, "", make_expand);
ASCENDSIM_KERNEL(Tile, "", make_tile);
ASCENDSIM_KERNEL(Concat, "", make_concat);
ASCENDSIM_KERNEL(Split, "", make_split);
ASCENDSIM_KERNEL(Slice, "", make_slice);
ASCENDSIM_KERNEL(Pad, "", make_pad);

}  // namespace ascendsim::kernels
