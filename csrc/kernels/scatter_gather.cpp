// N-dimensional index kernels: GatherND, ScatterND, ScatterElements and ReverseSequence.
//
// GatherND copies, per batch group, the data slice each index tuple (the last dim of `indices`) names.
// ScatterND and ScatterElements copy `data` to the output (unless it is the same buffer) and then write the
// updates in index order, combined with the reduction (none: the later update wins, as onnxruntime runs it;
// add / mul / max / min in the dtype: float16 through float32, integers in int64 and stored back).
// ReverseSequence reverses the first sequence_lens[b] steps of each batch entry along the time axis.
// Negative indices count from the end; an index still out of range cannot be reported from run() (no error
// channel on the hot path), so GatherND writes zeros for it and the scatters skip it.
#include <algorithm>
#include <cstring>

#include "kernels/kernel_util.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

bool index_dtype(aclDataType d) { return d == ACL_INT32 || d == ACL_INT64; }
int64_t elem_size(aclDataType d) { return static_cast<int64_t>(aclDataTypeSize(d)); }

// The element offset (in units of `slice` elements) of an index tuple, or -1 when it is out of range.
int64_t tuple_offset(aclDataType it, const void* indices, int64_t first, int64_t depth, const int64_t* dims,
                     const int64_t* strides) {
  int64_t offset = 0;
  for (int64_t k = 0; k < depth; ++k) {
    int64_t index = read_index(it, indices, first + k);
    if (index < 0) index += dims[k];
    if (index < 0 || index >= dims[k]) return -1;
    offset += index * strides[k];
  }
  return offset;
}

std::unique_ptr<Kernel> make_gather_nd(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() != 2 || spec.outputs.size() != 1) return refuse(spec, error, "needs inputs data and indices");
  if (!index_dtype(spec.inputs[1].dtype)) return refuse(spec, error, "indices must be INT32 or INT64");
  const auto &xd = spec.inputs[0].dims, &id = spec.inputs[1].dims;
  const int64_t batch = spec.attrs != nullptr ? spec.attrs->get_int("batch_dims", 0) : 0;
  if (id.empty() || batch < 0 || batch >= static_cast<int64_t>(std::min(xd.size(), id.size())))
    return refuse(spec, error, "batch_dims " + std::to_string(batch) + " does not fit data " + dims_str(xd) + " and indices " + dims_str(id));
  const int64_t depth = id.back();
  const auto b = static_cast<size_t>(batch);
  if (depth < 1 || depth > static_cast<int64_t>(xd.size()) - batch) return refuse(spec, error, "the last dim of indices " + dims_str(id) + " does not fit data " + dims_str(xd));
  std::vector<int64_t> want(id.begin(), id.end() - 1);
  want.insert(want.end(), xd.begin() + batch + depth, xd.end());
  if (spec.outputs[0].dims != want || !std::equal(xd.begin(), xd.begin() + batch, id.begin()))
    return refuse(spec, error, "output shape " + dims_str(spec.outputs[0].dims) + " is not " + dims_str(want));
  const int64_t groups = product(xd, 0, b), slice = product(xd, b + static_cast<size_t>(depth)) * elem_size(spec.inputs[0].dtype);
  const int64_t per_group = product(id, b, id.size() - 1), group_bytes = product(xd, b) * elem_size(spec.inputs[0].dtype);
  std::vector<int64_t> dims(xd.begin() + batch, xd.begin() + batch + depth), strides(dims.size(), 1);
  for (size_t k = dims.size() - 1; k-- > 0;) strides[k] = strides[k + 1] * dims[k + 1];
  const aclDataType it = spec.inputs[1].dtype;
  return make_lambda_kernel([=](const void* const* in, void* const* out) {
    const auto* src = static_cast<const uint8_t*>(in[0]);
    auto* dst = static_cast<uint8_t*>(out[0]);
    parallel_for(groups * per_group, std::max<int64_t>(1, 65536 / std::max<int64_t>(slice, 1)), [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        const int64_t offset = tuple_offset(it, in[1], p * depth, depth, dims.data(), strides.data());
        if (offset < 0) {
          std::memset(dst + p * slice, 0, static_cast<size_t>(slice));
        } else {
          std::memcpy(dst + p * slice, src + (p / per_group) * group_bytes + offset * slice, static_cast<size_t>(slice));
        }
      }
    });
  });
}

enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

bool parse_reduction(const NodeSpec& spec, Reduction* out, std::string* error) {
  const std::string name = spec.attrs != nullptr ? spec.attrs->get_string("reduction", "none") : "none";
  static const std::pair<const char*, Reduction> table[] = {
      {"none", Reduction::kNone}, {"add", Reduction::kAdd}, {"mul", Reduction::kMul}, {"max", Reduction::kMax}, {"min", Reduction::kMin}};
  for (const auto& [key, value] : table) {
    if (name == key) {
      *out = value;
      return true;
    }
  }
  return fail_spec(spec, error, "reduction='" + name + "' is not supported (supported: none, add, mul, max, min)");
}

