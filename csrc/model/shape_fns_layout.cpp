// Shape functions of the layout and shape-computation ops (ONNX semantics): Reshape, Flatten, Transpose,
// Squeeze, Unsqueeze, Concat, Gather, Shape, Slice, Expand, ConstantOfShape, Range, Split, Tile. The ones
// whose output shape is an input's *value* (Reshape's shape, Slice's starts/ends, ...) read it through
// ShapeCall::values: its producer ran before (the InferShape step follows the producers' Launch steps).
#include <algorithm>
#include <limits>

#include "model/shape_fns.h"

namespace ascendsim::model {
namespace {

const Dims& in(const ShapeCall& c, size_t i) { return *c.inputs[i].dims; }

bool has(const ShapeCall& c, size_t i) { return i < c.inputs.size() && c.inputs[i].present; }

bool first(const ShapeCall& c, std::string* error) {
  if (has(c, 0)) return true;
  *error = "input 0 is absent";
  return false;
}

// axis in [-rank, rank) -> [0, rank), or false naming it.
bool norm_axis(int64_t axis, int64_t rank, const Dims& dims, int64_t* out, std::string* error) {
  if (axis < -rank || axis >= rank) {
    *error = "axis " + std::to_string(axis) + " is outside the rank of " + dims_text(dims);
    return false;
  }
  *out = axis < 0 ? axis + rank : axis;
  return true;
}

// Axes from input `index` (opset >= 13) or the attribute "axes".
bool axes_of(const ShapeCall& c, size_t index, Dims* axes, std::string* error) {
  *axes = c.attrs.get_ints("axes");
  return !has(c, index) || c.values(index, axes, error);
}

int64_t numel(const Dims& d) {
  int64_t n = 1;
  for (int64_t v : d) n *= v;
  return n;
}

bool reshape(const ShapeCall& c, std::vector<Dims>* out, std::string* error) {
  Dims target;
  if (!first(c, error)) return false;
  if (has(c, 1)) {
    if (!c.values(1, &target, error)) return false;
  } else {
    target = c.attrs.get_ints("shape");
  }
  const Dims& x = in(c, 0);
  const bool allow_zero = c.attrs.get_int("allowzero", 0) != 0;
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == 0 && !allow_zero) {
      if (i >= x.size()) {
        *error = "shape " + dims_text(target) + ": dim " + std::to_string(i) + " is 0 (copy) past the rank of input " +
                 dims_text(x);
        return false;
      }
      target[i] = x[i];
    }
    if (target[i] == -1) {
      if (infer >= 0) {
        *error = "shape " + dims_text(target) + " has two -1 dims";
        return false;
      }
      infer = static_cast<int64_t>(i);
    } else if (target[i] < 0) {
      *error = "shape " + dims_text(target) + " has a negative dim";
      return false;
    } else {
      known *= target[i];
    }
  }
  const int64_t total = numel(x);
  if (infer >= 0) {
    if (known == 0 || total % known != 0) {
      *error = "cannot reshape input " + dims_text(x) + " to " + dims_text(target);
      return false;
    }
    target[infer] = total / known;
  } else if (known != total) {
    *error = "cannot reshape input " + dims_text(x) + " (" + std::to_string(total) + " elements) to " +
             dims_text(target);
    return false;
  }
  out->assign(c.output_count, target);
  return true;
}

bool flatten(const ShapeCall& c, std::vector<Dims>* out, std::string* error) {
  if (!first(c, error)) return false;
  const Dims& x = in(c, 0);
  const int64_t rank = static_cast<int64_t>(x.size());
  int64_t axis = c.attrs.get_int("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) {
    *error = "axis " + std::to_string(c.attrs.get_int("axis", 1)) + " is outside the rank of " + dims_text(x);
    return false;
  }
  out->assign(c.output_count, Dims{numel(Dims(x.begin(), x.begin() + axis)), numel(Dims(x.begin() + axis, x.end()))});
  return true;
}

