// The shape-function registry and the functions of the elementwise, normalisation, product, convolution,
// pooling and reduction ops (the layout and shape-computation ops are in shape_fns_layout.cpp, indexing and
// padding in shape_fns_index.cpp). Every
// function checks what its formula needs (ranks, matching dims) and says which dim of which input is wrong:
// a bad shape is an execution error naming the node, never a kernel run on inconsistent sizes.
#include "model/shape_fns.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

namespace ascendsim::model {
namespace {

using Key = std::pair<std::string, std::string>;

std::map<Key, ShapeFn>& table() {
  static auto* fns = new std::map<Key, ShapeFn>();  // survives static destruction order
  return *fns;
}

std::mutex& table_mutex() {
  static auto* mutex = new std::mutex();
  return *mutex;
}

const Dims& in(const ShapeCall& c, size_t i) { return *c.inputs[i].dims; }

bool need_inputs(const ShapeCall& c, size_t n, std::string* error) {
  if (c.inputs.size() >= n && std::all_of(c.inputs.begin(), c.inputs.begin() + n, [](const ShapeInput& s) {
        return s.present;
      }))
    return true;
  *error = "needs " + std::to_string(n) + " inputs";
  return false;
}

// Every output has input 0's shape (unary ops, Softmax, normalisations, Cast, Identity, Dropout...).
bool same_as_input(const ShapeCall& c, std::vector<Dims>* out, std::string* error) {
  if (!need_inputs(c, 1, error)) return false;
  out->assign(c.output_count, in(c, 0));
  return true;
}

// Numpy broadcasting of every present input (binary ops, Where, FusedElementwise, variadic Max/Min).
bool broadcast_all(const ShapeCall& c, std::vector<Dims>* out, std::string* error) {
  if (!need_inputs(c, 1, error)) return false;
  Dims dims = in(c, 0);
  for (size_t i = 1; i < c.inputs.size(); ++i) {
    if (!c.inputs[i].present) continue;
    Dims next;
    if (!broadcast_dims(dims, in(c, i), &next)) {
      *error = "input " + std::to_string(i) + " of shape " + dims_text(in(c, i)) + " does not broadcast with " +
               dims_text(dims);
      return false;
    }
    dims = std::move(next);
  }
  out->assign(c.output_count, dims);
  return true;
}

// LayerNormalization: Y like X; Mean and InvStdDev keep the dims before `axis` and 1 from it on.
bool layer_norm(const ShapeCall& c, std::vector<Dims>* out, std::string* error) {
  if (!need_inputs(c, 1, error)) return false;
  const Dims& x = in(c, 0);
  const int64_t rank = static_cast<int64_t>(x.size());
  int64_t axis = c.attrs.get_int("axis", -1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= std::max<int64_t>(rank, 1)) {
    *error = "axis " + std::to_string(c.attrs.get_int("axis", -1)) + " is outside the rank of " + dims_text(x);
    return false;
  }
  Dims stat = x;
  for (int64_t d = axis; d < rank; ++d) stat[d] = 1;
  out->assign(c.output_count, stat);
  (*out)[0] = x;
  return true;
}

bool matmul(const ShapeCall& c, std::vector<Dims>* out, std::string* error) {
  if (!need_inputs(c, 2, error)) return false;
  Dims a = in(c, 0), b = in(c, 1);
  if (a.empty() || b.empty()) {
    *error = "MatMul of a scalar";
    return false;
  }
  const bool va = a.size() == 1, vb = b.size() == 1;
  if (va) a.insert(a.begin(), 1);
  if (vb) b.push_back(1);
  if (a.back() != b[b.size() - 2]) {
    *error = "input 0 " + dims_text(in(c, 0)) + " and input 1 " + dims_text(in(c, 1)) +
             ": inner dims differ (" + std::to_string(a.back()) + " vs " + std::to_string(b[b.size() - 2]) + ")";
    return false;
  }
  Dims batch;
  if (!broadcast_dims(Dims(a.begin(), a.end() - 2), Dims(b.begin(), b.end() - 2), &batch)) {
    *error = "batch dims of " + dims_text(in(c, 0)) + " and " + dims_text(in(c, 1)) + " do not broadcast";
    return false;
  }
  if (!va) batch.push_back(a[a.size() - 2]);
  if (!vb) batch.push_back(b.back());
  out->assign(c.output_count, batch);
  return true;
}

bool gemm(const ShapeCall& c, std::vector<Dims>* out, std::string* error) {
  if (!need_inputs(c, 2, error)) return false;
  const Dims &a = in(c, 0), &b = in(c, 1);
  if (a.size() != 2 || b.size() != 2) {
    *error = "Gemm needs 2-D inputs, got " + dims_text(a) + " and " + dims_text(b);
    return false;
  }
  const bool ta = c.attrs.get_int("transA", 0) != 0, tb = c.attrs.get_int("transB", 0) != 0;
  const int64_t m = ta ? a[1] : a[0], k = ta ? a[0] : a[1], kb = tb ? b[1] : b[0], n = tb ? b[0] : b[1];
  if (k != kb) {
    *error = "input 0 " + dims_text(a) + " and input 1 " + dims_text(b) + ": inner dims differ (" +
             std::to_string(k) + " vs " + std::to_string(kb) + ")";
    return false;
  }
  out->assign(c.output_count, Dims{m, n});
  return true;
}

// Conv and the windowed pools: N, C (the weight's output channels for Conv), then per spatial dim
// floor((in + pads - dilation * (k - 1) - 1) / stride) + 1 (ceil with ceil_mode; auto_pad SAME_*: ceil(in /
// stride)).
bool windowed(const ShapeCall& c, std::vector<Dims>* out, std::string* error, bool conv) {
  if (!need_inputs(c, conv ? 2 : 1, error)) return false;
  const Dims& x = in(c, 0);
  if (x.size() < 3) {
    *error = "input 0 " + dims_text(x) + " needs rank 3 or more (N, C, spatial...)";
    return false;
  }
  const size_t spatial = x.size() - 2;
  Dims kernel = c.attrs.get_ints("kernel_shape");
  int64_t channels = x[1];
  if (conv) {
    const Dims& w = in(c, 1);
    if (w.size() != x.size()) {
      *error = "weight " + dims_text(w) + " and input " + dims_text(x) + " differ in rank";
      return false;
    }
    const int64_t group = c.attrs.get_int("group", 1);
    if (group < 1 || w[1] * group != x[1]) {
      *error = "input 0 has " + std::to_string(x[1]) + " channels (dim 1 of " + dims_text(x) + "); the weight " +
               dims_text(w) + " with group " + std::to_string(group) + " needs " + std::to_string(w[1] * group);
      return false;
    }
    channels = w[0];
    if (kernel.empty()) kernel.assign(w.begin() + 2, w.end());
  }
  if (kernel.size() != spatial) {
    *error = "kernel_shape " + dims_text(kernel) + " does not fit input " + dims_text(x);
    return false;
  }
  const Dims strides = c.attrs.get_ints("strides", Dims(spatial, 1));
  const Dims dilations = c.attrs.get_ints("dilations", Dims(spatial, 1));
  const Dims pads = c.attrs.get_ints("pads", Dims(2 * spatial, 0));
  const std::string auto_pad = c.attrs.get_string("auto_pad", "NOTSET");
  const bool ceil_mode = c.attrs.get_int("ceil_mode", 0) != 0;
  if (strides.size() != spatial || dilations.size() != spatial || pads.size() != 2 * spatial) {
    *error = "strides/dilations/pads do not fit input " + dims_text(x);
    return false;
  }
  Dims o{x[0], channels};
  for (size_t d = 0; d < spatial; ++d) {
    const int64_t n = x[d + 2], s = strides[d];
    if (s < 1) {
      *error = "stride " + std::to_string(s) + " must be positive";
      return false;
    }
    int64_t size;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      size = (n + s - 1) / s;
    } else {
      const int64_t extent = n + (auto_pad == "VALID" ? 0 : pads[d] + pads[d + spatial]) -
                             dilations[d] * (kernel[d] - 1) - 1;
      if (extent < 0) {
        *error = "spatial dim " + std::to_string(d + 2) + " of input 0 " + dims_text(x) + " is " +
                 std::to_string(n) + ", smaller than the window " + std::to_string(dilations[d] * (kernel[d] - 1) + 1);
        return false;
      }
      size = (ceil_mode ? (extent + s - 1) / s : extent / s) + 1;
      // ceil_mode: the last window must start inside the (left-padded) input
      if (ceil_mode && (size - 1) * s >= n + pads[d]) --size;
    }
    o.push_back(size);
  }
  out->assign(c.output_count, o);
  return true;
}

bool conv(const ShapeCall& c, std::vector<Dims>* out, std::string* error) { return windowed(c, out, error, true); }
bool pool(const ShapeCall& c, std::vector<Dims>* out, std::string* error) { return windowed(c, out, error, false); }

bool global_pool(const ShapeCall& c, std::vector<Dims>* out, std::string* error) {
  if (!need_inputs(c, 1, error)) return false;
  Dims o = in(c, 0);
  if (o.size() < 3) {
    *error = "input 0 " + dims_text(o) + " needs rank 3 or more";
    return false;
  }
  std::fill(o.begin() + 2, o.end(), 1);
  out->assign(c.output_count, o);
  return true;
}

// Reductions: the axes from the attribute (opset < 18) or input 1; none = all unless noop_with_empty_axes.
bool reduce(const ShapeCall& c, std::vector<Dims>* out, std::string* error) {
  if (!need_inputs(c, 1, error)) return false;
  const Dims& x = in(c, 0);
  const int64_t rank = static_cast<int64_t>(x.size());
  Dims axes = c.attrs.get_ints("axes");
  if (c.inputs.size() > 1 && c.inputs[1].present && !c.values(1, &axes, error)) return false;
  const bool keep = c.attrs.get_int("keepdims", 1) != 0;
  std::vector<bool> reduced(x.size(), axes.empty() && c.attrs.get_int("noop_with_empty_axes", 0) == 0);
  for (int64_t a : axes) {
    const int64_t axis = a < 0 ? a + rank : a;
    if (axis < 0 || axis >= rank) {
      *error = "axis " + std::to_string(a) + " is outside the rank of " + dims_text(x);
      return false;
    }
    reduced[axis] = true;
  }
  Dims o;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d]) o.push_back(x[d]);
    else if (keep) o.push_back(1);
  }
  out->assign(c.output_count, o);
  return true;
}

}  // namespace