template <class T>
T combine(Reduction r, T old, T update) {
  switch (r) {
    case Reduction::kAdd: return static_cast<T>(old + update);
    case Reduction::kMul: return static_cast<T>(old * update);
    case Reduction::kMax: return std::max(old, update);
    case Reduction::kMin: return std::min(old, update);
    case Reduction::kNone: break;
  }
  return update;
}

// dst[i] = combine(dst[i], src[i]) for `count` elements of `dtype` at element offsets dst_at / src_at.
void write_updates(aclDataType dtype, Reduction r, void* dst, int64_t dst_at, const void* src, int64_t src_at, int64_t count) {
  const int64_t elem = elem_size(dtype);
  if (r == Reduction::kNone) {
    std::memcpy(static_cast<uint8_t*>(dst) + dst_at * elem, static_cast<const uint8_t*>(src) + src_at * elem, static_cast<size_t>(count * elem));
    return;
  }
  for (int64_t i = 0; i < count; ++i) {
    if (dtype == ACL_DOUBLE) {
      double* d = static_cast<double*>(dst) + dst_at + i;
      *d = combine(r, *d, static_cast<const double*>(src)[src_at + i]);
    } else if (is_float_dtype(dtype)) {
      float old, update;
      load_float(dtype, dst, dst_at + i, 1, 1, &old);
      load_float(dtype, src, src_at + i, 1, 1, &update);
      old = combine(r, old, update);
      store_float(dtype, &old, 1, dst, dst_at + i);
    } else {
      int64_t old, update;
      load_int(dtype, dst, dst_at + i, 1, 1, &old);
      load_int(dtype, src, src_at + i, 1, 1, &update);
      old = dtype == ACL_BOOL ? combine(r, old != 0, update != 0) : combine(r, old, update);
      store_int(dtype, &old, 1, dst, dst_at + i);
    }
  }
}

bool check_scatter(const NodeSpec& spec, Reduction* r, std::string* error) {
  if (spec.inputs.size() != 3 || spec.outputs.size() != 1) return fail_spec(spec, error, "needs inputs data, indices and updates");
  if (!index_dtype(spec.inputs[1].dtype)) return fail_spec(spec, error, "indices must be INT32 or INT64");
  const aclDataType d = spec.inputs[0].dtype;
  if (!is_float_dtype(d) && !is_int_dtype(d)) return fail_spec(spec, error, std::string("dtype ") + dtype_name(d) + " is not supported");
  if (spec.inputs[2].dtype != d || spec.outputs[0].dtype != d || spec.outputs[0].dims != spec.inputs[0].dims)
    return fail_spec(spec, error, "updates and the output must have the dtype of data, the output its shape");
  return parse_reduction(spec, r, error);
}

std::unique_ptr<Kernel> make_scatter_nd(const NodeSpec& spec, std::string* error) {
  Reduction r = Reduction::kNone;
  if (!check_scatter(spec, &r, error)) return nullptr;
  const auto &xd = spec.inputs[0].dims, &id = spec.inputs[1].dims, &ud = spec.inputs[2].dims;
  const int64_t depth = id.empty() ? 0 : id.back();
  if (depth < 1 || depth > static_cast<int64_t>(xd.size())) return refuse(spec, error, "the last dim of indices " + dims_str(id) + " does not fit data " + dims_str(xd));
  std::vector<int64_t> want(id.begin(), id.end() - 1);
  want.insert(want.end(), xd.begin() + depth, xd.end());
  if (ud != want) return refuse(spec, error, "updates shape " + dims_str(ud) + " is not " + dims_str(want));
  const int64_t slice = product(xd, static_cast<size_t>(depth)), rows = product(id, 0, id.size() - 1);
  std::vector<int64_t> dims(xd.begin(), xd.begin() + depth), strides(dims.size(), 1);
  for (size_t k = dims.size() - 1; k-- > 0;) strides[k] = strides[k + 1] * dims[k + 1];
  const aclDataType d = spec.inputs[0].dtype, it = spec.inputs[1].dtype;
  const size_t bytes = spec.inputs[0].nbytes();
  return make_lambda_kernel([=](const void* const* in, void* const* out) {
    if (out[0] != in[0] && bytes > 0) std::memcpy(out[0], in[0], bytes);
    for (int64_t row = 0; row < rows; ++row) {  // in order: with repeated indices the result depends on it
      const int64_t offset = tuple_offset(it, in[1], row * depth, depth, dims.data(), strides.data());
      if (offset >= 0) write_updates(d, r, out[0], offset * slice, in[2], row * slice, slice);
    }
  });
}

