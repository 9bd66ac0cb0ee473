// Shared kernel helpers (see kernel_util.h): dtype names, broadcasting plans, scratch memory and the
// ROUND_OUTPUTS_FP16 wrapper, the NC1HWC0 padding lanes.
#include "kernels/kernel_util.h"

#include <algorithm>
#include <limits>

#include "kernels/layout.h"
#include "kernels/page_memory.h"
#include "kernels/simd/row_loops.h"

namespace ascendsim::kernels {

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

std::string dims_str(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

bool resolve_auto_pad(const std::string& auto_pad, const std::vector<int64_t>& sizes, const std::vector<int64_t>& kernel,
                      const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations, std::vector<int64_t>* pads) {
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (size_t i = 0; i < 2; ++i) {
      const int64_t o = (sizes[i] + strides[i] - 1) / strides[i];
      const int64_t total = std::max<int64_t>(0, (o - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - sizes[i]);
      const int64_t small = total / 2, large = total - small;
      (*pads)[i] = auto_pad == "SAME_UPPER" ? small : large;
      (*pads)[i + 2] = auto_pad == "SAME_UPPER" ? large : small;
    }
    return true;
  }
  if (auto_pad == "VALID") pads->assign(4, 0);
  return auto_pad == "VALID" || auto_pad == "NOTSET";
}

std::string window_attrs_problem(const std::vector<int64_t>& sizes, const std::vector<int64_t>& kernel,
                                 const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations,
                                 const std::vector<int64_t>& pads) {
  constexpr int64_t kLimit = int64_t{1} << 31;
  const struct {
    const char* name;
    const std::vector<int64_t>& values;
    int64_t lowest;
  } groups[] = {{"spatial sizes", sizes, 0}, {"kernel sizes", kernel, 1}, {"strides", strides, 1},
                {"dilations", dilations, 1}, {"pads", pads, 0}};
  for (const auto& group : groups)
    for (int64_t v : group.values)
      if (v < group.lowest || v > kLimit)
        return std::string(group.name) + " " + dims_str(group.values) + " must be in [" +
               std::to_string(group.lowest) + ", 2^31]";
  return {};
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

namespace {

// A growable buffer in huge-page-advised memory (page_memory.h); its contents do not survive growth.
class ScratchBuffer {
 public:
  ScratchBuffer() = default;
  ScratchBuffer(const ScratchBuffer&) = delete;
  ScratchBuffer& operator=(const ScratchBuffer&) = delete;
  ~ScratchBuffer() { unmap_floats(data_, size_); }
  float* reserve(size_t count) {
    if (count > size_) {
      unmap_floats(data_, size_);
      data_ = nullptr;
      size_ = 0;
      const size_t grown = std::max(count, size_ + size_ / 2);
      data_ = map_floats(grown);
      size_ = grown;
    }
    return data_;
  }

 private:
  float* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace

void clear_padding_lanes(float* lines, int64_t pixels, int64_t used) {
  if (used >= kUnit) return;
  for (int64_t p = 0; p < pixels; ++p) std::memset(lines + p * kUnit + used, 0, static_cast<size_t>(kUnit - used) * sizeof(float));
}

float* scratch_floats(int slot, size_t count) {
  thread_local ScratchBuffer buffers[16];
  return buffers[slot & 15].reserve(count);
}

}  // namespace ascendsim::kernels

namespace ascendsim::kernels {

const float* rounded_constant(const float* data, int64_t n, bool round_fp16_values, std::vector<float>* storage) {
  if (!round_fp16_values || data == nullptr) return data;
  storage->resize(static_cast<size_t>(n));
  row_loops().round_fp16(data, storage->data(), n);
  return storage->data();
}

const float* float_input(const TensorDesc& desc, const void* data, bool round_fp16_values, int slot) {
  int64_t n = desc.numel();
  if (desc.dtype == ACL_FLOAT && !round_fp16_values) return static_cast<const float*>(data);
  float* buffer = scratch_floats(slot, static_cast<size_t>(n));
  if (desc.dtype == ACL_FLOAT) {
    row_loops().round_fp16(static_cast<const float*>(data), buffer, n);
  } else {
    load_float(desc.dtype, data, 0, 1, n, buffer);  // float16 values are already representable
  }
  return buffer;
}

}  // namespace ascendsim::kernels