bool ShapeCall::values(size_t i, std::vector<int64_t>* out, std::string* error) const {
  read_values = true;
  if (i >= inputs.size() || !inputs[i].present || inputs[i].data == nullptr) {
    *error = "input " + std::to_string(i) + " (a shape operand) is absent";
    return false;
  }
  const ShapeInput& s = inputs[i];
  int64_t n = 1;
  for (int64_t d : *s.dims) n *= d;
  out->resize(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    if (s.dtype == ACL_INT64) {
      std::memcpy(&(*out)[k], static_cast<const int64_t*>(s.data) + k, 8);
    } else if (s.dtype == ACL_INT32) {
      int32_t v;
      std::memcpy(&v, static_cast<const int32_t*>(s.data) + k, 4);
      (*out)[k] = v;
    } else {
      *error = "input " + std::to_string(i) + " (a shape operand) must be INT32 or INT64";
      return false;
    }
  }
  return true;
}

bool register_shape_fn(const char* op_type, const char* domain, ShapeFn fn) {
  std::lock_guard<std::mutex> lock(table_mutex());
  table()[{op_type, domain}] = fn;
  return true;
}

ShapeFn find_shape_fn(const std::string& op_type, const std::string& domain) {
  std::lock_guard<std::mutex> lock(table_mutex());
  const auto it = table().find({op_type, domain});
  return it == table().end() ? nullptr : it->second;
}