std::unique_ptr<Kernel> make_scatter_elements(const NodeSpec& spec, std::string* error) {
  Reduction r = Reduction::kNone;
  if (!check_scatter(spec, &r, error)) return nullptr;
  const auto &xd = spec.inputs[0].dims, &id = spec.inputs[1].dims;
  if (id != spec.inputs[2].dims || id.size() != xd.size() || xd.empty())
    return refuse(spec, error, "indices " + dims_str(id) + " and updates " + dims_str(spec.inputs[2].dims) + " must have one shape, of the rank of data " + dims_str(xd));
  int64_t axis = 0;
  const int64_t given = spec.attrs != nullptr ? spec.attrs->get_int("axis", 0) : 0;
  if (!norm_axis(given, static_cast<int64_t>(xd.size()), &axis)) return refuse(spec, error, "axis " + std::to_string(given) + " is out of range");
  for (size_t k = 0; k < xd.size(); ++k)
    if (static_cast<int64_t>(k) != axis && id[k] > xd[k]) return refuse(spec, error, "indices " + dims_str(id) + " exceed data " + dims_str(xd));
  const auto xs = contiguous_strides(xd);
  const int64_t count = spec.inputs[1].numel(), dim = xd[static_cast<size_t>(axis)];
  const aclDataType d = spec.inputs[0].dtype, it = spec.inputs[1].dtype;
  const size_t bytes = spec.inputs[0].nbytes();
  return make_lambda_kernel([=](const void* const* in, void* const* out) {
    if (out[0] != in[0] && bytes > 0) std::memcpy(out[0], in[0], bytes);
    for (int64_t p = 0; p < count; ++p) {
      int64_t index = read_index(it, in[1], p);
      if (index < 0) index += dim;
      if (index < 0 || index >= dim) continue;
      int64_t rem = p, offset = 0;
      for (size_t k = id.size(); k-- > 0;) {
        const int64_t i = rem % id[k];
        rem /= id[k];
        offset += (static_cast<int64_t>(k) == axis ? index : i) * xs[k];
      }
      write_updates(d, r, out[0], offset, in[2], p, 1);
    }
  });
}

std::unique_ptr<Kernel> make_reverse_sequence(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.size() != 2 || spec.outputs.size() != 1) return refuse(spec, error, "needs inputs input and sequence_lens");
  const auto& xd = spec.inputs[0].dims;
  const int64_t batch_axis = spec.attrs != nullptr ? spec.attrs->get_int("batch_axis", 1) : 1;
  const int64_t time_axis = spec.attrs != nullptr ? spec.attrs->get_int("time_axis", 0) : 0;
  if (xd.size() < 2 || std::min(batch_axis, time_axis) != 0 || std::max(batch_axis, time_axis) != 1)
    return refuse(spec, error, "batch_axis and time_axis must be 0 and 1 of a rank >= 2 input " + dims_str(xd));
  if (spec.inputs[1].dtype != ACL_INT64 || spec.inputs[1].numel() != xd[static_cast<size_t>(batch_axis)])
    return refuse(spec, error, "sequence_lens must hold one INT64 length per batch entry");
  if (spec.outputs[0].dims != xd || spec.outputs[0].dtype != spec.inputs[0].dtype) return refuse(spec, error, "the output must have the input's shape and dtype");
  const int64_t batch = xd[static_cast<size_t>(batch_axis)], steps = xd[static_cast<size_t>(time_axis)];
  const int64_t row = product(xd, 2) * elem_size(spec.inputs[0].dtype);  // bytes of one (time, batch) entry
  const int64_t time_stride = time_axis == 0 ? batch * row : row, batch_stride = time_axis == 0 ? row : steps * row;
  return make_lambda_kernel([=](const void* const* in, void* const* out) {
    const auto* src = static_cast<const uint8_t*>(in[0]);
    auto* dst = static_cast<uint8_t*>(out[0]);
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t length = std::clamp<int64_t>(read_index(ACL_INT64, in[1], b), 0, steps);  // onnxruntime refuses more
      for (int64_t t = 0; t < steps; ++t) {
        const int64_t from = t < length ? length - 1 - t : t;
        std::memcpy(dst + b * batch_stride + t * time_stride, src + b * batch_stride + from * time_stride, static_cast<size_t>(row));
      }
    }
  });
}

}  // namespace

ASCENDSIM_KERNEL(GatherND, "", make_gather_nd);
ASCENDSIM_KERNEL(ScatterND, "", make_scatter_nd);
ASCENDSIM_KERNEL(ScatterElements, "", make_scatter_elements);
ASCENDSIM_KERNEL(ReverseSequence, "", make_reverse_sequence);

}  // namespace ascendsim::kernels
