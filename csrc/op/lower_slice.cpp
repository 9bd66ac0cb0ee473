// Lowering of the slicing operators onto the registry Slice kernel, given the normalised start and step of every
// axis as constant inputs (starts, ends, axes, steps) and the per-axis counts as its output shape.
//
// Slice(x, offsets, size) / SliceD(x; offsets, size): axis i keeps size[i] elements from offsets[i] (size -1:
//   to the end); offsets and sizes out of the axis are refused, as CANN's shape inference does.
// StridedSlice(x, begin, end, strides) / StridedSliceD(x; begin, end, strides), with TensorFlow's masks
//   (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask): the sparse specification is first
//   made dense — the ellipsis (or, without one, the end) stands for the axes no entry names, a new axis names
//   none — then each axis gets its start (negative values count from the end, clamped to the axis; a masked bound
//   is the axis' first or last element for the stride's direction) and count ceil((end - start) / stride). A
//   shrunk axis keeps one element and leaves the output shape, a new axis adds a 1: the kernel writes the same
//   bytes with one dim per input axis (kernel_out_dims).
#include <algorithm>

#include "kernels/kernel_util.h"
#include "op/lower.h"

namespace ascendsim::op {
namespace {

// The int list of value input `input` (when the call has it) or of the attribute `attr` (the *D form).
aclError values_of(LowerCtx& c, size_t input, const char* attr, std::vector<int64_t>* out) {
  if (c.call.inputs.size() > input) return c.int_values(input, attr, out);
  if (c.call.attrs.find(attr) == nullptr) return c.error(ACL_ERROR_OP_ATTR_NOT_MATCH, "needs the attribute '%s'", attr);
  *out = c.ints(attr);
  return ACL_SUCCESS;
}

// The Slice kernel call: starts and steps per input axis, counts as the kernel's output dims.
void emit(LowerCtx& c, const std::vector<int64_t>& starts, const std::vector<int64_t>& steps,
          const std::vector<int64_t>& counts, std::vector<int64_t> out_dims) {
  std::vector<int64_t> ends, axes;
  for (size_t i = 0; i < starts.size(); ++i) {
    ends.push_back(starts[i] + counts[i] * steps[i]);
    axes.push_back(static_cast<int64_t>(i));
  }
  c.out.attrs = {};
  c.out.inputs = {{0, {}}};
  c.constant_input(starts);
  c.constant_input(ends);
  c.constant_input(axes);
  c.constant_input(steps);
  c.out.out_dtypes = {c.in(0).dtype};
  c.out.out_dims = {std::move(out_dims)};
  c.out.kernel_out_dims = {counts};
}

aclError lower_plain_slice(LowerCtx& c) {
  std::vector<int64_t> offsets, size;
  if (aclError ret = values_of(c, 1, "offsets", &offsets)) return ret;
  if (aclError ret = values_of(c, 2, "size", &size)) return ret;
  const auto& x = c.in(0).dims;
  if (offsets.size() != x.size() || size.size() != x.size())
    return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "offsets %s and size %s must have one value per axis of x %s",
                   kernels::dims_str(offsets).c_str(), kernels::dims_str(size).c_str(), kernels::dims_str(x).c_str());
  std::vector<int64_t> counts;
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t count = size[i] == -1 ? x[i] - offsets[i] : size[i];
    if (offsets[i] < 0 || count < 0 || offsets[i] + count > x[i])
      return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "axis %zu: offset %lld and size %lld do not fit x %s", i,
                     static_cast<long long>(offsets[i]), static_cast<long long>(size[i]), kernels::dims_str(x).c_str());
    counts.push_back(count);
  }
  emit(c, offsets, std::vector<int64_t>(x.size(), 1), counts, counts);
  return ACL_SUCCESS;
}

bool bit(int64_t mask, size_t i) { return i < 63 && ((mask >> i) & 1) != 0; }