bool transpose(const ShapeCall& c, std::vector<Dims>* out, std::string* error) {
  if (!first(c, error)) return false;
  const Dims& x = in(c, 0);
  Dims perm = c.attrs.get_ints("perm");
  if (perm.empty())
    for (size_t i = x.size(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
  if (perm.size() != x.size()) {
    *error = "perm " + dims_text(perm) + " does not fit input " + dims_text(x);
    return false;
  }
  Dims o;
  for (int64_t p : perm) {
    int64_t axis;
    if (!norm_axis(p, static_cast<int64_t>(x.size()), x, &axis, error)) return false;
    o.push_back(x[axis]);
  }
  out->assign(c.output_count, o);
  return true;
}

bool squeeze(const ShapeCall& c, std::vector<Dims>* out, std::string* error) {
  Dims axes;
  if (!first(c, error) || !axes_of(c, 1, &axes, error)) return false;
  const Dims& x = in(c, 0);
  std::vector<bool> drop(x.size(), false);
  for (int64_t a : axes) {
    int64_t axis;
    if (!norm_axis(a, static_cast<int64_t>(x.size()), x, &axis, error)) return false;
    if (x[axis] != 1) {
      *error = "cannot squeeze dim " + std::to_string(axis) + " of " + dims_text(x) + ": it is not 1";
      return false;
    }
    drop[axis] = true;
  }
  Dims o;
  for (size_t d = 0; d < x.size(); ++d)
    if (!(axes.empty() ? x[d] == 1 : drop[d])) o.push_back(x[d]);
  out->assign(c.output_count, o);
  return true;
}

bool unsqueeze(const ShapeCall& c, std::vector<Dims>* out, std::string* error) {
  Dims axes;
  if (!first(c, error) || !axes_of(c, 1, &axes, error)) return false;
  const Dims& x = in(c, 0);
  const int64_t rank = static_cast<int64_t>(x.size() + axes.size());
  std::vector<bool> added(rank, false);
  for (int64_t a : axes) {
    int64_t axis;
    if (!norm_axis(a, rank, x, &axis, error)) return false;
    added[axis] = true;
  }
  Dims o;
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d) o.push_back(added[d] ? 1 : x[next++]);
  out->assign(c.output_count, o);
  return true;
}

bool concat(const ShapeCall& c, std::vector<Dims>* out, std::string* error) {
  if (!first(c, error)) return false;
  Dims o = in(c, 0);
  int64_t axis;
  if (!norm_axis(c.attrs.get_int("axis", 0), static_cast<int64_t>(o.size()), o, &axis, error)) return false;
  for (size_t i = 1; i < c.inputs.size(); ++i) {
    if (!has(c, i)) continue;
    const Dims& d = in(c, i);
    bool fits = d.size() == o.size();
    for (size_t k = 0; fits && k < d.size(); ++k) fits = static_cast<int64_t>(k) == axis || d[k] == o[k];
    if (!fits) {
      *error = "input " + std::to_string(i) + " " + dims_text(d) + " does not fit input 0 " + dims_text(in(c, 0)) +
               " outside axis " + std::to_string(axis);
      return false;
    }
    o[axis] += d[axis];
  }
  out->assign(c.output_count, o);
  return true;
}

bool gather(const ShapeCall& c, std::vector<Dims>* out, std::string* error) {
  if (!first(c, error) || !has(c, 1)) {
    if (error->empty()) *error = "needs data and indices";
    return false;
  }
  const Dims &x = in(c, 0), &idx = in(c, 1);
  int64_t axis;
  if (!norm_axis(c.attrs.get_int("axis", 0), static_cast<int64_t>(x.size()), x, &axis, error)) return false;
  Dims o(x.begin(), x.begin() + axis);
  o.insert(o.end(), idx.begin(), idx.end());
  o.insert(o.end(), x.begin() + axis + 1, x.end());
  out->assign(c.output_count, o);
  return true;
}

int64_t clamp(int64_t v, int64_t low, int64_t high) { return std::min(std::max(v, low), high); }

bool shape(const ShapeCall& c, std::vector<Dims>* out, std::string* error) {
  if (!first(c, error)) return false;
  const int64_t rank = static_cast<int64_t>(in(c, 0).size());
  int64_t start = c.attrs.get_int("start", 0), end = c.attrs.get_int("end", rank);
  start = clamp(start < 0 ? start + rank : start, 0, rank);
  end = clamp(end < 0 ? end + rank : end, 0, rank);
  out->assign(c.output_count, Dims{std::max<int64_t>(end - start, 0)});
  return true;
}

bool slice(const ShapeCall& c, std::vector<Dims>* out, std::string* error) {
  if (!first(c, error)) return false;
  const Dims& x = in(c, 0);
  const int64_t rank = static_cast<int64_t>(x.size());
  Dims starts = c.attrs.get_ints("starts"), ends = c.attrs.get_ints("ends"), axes = c.attrs.get_ints("axes"), steps;
  if ((has(c, 1) && !c.values(1, &starts, error)) || (has(c, 2) && !c.values(2, &ends, error)) ||
      (has(c, 3) && !c.values(3, &axes, error)) || (has(c, 4) && !c.values(4, &steps, error)))
    return false;
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
    *error = "starts/ends/axes/steps differ in length";
    return false;
  }
  Dims o = x;
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t axis;
    if (!norm_axis(axes[i], rank, x, &axis, error)) return false;
    const int64_t n = x[axis], step = steps[i];
    if (step == 0) {
      *error = "step 0 on axis " + std::to_string(axis);
      return false;
    }
    int64_t s = starts[i] < 0 ? starts[i] + n : starts[i];
    int64_t e = ends[i] < 0 && ends[i] > std::numeric_limits<int64_t>::min() / 2 ? ends[i] + n : ends[i];
    if (step > 0) {
      s = clamp(s, 0, n);
      e = clamp(e, 0, n);
      o[axis] = e > s ? (e - s + step - 1) / step : 0;
    } else {
      s = clamp(s, -1, n - 1);
      e = clamp(e, -1, n - 1);
      o[axis] = s > e ? (s - e - step - 1) / -step : 0;
    }
  }
  out->assign(c.output_count, o);
  return true;
}

