// Shape functions of the indexing and padding ops (ONNX semantics): ArgMax/ArgMin, TopK (K is an input's
// value), GatherElements (the indices' shape), Size (a scalar) and Pad (the IR form: `pads` an attribute).
#include "model/shape_fns.h"

namespace ascendsim::model {
namespace {

bool input0(const ShapeCall& c, std::string* error) {
  if (!c.inputs.empty() && c.inputs[0].present) return true;
  *error = "input 0 is absent";
  return false;
}

bool axis_of(const ShapeCall& c, int64_t fallback, int64_t* axis, std::string* error) {
  const Dims& x = *c.inputs[0].dims;
  const int64_t rank = static_cast<int64_t>(x.size()), given = c.attrs.get_int("axis", fallback);
  if (given < -rank || given >= rank) {
    *error = "axis " + std::to_string(given) + " is outside the rank of " + dims_text(x);
    return false;
  }
  *axis = given < 0 ? given + rank : given;
  return true;
}

bool arg_reduce(const ShapeCall& c, std::vector<Dims>* out, std::string* error) {
  int64_t axis;
  if (!input0(c, error) || !axis_of(c, 0, &axis, error)) return false;
  Dims o = *c.inputs[0].dims;
  if (c.attrs.get_int("keepdims", 1) != 0) o[axis] = 1;
  else o.erase(o.begin() + axis);
  out->assign(c.output_count, o);
  return true;
}

bool topk(const ShapeCall& c, std::vector<Dims>* out, std::string* error) {
  int64_t axis;
  Dims k;
  if (!input0(c, error) || !axis_of(c, -1, &axis, error) || !c.values(1, &k, error)) return false;
  Dims o = *c.inputs[0].dims;
  if (k.size() != 1 || k[0] < 0 || k[0] > o[axis]) {
    *error = "K " + dims_text(k) + " must be one value in [0, " + std::to_string(o[axis]) + "] (dim " +
             std::to_string(axis) + " of " + dims_text(o) + ")";
    return false;
  }
  o[axis] = k[0];
  out->assign(c.output_count, o);
  return true;
}

bool gather_elements(const ShapeCall& c, std::vector<Dims>* out, std::string* error) {
  if (!input0(c, error)) return false;
  if (c.inputs.size() < 2 || !c.inputs[1].present || c.inputs[1].dims->size() != c.inputs[0].dims->size()) {
    *error = "indices must be present with the rank of input 0 " + dims_text(*c.inputs[0].dims);
    return false;
  }
  out->assign(c.output_count, *c.inputs[1].dims);
  return true;
}

bool size(const ShapeCall& c, std::vector<Dims>* out, std::string* error) {
  if (!input0(c, error)) return false;
  out->assign(c.output_count, Dims{});
  return true;
}

bool pad(const ShapeCall& c, std::vector<Dims>* out, std::string* error) {
  if (!input0(c, error)) return false;
  Dims o = *c.inputs[0].dims;
  const Dims pads = c.attrs.get_ints("pads");
  if (pads.size() != 2 * o.size()) {
    *error = "pads " + dims_text(pads) + " must have " + std::to_string(2 * o.size()) + " values";
    return false;
  }
  for (size_t d = 0; d < o.size(); ++d) {
    o[d] += pads[d] + pads[d + o.size()];
    if (o[d] < 0) {
      *error = "pads " + dims_text(pads) + " make dim " + std::to_string(d) + " of " + dims_text(*c.inputs[0].dims) +
               " negative";
      return false;
    }
  }
  out->assign(c.output_count, o);
  return true;
}

}  // namespace

ASCENDSIM_SHAPE_FN(ArgMax, "", arg_reduce);
ASCENDSIM_SHAPE_FN(ArgMin, "", arg_reduce);
ASCENDSIM_SHAPE_FN(TopK, "", topk);
ASCENDSIM_SHAPE_FN(GatherElements, "", gather_elements);
ASCENDSIM_SHAPE_FN(Size, "", size);
ASCENDSIM_SHAPE_FN(Pad, "", pad);

}  // namespace ascendsim::model