aclError lower_strided_slice(LowerCtx& c) {
  std::vector<int64_t> begin, end, strides;
  if (aclError ret = values_of(c, 1, "begin", &begin)) return ret;
  if (aclError ret = values_of(c, 2, "end", &end)) return ret;
  if (aclError ret = values_of(c, 3, "strides", &strides)) return ret;
  if (begin.size() != end.size() || begin.size() != strides.size())
    return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "begin %s, end %s and strides %s must have the same length",
                   kernels::dims_str(begin).c_str(), kernels::dims_str(end).c_str(), kernels::dims_str(strides).c_str());
  const int64_t begin_mask = c.call.attrs.get_int("begin_mask", 0), end_mask = c.call.attrs.get_int("end_mask", 0);
  const int64_t ellipsis = c.call.attrs.get_int("ellipsis_mask", 0), new_axis = c.call.attrs.get_int("new_axis_mask", 0);
  const int64_t shrink = c.call.attrs.get_int("shrink_axis_mask", 0);
  const auto& x = c.in(0).dims;
  const size_t rank = x.size(), n = begin.size();
  // Dense specification: per input axis the sparse entry that names it (-1: the whole axis).
  std::vector<int> entry(rank, -1);
  std::vector<int64_t> shape;  // output dims, with the input axis each comes from (-1: a new axis)
  std::vector<int> shape_axis;
  size_t named = 0;  // entries that name an input axis (neither the ellipsis nor a new axis)
  bool seen_ellipsis = false;
  for (size_t i = 0; i < n; ++i) {
    if (bit(ellipsis, i)) {
      if (seen_ellipsis) return c.error(ACL_ERROR_OP_ATTR_NOT_MATCH, "ellipsis_mask %lld has more than one bit",
                                        static_cast<long long>(ellipsis));
      seen_ellipsis = true;
    } else if (!bit(new_axis, i)) {
      ++named;
    }
  }
  if (named > rank)
    return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "begin %s names %zu axes, x %s has %zu",
                   kernels::dims_str(begin).c_str(), named, kernels::dims_str(x).c_str(), rank);
  size_t axis = 0;
  auto whole_axes = [&](size_t until) {
    for (; axis < until; ++axis) {
      shape.push_back(x[axis]);
      shape_axis.push_back(static_cast<int>(axis));
    }
  };
  for (size_t i = 0; i < n; ++i) {
    if (bit(ellipsis, i)) {
      whole_axes(axis + (rank - named));
    } else if (bit(new_axis, i)) {
      shape.push_back(1);
      shape_axis.push_back(-1);
    } else {
      entry[axis] = static_cast<int>(i);
      if (!bit(shrink, i)) {
        shape.push_back(0);  // the count, filled in below
        shape_axis.push_back(static_cast<int>(axis));
      }
      ++axis;
    }
  }
  whole_axes(rank);
  std::vector<int64_t> starts(rank, 0), steps(rank, 1), counts(x);
  for (size_t a = 0; a < rank; ++a) {
    if (entry[a] < 0) continue;
    const size_t i = static_cast<size_t>(entry[a]);
    const int64_t dim = x[a], step = strides[i];
    if (step == 0) return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "strides[%zu] is 0", i);
    if (bit(shrink, i)) {
      const int64_t index = begin[i] < 0 ? begin[i] + dim : begin[i];
      if (index < 0 || index >= dim)
        return c.error(ACL_ERROR_OP_INPUT_NOT_MATCH, "shrunk axis %zu: begin %lld is outside x %s", a,
                       static_cast<long long>(begin[i]), kernels::dims_str(x).c_str());
      starts[a] = index;
      counts[a] = 1;
      continue;
    }
    // Bounds in [0, dim] for a positive stride, [-1, dim - 1] for a negative one (-1: before the first element).
    const int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? dim : dim - 1;
    auto bound = [&](int64_t v, bool masked, bool is_begin) {
      if (masked) return (is_begin == (step > 0)) ? lo : hi;
      return std::clamp<int64_t>(v < 0 ? v + dim : v, lo, hi);
    };
    const int64_t b = bound(begin[i], bit(begin_mask, i), true), e = bound(end[i], bit(end_mask, i), false);
    const int64_t span = step > 0 ? e - b : b - e, s = step > 0 ? step : -step;
    starts[a] = std::max<int64_t>(b, 0);
    steps[a] = step;
    counts[a] = span <= 0 ? 0 : (span + s - 1) / s;
  }
  for (size_t k = 0; k < shape.size(); ++k)
    if (shape_axis[k] >= 0) shape[k] = counts[static_cast<size_t>(shape_axis[k])];
  emit(c, starts, steps, counts, shape);
  return ACL_SUCCESS;
}

}  // namespace

aclError lower_slice(LowerCtx& c) {
  return c.op.family == Family::Slice ? lower_plain_slice(c) : lower_strided_slice(c);
}

}  // namespace ascendsim::op