bool expand(const ShapeCall& c, std::vector<Dims>* out, std::string* error) {
  Dims target;
  if (!first(c, error) || !c.values(1, &target, error)) return false;
  Dims o;
  if (!broadcast_dims(in(c, 0), target, &o)) {
    *error = "input " + dims_text(in(c, 0)) + " does not broadcast to shape " + dims_text(target);
    return false;
  }
  out->assign(c.output_count, o);
  return true;
}

bool constant_of_shape(const ShapeCall& c, std::vector<Dims>* out, std::string* error) {
  Dims target;
  if (!c.values(0, &target, error)) return false;
  for (int64_t d : target)
    if (d < 0) {
      *error = "shape " + dims_text(target) + " has a negative dim";
      return false;
    }
  out->assign(c.output_count, target);
  return true;
}

bool range(const ShapeCall& c, std::vector<Dims>* out, std::string* error) {
  Dims start, limit, delta;
  if (!c.values(0, &start, error) || !c.values(1, &limit, error) || !c.values(2, &delta, error)) return false;
  if (start.size() != 1 || limit.size() != 1 || delta.size() != 1 || delta[0] == 0) {
    *error = "start, limit and delta must be scalars, delta not 0";
    return false;
  }
  const int64_t span = limit[0] - start[0], step = delta[0];
  const int64_t count = step > 0 ? (span + step - 1) / step : (span + step + 1) / step;
  out->assign(c.output_count, Dims{std::max<int64_t>(count, 0)});
  return true;
}

bool split(const ShapeCall& c, std::vector<Dims>* out, std::string* error) {
  if (!first(c, error)) return false;
  const Dims& x = in(c, 0);
  int64_t axis;
  if (!norm_axis(c.attrs.get_int("axis", 0), static_cast<int64_t>(x.size()), x, &axis, error)) return false;
  Dims sizes = c.attrs.get_ints("split");
  if (has(c, 1) && !c.values(1, &sizes, error)) return false;
  const int64_t n = x[axis], parts = static_cast<int64_t>(c.output_count);
  if (sizes.empty()) {
    const int64_t chunk = (n + parts - 1) / parts;  // the last part may be smaller (opset 18)
    for (int64_t p = 0; p < parts; ++p) sizes.push_back(std::max<int64_t>(std::min(chunk, n - p * chunk), 0));
  }
  int64_t total = 0;
  for (int64_t s : sizes) total += s;
  if (static_cast<int64_t>(sizes.size()) != parts || total != n) {
    *error = "split " + dims_text(sizes) + " does not cover dim " + std::to_string(axis) + " of " + dims_text(x);
    return false;
  }
  out->clear();
  for (int64_t s : sizes) {
    Dims o = x;
    o[axis] = s;
    out->push_back(o);
  }
  return true;
}

bool tile(const ShapeCall& c, std::vector<Dims>* out, std::string* error) {
  Dims repeats;
  if (!first(c, error) || !c.values(1, &repeats, error)) return false;
  Dims o = in(c, 0);
  if (repeats.size() != o.size()) {
    *error = "repeats " + dims_text(repeats) + " do not fit input " + dims_text(o);
    return false;
  }
  for (size_t d = 0; d < o.size(); ++d) o[d] *= repeats[d];
  out->assign(c.output_count, o);
  return true;
}

}  // namespace

ASCENDSIM_SHAPE_FN(Reshape, "", reshape);
ASCENDSIM_SHAPE_FN(Flatten, "", flatten);
ASCENDSIM_SHAPE_FN(Transpose, "", transpose);
ASCENDSIM_SHAPE_FN(Squeeze, "", squeeze);
ASCENDSIM_SHAPE_FN(Unsqueeze, "", unsqueeze);
ASCENDSIM_SHAPE_FN(Concat, "", concat);
ASCENDSIM_SHAPE_FN(Gather, "", gather);
ASCENDSIM_SHAPE_FN(Shape, "", shape);
ASCENDSIM_SHAPE_FN(Slice, "", slice);
ASCENDSIM_SHAPE_FN(Expand, "", expand);
ASCENDSIM_SHAPE_FN(ConstantOfShape, "", constant_of_shape);
ASCENDSIM_SHAPE_FN(Range, "", range);
ASCENDSIM_SHAPE_FN(Split, "", split);
ASCENDSIM_SHAPE_FN(Tile, "", tile);

}  // namespace ascendsim::model
