// Shared kernel helpers (see kernel_util.h): dtype conversion loops, broadcasting plans, scratch memory
// and the ROUND_OUTPUTS_FP16 wrapper.
#include "kernels/kernel_util.h"

#include <algorithm>
#include <limits>

namespace ascendsim::kernels {

void round_fp16_inplace(float* data, int64_t n) {
  for (int64_t i = 0; i < n; ++i) data[i] = round_fp16(data[i]);
}

const char* dtype_name(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT: return "FLOAT";
    case ACL_FLOAT16: return "FLOAT16";
    case ACL_INT8: return "INT8";
    case ACL_INT32: return "INT32";
    case ACL_UINT8: return "UINT8";
    case ACL_INT16: return "INT16";
    case ACL_UINT16: return "UINT16";
    case ACL_UINT32: return "UINT32";
    case ACL_INT64: return "INT64";
    case ACL_UINT64: return "UINT64";
    case ACL_DOUBLE: return "DOUBLE";
    case ACL_BOOL: return "BOOL";
    default: return "UNSUPPORTED";
  }
}

namespace {

template <class S, class D, class Cvt>
inline void gather(const void* base, int64_t offset, int64_t stride, int64_t n, D* dst, Cvt cvt) {
  const S* src = static_cast<const S*>(base) + offset;
  if (stride == 1) {
    for (int64_t i = 0; i < n; ++i) dst[i] = cvt(src[i]);
  } else if (stride == 0) {
    D v = cvt(src[0]);
    for (int64_t i = 0; i < n; ++i) dst[i] = v;
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = cvt(src[i * stride]);
  }
}

template <class D, class S, class Cvt>
inline void scatter(const S* src, int64_t n, void* base, int64_t offset, Cvt cvt) {
  D* dst = static_cast<D*>(base) + offset;
  for (int64_t i = 0; i < n; ++i) dst[i] = cvt(src[i]);
}

template <class T>
inline T float_to_int(float v) {
  // Truncation toward zero as C casts, without the undefined behaviour of out-of-range values.
  if (!(v == v)) return T(0);
  double d = static_cast<double>(v);
  if (d <= static_cast<double>(std::numeric_limits<int64_t>::min())) return static_cast<T>(std::numeric_limits<int64_t>::min());
  if (d >= 9.2233720368547758e18) return static_cast<T>(std::numeric_limits<int64_t>::max());
  return static_cast<T>(static_cast<int64_t>(d));
}

}  // namespace

void load_float(aclDataType dtype, const void* base, int64_t offset, int64_t stride, int64_t n, float* dst) {
  auto same = [](auto v) { return static_cast<float>(v); };
  switch (dtype) {
    case ACL_FLOAT: gather<float>(base, offset, stride, n, dst, same); break;
    case ACL_FLOAT16: gather<uint16_t>(base, offset, stride, n, dst, [](uint16_t h) { return half_to_float(h); }); break;
    case ACL_DOUBLE: gather<double>(base, offset, stride, n, dst, same); break;
    case ACL_INT8: gather<int8_t>(base, offset, stride, n, dst, same); break;
    case ACL_UINT8: gather<uint8_t>(base, offset, stride, n, dst, same); break;
    case ACL_BOOL: gather<uint8_t>(base, offset, stride, n, dst, [](uint8_t v) { return v ? 1.0f : 0.0f; }); break;
    case ACL_INT16: gather<int16_t>(base, offset, stride, n, dst, same); break;
    case ACL_UINT16: gather<uint16_t>(base, offset, stride, n, dst, same); break;
    case ACL_INT32: gather<int32_t>(base, offset, stride, n, dst, same); break;
    case ACL_UINT32: gather<uint32_t>(base, offset, stride, n, dst, same); break;
    case ACL_INT64: gather<int64_t>(base, offset, stride, n, dst, same); break;
    case ACL_UINT64: gather<uint64_t>(base, offset, stride, n, dst, same); break;
    default: std::fill(dst, dst + n, 0.0f); break;
  }
}

