// Host-side shape functions of the v2 (dynamic-shape) runtime: for one node, its output dims from its input
// dims and attributes, and, for the inputs an op reads as a shape (Reshape's shape, Slice's starts, Expand's
// shape, ...), their values. The InferShape step of every lowered node calls its op's function before the
// output is allocated (csrc/model/hybrid_model.cpp). One function per op type; the compiler refuses a
// dynamic-shape model with a node whose op has none (python/ascendsim/compiler/dynamic_shape.py keeps the
// same list).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl_base.h"
#include "kernels/attrs.h"

namespace ascendsim::model {

using Dims = std::vector<int64_t>;

struct ShapeInput {
  bool present = false;
  aclDataType dtype = ACL_FLOAT;
  const Dims* dims = nullptr;
  const void* data = nullptr;  // the tensor's bytes (host-addressable in the emulator), for value inputs
};

struct ShapeCall {
  const kernels::Attrs& attrs;
  const std::vector<ShapeInput>& inputs;
  size_t output_count;
  // Set by values(): the outputs' dims depend on input values, not only on input dims (the runtime then
  // infers this node's shapes at every execution; see HybridInstance::infer_shape).
  mutable bool read_values = false;
  // The values of integer input i (INT32 / INT64), or false with `error` set.
  bool values(size_t i, std::vector<int64_t>* out, std::string* error) const;
};

// Writes one Dims per output; false with `error` saying what does not fit (named dims and values).
using ShapeFn = bool (*)(const ShapeCall& call, std::vector<Dims>* out, std::string* error);

ShapeFn find_shape_fn(const std::string& op_type, const std::string& domain);
std::vector<std::string> shape_fn_ops();  // "Op" or "domain::Op", sorted

bool register_shape_fn(const char* op_type, const char* domain, ShapeFn fn);
std::string dims_text(const Dims& dims);
// Numpy broadcasting of a and b into *out; false when they do not broadcast.
bool broadcast_dims(const Dims& a, const Dims& b, Dims* out);

}  // namespace ascendsim::model

#define ASCENDSIM_SHAPE_FN(name, domain, fn) \
  static const bool ascendsim_shape_fn_##name = ::ascendsim::model::register_shape_fn(#name, domain, fn)