std::vector<std::string> shape_fn_ops() {
  std::lock_guard<std::mutex> lock(table_mutex());
  std::vector<std::string> names;
  for (const auto& [key, fn] : table()) names.push_back(key.second.empty() ? key.first : key.second + "::" + key.first);
  std::sort(names.begin(), names.end());
  return names;
}

std::string dims_text(const Dims& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

bool broadcast_dims(const Dims& a, const Dims& b, Dims* out) {
  const size_t rank = std::max(a.size(), b.size());
  out->assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x != y && x != 1 && y != 1) return false;
    (*out)[i] = x == 1 ? y : x;
  }
  return true;
}

#define ASCENDSIM_SHAPES(fn, ...) \
  static const bool ascendsim_shape_group_##fn = [] { \
    for (const char* op : {__VA_ARGS__}) register_shape_fn(op, "", fn); \
    return true; \
  }()

ASCENDSIM_SHAPES(broadcast_all, "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Equal", "Less", "Greater",
                 "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor", "Where", "PRelu", "Mod", "BitwiseAnd",
                 "BitwiseOr", "BitwiseXor", "BitShift");
ASCENDSIM_SHAPES(same_as_input, "Relu", "Sigmoid", "Tanh", "Erf", "Exp", "Log", "Sqrt", "Reciprocal", "Neg", "Abs",
                 "Not", "Cast", "Clip", "LeakyRelu", "Elu", "Selu", "HardSigmoid", "HardSwish", "Softplus", "Gelu",
                 "Identity", "Floor", "Ceil", "Round", "Sign", "Sin", "Cos", "Dropout", "Softmax", "LogSoftmax",
                 "BatchNormalization", "InstanceNormalization", "Softsign", "Tan", "Sinh", "Cosh", "Asin", "Acos",
                 "Atan", "Asinh", "Acosh", "Atanh", "IsInf", "IsNaN", "BitwiseNot", "CumSum", "Trilu", "LRN",
                 "ScatterND", "ScatterElements");
ASCENDSIM_SHAPES(matmul, "MatMul");
ASCENDSIM_SHAPES(gemm, "Gemm");
ASCENDSIM_SHAPES(conv, "Conv");
ASCENDSIM_SHAPES(pool, "MaxPool", "AveragePool");
ASCENDSIM_SHAPES(global_pool, "GlobalAveragePool", "GlobalMaxPool");
ASCENDSIM_SHAPES(reduce, "ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                 "ReduceLogSumExp", "ReduceSumSquare");
ASCENDSIM_SHAPES(layer_norm, "LayerNormalization");
static const bool ascendsim_shape_fused = register_shape_fn("FusedElementwise", "ascendsim", broadcast_all) &&
                                          register_shape_fn("LayerNorm", "ascendsim", layer_norm);

}  // namespace ascendsim::model