void load_int(aclDataType dtype, const void* base, int64_t offset, int64_t stride, int64_t n, int64_t* dst) {
  auto same = [](auto v) { return static_cast<int64_t>(v); };
  switch (dtype) {
    case ACL_FLOAT: gather<float>(base, offset, stride, n, dst, [](float v) { return float_to_int<int64_t>(v); }); break;
    case ACL_FLOAT16:
      gather<uint16_t>(base, offset, stride, n, dst, [](uint16_t h) { return float_to_int<int64_t>(half_to_float(h)); });
      break;
    case ACL_DOUBLE:
      gather<double>(base, offset, stride, n, dst, [](double v) { return float_to_int<int64_t>(static_cast<float>(v)); });
      break;
    case ACL_INT8: gather<int8_t>(base, offset, stride, n, dst, same); break;
    case ACL_UINT8: gather<uint8_t>(base, offset, stride, n, dst, same); break;
    case ACL_BOOL: gather<uint8_t>(base, offset, stride, n, dst, [](uint8_t v) { return int64_t(v != 0); }); break;
    case ACL_INT16: gather<int16_t>(base, offset, stride, n, dst, same); break;
    case ACL_UINT16: gather<uint16_t>(base, offset, stride, n, dst, same); break;
    case ACL_INT32: gather<int32_t>(base, offset, stride, n, dst, same); break;
    case ACL_UINT32: gather<uint32_t>(base, offset, stride, n, dst, same); break;
    case ACL_INT64: gather<int64_t>(base, offset, stride, n, dst, same); break;
    case ACL_UINT64: gather<uint64_t>(base, offset, stride, n, dst, same); break;
    default: std::fill(dst, dst + n, int64_t(0)); break;
  }
}

void store_float(aclDataType dtype, const float* src, int64_t n, void* base, int64_t offset) {
  switch (dtype) {
    case ACL_FLOAT: std::memmove(static_cast<float*>(base) + offset, src, static_cast<size_t>(n) * 4); break;
    case ACL_FLOAT16: scatter<uint16_t>(src, n, base, offset, [](float v) { return float_to_half(v); }); break;
    case ACL_DOUBLE: scatter<double>(src, n, base, offset, [](float v) { return static_cast<double>(v); }); break;
    case ACL_BOOL: scatter<uint8_t>(src, n, base, offset, [](float v) { return uint8_t(v != 0.0f); }); break;
    case ACL_INT8: scatter<int8_t>(src, n, base, offset, [](float v) { return float_to_int<int8_t>(v); }); break;
    case ACL_UINT8: scatter<uint8_t>(src, n, base, offset, [](float v) { return float_to_int<uint8_t>(v); }); break;
    case ACL_INT16: scatter<int16_t>(src, n, base, offset, [](float v) { return float_to_int<int16_t>(v); }); break;
    case ACL_UINT16: scatter<uint16_t>(src, n, base, offset, [](float v) { return float_to_int<uint16_t>(v); }); break;
    case ACL_INT32: scatter<int32_t>(src, n, base, offset, [](float v) { return float_to_int<int32_t>(v); }); break;
    case ACL_UINT32: scatter<uint32_t>(src, n, base, offset, [](float v) { return float_to_int<uint32_t>(v); }); break;
    case ACL_INT64: scatter<int64_t>(src, n, base, offset, [](float v) { return float_to_int<int64_t>(v); }); break;
    case ACL_UINT64: scatter<uint64_t>(src, n, base, offset, [](float v) { return float_to_int<uint64_t>(v); }); break;
    default: break;
  }
}

void store_int(aclDataType dtype, const int64_t* src, int64_t n, void* base, int64_t offset) {
  auto to = [](auto tag) { return [](int64_t v) { return static_cast<decltype(tag)>(v); }; };
  switch (dtype) {
    case ACL_FLOAT: scatter<float>(src, n, base, offset, to(float())); break;
    case ACL_FLOAT16:
      scatter<uint16_t>(src, n, base, offset, [](int64_t v) { return float_to_half(static_cast<float>(v)); });
      break;
    case ACL_DOUBLE: scatter<double>(src, n, base, offset, to(double())); break;
    case ACL_BOOL: scatter<uint8_t>(src, n, base, offset, [](int64_t v) { return uint8_t(v != 0); }); break;
    case ACL_INT8: scatter<int8_t>(src, n, base, offset, to(int8_t())); break;
    case ACL_UINT8: scatter<uint8_t>(src, n, base, offset, to(uint8_t())); break;
    case ACL_INT16: scatter<int16_t>(src, n, base, offset, to(int16_t())); break;
    case ACL_UINT16: scatter<uint16_t>(src, n, base, offset, to(uint16_t())); break;
    case ACL_INT32: scatter<int32_t>(src, n, base, offset, to(int32_t())); break;
    case ACL_UINT32: scatter<uint32_t>(src, n, base, offset, to(uint32_t())); break;
    case ACL_INT64: std::memmove(static_cast<int64_t*>(base) + offset, src, static_cast<size_t>(n) * 8); break;
    case ACL_UINT64: scatter<uint64_t>(src, n, base, offset, to(uint64_t())); break;
    default: break;
  }
}

int64_t read_index(aclDataType dtype, const void* base, int64_t i) {
  int64_t v = 0;
  load_int(dtype, base, i, 1, 1, &v);
  return v;
}

std::string dims_str(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return strides;
}

int64_t product(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  size_t stop = std::min(end, dims.size());
  int64_t n = 1;
  for (auto it = dims.begin() + static_cast<std::ptrdiff_t>(std::min(begin, stop)); it != dims.begin() + static_cast<std::ptrdiff_t>(stop); ++it) n *= *it;
  return n;
}

bool norm_axis(int64_t axis, int64_t rank, int64_t* out) {
  if (axis < -rank || axis >= rank) return false;
  *out = axis < 0 ? axis + rank : axis;
  return true;
}

bool broadcast_shapes(const std::vector<std::vector<int64_t>>& shapes, std::vector<int64_t>* out) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  out->assign(rank, 1);
  for (const auto& s : shapes) {
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& o = (*out)[rank - s.size() + i];
      int64_t d = s[i];
      if (d == o || d == 1) continue;
      if (o != 1) return false;
      o = d;
    }
  }
  return true;
}

BroadcastPlan plan_broadcast(const std::vector<int64_t>& out_dims, const std::vector<std::vector<int64_t>>& in_dims) {
  size_t rank = out_dims.size(), count = in_dims.size();
  std::vector<std::vector<int64_t>> full(count, std::vector<int64_t>(rank, 0));
  for (size_t k = 0; k < count; ++k) {
    const auto& d = in_dims[k];
    int64_t stride = 1;
    for (size_t i = d.size(); i-- > 0;) {
      full[k][rank - d.size() + i] = d[i] == 1 ? 0 : stride;
      stride *= d[i];
    }
  }
  BroadcastPlan plan;
  plan.strides.assign(count, {});
  for (size_t i = 0; i < rank; ++i) {
    if (out_dims[i] == 1) continue;
    bool merge = !plan.dims.empty();
    for (size_t k = 0; k < count && merge; ++k) merge = plan.strides[k].back() == full[k][i] * out_dims[i];
    if (merge) {
      plan.dims.back() *= out_dims[i];
      for (size_t k = 0; k < count; ++k) plan.strides[k].back() = full[k][i];
    } else {
      plan.dims.push_back(out_dims[i]);
      for (size_t k = 0; k < count; ++k) plan.strides[k].push_back(full[k][i]);
    }
  }
  if (plan.dims.empty()) {
    int64_t n = product(out_dims);  // 1, or 0 for an empty tensor
    plan.dims.push_back(n);
    for (size_t k = 0; k < count; ++k) plan.strides[k].push_back(0);
  }
  return plan;
}

int64_t BroadcastPlan::row_offset(size_t k, int64_t row) const {
  int64_t offset = 0;
  const auto& s = strides[k];
  for (size_t d = dims.size() - 1; d-- > 0;) {
    offset += (row % dims[d]) * s[d];
    row /= dims[d];
  }
  return offset;
}

float* scratch_floats(int slot, size_t count) {
  thread_local std::vector<float> buffers[16];
  auto& b = buffers[slot & 15];
  if (b.size() < count) b.resize(count);
  return b.data();
}

std::unique_ptr<Kernel> apply_node_flags(const NodeSpec& spec, std::unique_ptr<Kernel> kernel) {
  // ROUND_OUTPUTS_FP16 is applied by the executor for every node (csrc/model/loaded_model.cpp), and
  // ROUND_INPUTS_FP16 by the cube kernels themselves; nothing to wrap today.
  (void)spec;
  return kernel;
}

}  // namespace ascendsim::kernels

namespace ascendsim::kernels {

const float* float_input(const TensorDesc& desc, const void* data, bool round_fp16_values, int slot) {
  int64_t n = desc.numel();
  if (desc.dtype == ACL_FLOAT && !round_fp16_values) return static_cast<const float*>(data);
  float* buffer = scratch_floats(slot, static_cast<size_t>(n));
  if (desc.dtype == ACL_FLOAT) {
    const float* src = static_cast<const float*>(data);
    for (int64_t i = 0; i < n; ++i) buffer[i] = round_fp16(src[i]);
  } else {
    load_float(desc.dtype, data, 0, 1, n, buffer);  // float16 values are already representable
  }
  return buffer;
}

}  // namespace ascendsim::kernels
