// Elementwise kernels: unary math and activations, broadcasting binary arithmetic, comparisons and logic,
// variadic Max/Min, Where, Clip, Cast, Identity/Dropout and the compiler's FusedElementwise.
//
// Every elementwise node is run as a small program (a single op is a program of one step; variadic
// Max/Min become a chain of binary steps). The output is walked in blocks of at most kBlock elements along
// the innermost collapsed dim of the numpy broadcasting plan. Each step reads and writes slots: a node
// input that is already float32 (or int64) and contiguous along that dim is read in place; any other is
// first converted into a float32 or int64 per-thread temporary (broadcast by stride 0). The steps run as
// plain vectorizable loops (compiled for several instruction sets, picked at load), and the last one writes
// straight into a float32/int64 output, or into a temporary that is converted on store. So a tiny Add of
// two float32 tensors is one loop, called directly: parallel_for calls the block loop inline below its
// grain (no pool, no std::function). In-place outputs (docs/om-format.md §4.3) stay correct: every loop
// reads element i of its inputs before writing element i, converted inputs are loaded for the whole block
// before any step runs, and only an input of the output's element size may alias it. exp, erf and tanh
// (also inside Sigmoid, Silu, Gelu, Elu, Selu) are vmath.h's vectorizable forms. Float math is
// float32 for float16/float32 storage (double storage is computed in float32 too); integer and bool
// tensors are computed in int64.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include "core/enum_value.h"
#include "kernels/kernel_util.h"
#include "kernels/simd/elementwise_loops.h"
#include "kernels/thread_pool.h"

namespace ascendsim::kernels {
namespace {

constexpr int64_t kBlock = 512;

const std::map<std::string, Op>& op_table() {
  static const std::map<std::string, Op> table = {
      {"Sqrt", kSqrt}, {"Exp", kExp}, {"Log", kLog}, {"Abs", kAbs}, {"Neg", kNeg}, {"Reciprocal", kReciprocal},
      {"Floor", kFloor}, {"Ceil", kCeil}, {"Relu", kRelu}, {"Sigmoid", kSigmoid}, {"Tanh", kTanh},
      {"HardSigmoid", kHardSigmoid}, {"Erf", kErf}, {"Softplus", kSoftplus}, {"Elu", kElu}, {"Selu", kSelu},
      {"LeakyRelu", kLeakyRelu}, {"Sign", kSign}, {"Round", kRound}, {"Sin", kSin}, {"Cos", kCos},
      {"Softsign", kSoftsign}, {"Not", kNot}, {"HardSwish", kHardSwish}, {"Gelu", kGelu}, {"Silu", kSilu},
      {"Identity", kIdentity}, {"Dropout", kIdentity}, {"Cast", kCast}, {"Add", kAdd}, {"Sub", kSub},
      {"Mul", kMul}, {"Div", kDiv}, {"Pow", kPow}, {"Mod", kMod}, {"And", kAnd}, {"Or", kOr}, {"Xor", kXor},
      {"PRelu", kPRelu}, {"Max", kMax}, {"Min", kMin}, {"Equal", kEqual}, {"Greater", kGreater},
      {"Less", kLess}, {"GreaterOrEqual", kGreaterOrEqual}, {"LessOrEqual", kLessOrEqual}, {"Where", kWhere},
      {"Clip", kClip}};
  return table;
}

Kind kind_of(aclDataType d) { return is_float_dtype(d) ? kF : kI; }

// Float ops that have no integer form (refused on int64 slots).
bool float_only(Op op) {
  switch (op) {
    case kSqrt: case kExp: case kLog: case kReciprocal: case kFloor: case kCeil: case kSigmoid: case kTanh:
    case kHardSigmoid: case kErf: case kSoftplus: case kElu: case kSelu: case kLeakyRelu: case kRound:
    case kSin: case kCos: case kSoftsign: case kHardSwish: case kGelu: case kSilu: case kPRelu:
      return true;
    default:
      return false;
  }
}

bool bool_only(Op op) { return op == kNot || op == kAnd || op == kOr || op == kXor; }

// Fills the parameters of a step from its attributes; false with a message for unsupported values.
bool set_params(Step* s, const Attrs* attrs, std::string* why) {
  auto f = [&](const char* name, double fallback) {
    return static_cast<float>(attrs != nullptr ? attrs->get_float(name, fallback) : fallback);
  };
  switch (s->op) {
    case kHardSigmoid: s->alpha = f("alpha", 0.2); s->beta = f("beta", 0.5); break;
    case kElu: s->alpha = f("alpha", 1.0); break;
    case kSelu: s->alpha = f("alpha", 1.67326319217681884765625); s->gamma = f("gamma", 1.05070102214813232421875); break;
    case kLeakyRelu: s->alpha = f("alpha", 0.01); break;
    case kMod: s->flag = attrs != nullptr && attrs->get_int("fmod", 0) != 0; break;
    case kGelu: {
      std::string approx = attrs != nullptr ? attrs->get_string("approximate", "none") : "none";
      if (approx != "none" && approx != "tanh") {
        *why = "approximate='" + approx + "' is not supported (supported: 'none', 'tanh')";
        return false;
      }
      s->flag = approx == "tanh";
      break;
    }
    case kCast: {
      int64_t to = attrs != nullptr ? attrs->get_int("to", -1) : -1;
      const aclDataType d = data_type_or_undefined(to);
      if (!is_float_dtype(d) && !is_int_dtype(d)) {
        *why = "to=" + std::to_string(to) + " is not a supported aclDataType";
        return false;
      }
      s->to = d;
      break;
    }
    default: break;
  }
  return true;
}

// Types the step from its input kinds; false with a message when the combination is unsupported.
bool type_step(Step* s, const std::string& name, std::string* why) {
  Kind a = s->in_kind[0], b = s->in_kind[1];
  switch (s->op) {
    case kCast: s->kind = kind_of(s->to); return true;
    case kEqual: case kGreater: case kLess: case kGreaterOrEqual: case kLessOrEqual:
      if (a != b) break;
      s->kind = kI;
      return true;
    case kWhere:
      if (a != kI || s->in_kind[1] != s->in_kind[2]) break;
      s->kind = s->in_kind[1];
      return true;
    case kClip:
      if (a != b || a != s->in_kind[2]) break;
      s->kind = a;
      return true;
    case kPow: s->kind = a; return true;  // base and exponent may differ
    default:
      if (s->nin == 2 && a != b) break;
      if (float_only(s->op) && a != kF) {
        *why = name + " does not support integer or bool inputs";
        return false;
      }
      if (bool_only(s->op) && a != kI) {
        *why = name + " needs bool inputs";
        return false;
      }
      s->kind = a;
      return true;
  }
  *why = name + ": inputs of different kinds (float and integer) are not supported";
  return false;
}

// A short inner dim (blocked layouts: [N, C1, H, W, 16] times [N, C1, 1, 1, 16]) would make every block a
// few elements long. When each operand is contiguous over the last two dims, constant over both, or the
// same short row repeated along the next-to-last dim (`periodic`), the two dims merge into one long inner
// dim; the periodic operands are then read from a block-sized tile of their row repeated (kBlock is a
// multiple of the period, so every block starts at the row's start). Returns each operand's period (0: none).
std::vector<int64_t> merge_short_inner(BroadcastPlan* plan) {
  const size_t count = plan->strides.size(), rank = plan->dims.size();
  std::vector<int64_t> periods(count, 0);
  const int64_t inner = plan->inner();
  if (rank < 2 || inner > kBlock / 8 || kBlock % inner != 0) return periods;
  bool any_periodic = false;
  for (size_t k = 0; k < count; ++k) {
    const int64_t next = plan->strides[k][rank - 2], last = plan->strides[k][rank - 1];
    const bool contiguous = last == 1 && next == inner, constant = last == 0 && next == 0, periodic = last == 1 && next == 0;
    if (!contiguous && !constant && !periodic) return std::vector<int64_t>(count, 0);
    any_periodic = any_periodic || periodic;
    periods[k] = periodic ? inner : 0;
  }
  if (!any_periodic) return std::vector<int64_t>(count, 0);  // plan_broadcast merged the rest already
  plan->dims[rank - 2] *= inner;
  plan->dims.pop_back();
  for (auto& s : plan->strides) {
    s[rank - 2] = s[rank - 1];
    s.pop_back();
  }
  return periods;
}

class ElementwiseKernel final : public Kernel {
 public:
  ElementwiseKernel(std::vector<TensorDesc> inputs, TensorDesc output, std::vector<Step> steps)
      : inputs_(std::move(inputs)), output_(std::move(output)), steps_(std::move(steps)) {
    std::vector<std::vector<int64_t>> dims;
    for (const auto& in : inputs_) dims.push_back(in.dims);
    plan_ = plan_broadcast(output_.dims, dims);
    std::vector<int64_t> periods = merge_short_inner(&plan_);
    inner_ = plan_.inner();
    chunks_per_row_ = inner_ == 0 ? 0 : (inner_ + kBlock - 1) / kBlock;
    units_ = output_.numel() == 0 ? 0 : plan_.rows() * chunks_per_row_;
    grain_ = std::max<int64_t>(1, (1 << 15) / std::max<int64_t>(std::min(inner_, kBlock), 1));  // ~32K elements
    slots_ = inputs_.size() + steps_.size();
    // Direct slots: an input already in its slot's form (float32 / int64, contiguous along the inner dim) is
    // read in place, and the last step writes straight into an output of its kind; the rest use scratch.
    // The per-input facts the block loop needs sit in one compact array (1000 tiny nodes stay in cache).
    scratch_ = steps_.size() > 1;
    for (size_t k = 0; k < inputs_.size(); ++k) {
      aclDataType d = inputs_[k].dtype;
      Operand op{plan_.strides[k].back(), periods[k], d, static_cast<int>(aclDataTypeSize(d)), false};
      // Only an input of the output's element size can alias it (in place: same offset and byte size), and
      // then element i is element i; a direct input of another element size never shares its bytes.
      op.direct = op.stride == 1 && op.period == 0 && (d == ACL_FLOAT || d == ACL_INT64) &&
                  (aclDataTypeSize(d) == aclDataTypeSize(output_.dtype) || inputs_[k].nbytes() != output_.nbytes());
      scratch_ = scratch_ || !op.direct;
      operands_.push_back(op);
    }
    Kind last = steps_.back().kind;
    out_direct_ = output_.dtype == (last == kF ? ACL_FLOAT : ACL_INT64);
    scratch_ = scratch_ || !out_direct_;
    out_elem_ = static_cast<int64_t>(aclDataTypeSize(output_.dtype));
    one_row_ = plan_.rows() == 1;
    const Step& first = steps_[0];
    const Op op = first.op;
    direct_binary_ = steps_.size() == 1 && one_row_ && out_direct_ && units_ <= grain_ && first.kind == kF &&
                     (op == kAdd || op == kSub || op == kMul || op == kDiv);
    for (int k = 0; direct_binary_ && k < 2; ++k) {
      const size_t in = static_cast<size_t>(first.in[k]);
      direct_binary_ = in < operands_.size() && operands_[in].direct && operands_[in].dtype == ACL_FLOAT;
    }
  }

  void run(const void* const* inputs, void* const* outputs) override {
    if (direct_binary_) {
      const Step& s = steps_[0];
      elementwise_loops().binary(s.op, static_cast<const float*>(inputs[s.in[0]]), static_cast<const float*>(inputs[s.in[1]]),
                    static_cast<float*>(outputs[0]), inner_);
      return;
    }
    parallel_for(units_, grain_, [&](int64_t u0, int64_t u1) { run_units(inputs, outputs[0], u0, u1); });
  }

 private:
  static constexpr size_t kStackSlots = 32;
  struct Operand {
    int64_t stride;  // element stride along the inner dim (0: broadcast)
    int64_t period;  // > 0: the inner dim repeats these many elements (merge_short_inner)
    aclDataType dtype;
    int elem;        // bytes per element
    bool direct;
  };

  // Blocks [u0, u1): load (or point at) the inputs, run the steps, store (or have written) the output.
  void run_units(const void* const* inputs, void* out, int64_t u0, int64_t u1) const {
    void* stack[kStackSlots];
    void** slot = slots_ <= kStackSlots ? stack : reinterpret_cast<void**>(scratch_floats(7, slots_ * 2));
    auto* memory = scratch_ ? reinterpret_cast<int64_t*>(scratch_floats(0, slots_ * kBlock * 2)) : nullptr;
    const size_t n_in = operands_.size();
    const Operand* ops = operands_.data();
    const auto run_step = elementwise_loops().step;
    int64_t tile_base[kStackSlots];  // a periodic operand's tile is rebuilt only when its row moves
    std::fill(tile_base, tile_base + std::min(n_in, kStackSlots), int64_t{-1});
    for (int64_t u = u0; u < u1; ++u) {
      int64_t row = u / chunks_per_row_, j0 = (u % chunks_per_row_) * kBlock;
      int64_t n = std::min(kBlock, inner_ - j0);
      for (size_t k = 0; k < n_in; ++k) {
        const Operand& op = ops[k];
        int64_t offset = (one_row_ ? 0 : plan_.row_offset(k, row)) + (op.period > 0 ? 0 : j0 * op.stride);
        if (op.direct) {
          slot[k] = const_cast<char*>(static_cast<const char*>(inputs[k])) + offset * op.elem;
          continue;
        }
        slot[k] = memory + k * kBlock;
        if (op.period > 0) {
          if (k >= kStackSlots || tile_base[k] != offset) load_tile(op, inputs[k], offset, slot[k]);
          if (k < kStackSlots) tile_base[k] = offset;
        } else if (kind_of(op.dtype) == kF) {
          load_float(op.dtype, inputs[k], offset, op.stride, n, static_cast<float*>(slot[k]));
        } else {
          load_int(op.dtype, inputs[k], offset, op.stride, n, static_cast<int64_t*>(slot[k]));
        }
      }
      int64_t out_offset = row * inner_ + j0;
      const size_t n_steps = steps_.size();
      for (size_t t = 0; t < n_steps; ++t) {
        size_t self = n_in + t;
        slot[self] = t + 1 == n_steps && out_direct_ ? static_cast<char*>(out) + out_offset * out_elem_
                                                     : static_cast<void*>(memory + self * kBlock);
        run_step(steps_[t], n, slot, slot[self]);
      }
      if (out_direct_) continue;
      const void* result = slot[slots_ - 1];
      if (steps_.back().kind == kF) {
        store_float(output_.dtype, static_cast<const float*>(result), n, out, out_offset);
      } else {
        store_int(output_.dtype, static_cast<const int64_t*>(result), n, out, out_offset);
      }
    }
  }

  // A whole block of a periodic operand: its `period` elements at `offset`, converted, then repeated.
  static void load_tile(const Operand& op, const void* data, int64_t offset, void* tile) {
    if (kind_of(op.dtype) == kF) {
      load_float(op.dtype, data, offset, 1, op.period, static_cast<float*>(tile));
    } else {
      load_int(op.dtype, data, offset, 1, op.period, static_cast<int64_t*>(tile));
    }
    const size_t bytes = static_cast<size_t>(op.period) * (kind_of(op.dtype) == kF ? sizeof(float) : sizeof(int64_t));
    for (size_t have = bytes; have < kBlock * bytes / static_cast<size_t>(op.period); have *= 2)
      std::memcpy(static_cast<char*>(tile) + have, tile, have);
  }

  std::vector<TensorDesc> inputs_;
  TensorDesc output_;
  std::vector<Step> steps_;
  BroadcastPlan plan_;
  int64_t inner_ = 0, chunks_per_row_ = 0, units_ = 0, grain_ = 1;
  size_t slots_ = 0;
  int64_t out_elem_ = 4;
  std::vector<Operand> operands_;
  bool out_direct_ = false, scratch_ = false, one_row_ = true;
  bool direct_binary_ = false;  // one small Add/Sub/Mul/Div of same-shape direct operands: binary_direct
};

// Appends the steps of one op (variadic Max/Min become binary chains) reading `ins` (slot numbers).
bool add_op_steps(const std::string& op_name, const Attrs* attrs, std::vector<int> ins, std::vector<Kind>* kinds,
                  int first_step_slot, std::vector<Step>* steps, std::string* why) {
  auto it = op_table().find(op_name);
  if (it == op_table().end()) {
    *why = "op '" + op_name + "' is not an elementwise op this runtime supports";
    return false;
  }
  Op op = it->second;
  int want = arity(op);
  if (op == kMax || op == kMin) {
    if (ins.empty()) {
      *why = op_name + " needs at least one input";
      return false;
    }
    if (ins.size() == 1) {
      op = kIdentity;
      want = 1;
    }
  } else if (static_cast<int>(ins.size()) != want) {
    *why = op_name + " takes " + std::to_string(want) + " inputs, got " + std::to_string(ins.size());
    return false;
  }
  size_t parts = (op == kMax || op == kMin) ? ins.size() - 1 : 1;
  int prev = ins[0];
  for (size_t p = 0; p < parts; ++p) {
    Step s;
    s.op = op;
    s.nin = want;
    if (parts > 1 || op == kMax || op == kMin) {
      s.in[0] = prev;
      s.in[1] = ins[p + 1];
    } else {
      for (int k = 0; k < want; ++k) s.in[k] = ins[static_cast<size_t>(k)];
    }
    for (int k = 0; k < want; ++k) s.in_kind[k] = (*kinds)[static_cast<size_t>(s.in[k])];
    if (!set_params(&s, attrs, why) || !type_step(&s, op_name, why)) return false;
    steps->push_back(s);
    prev = first_step_slot + static_cast<int>(steps->size()) - 1;
    kinds->push_back(s.kind);
  }
  return true;
}

bool check_output(const NodeSpec& spec, Kind kind, std::string* error) {
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < spec.inputs.size(); ++i) shapes.push_back(spec.inputs[i].dims);
  std::vector<int64_t> out;
  if (!broadcast_shapes(shapes, &out)) {
    std::string s;
    for (const auto& d : shapes) s += dims_str(d) + " ";
    return fail_spec(spec, error, "input shapes " + s + "do not broadcast");
  }
  if (spec.outputs.empty() || spec.outputs[0].dims != out)
    return fail_spec(spec, error, "output shape " + (spec.outputs.empty() ? std::string("(none)") : dims_str(spec.outputs[0].dims)) +
                                      " is not the broadcast shape " + dims_str(out));
  aclDataType od = spec.outputs[0].dtype;
  if (!is_float_dtype(od) && !is_int_dtype(od))
    return fail_spec(spec, error, std::string("output dtype ") + dtype_name(od) + " is not supported");
  if ((kind == kF) != is_float_dtype(od))
    return fail_spec(spec, error, std::string("output dtype ") + dtype_name(od) + " does not match the computed kind");
  return true;
}

bool check_inputs(const NodeSpec& spec, std::string* error) {
  for (size_t i = 0; i < spec.inputs.size(); ++i) {
    if (i < spec.present.size() && !spec.present[i]) continue;
    aclDataType d = spec.inputs[i].dtype;
    if (!is_float_dtype(d) && !is_int_dtype(d))
      return fail_spec(spec, error, "input " + std::to_string(i) + " dtype " + dtype_name(d) + " is not supported");
  }
  return true;
}

std::unique_ptr<Kernel> make_single(const NodeSpec& spec, std::string* error) {
  if (!check_inputs(spec, error)) return nullptr;
  size_t count = spec.op_type == "Dropout" ? 1 : spec.inputs.size();
  std::vector<TensorDesc> inputs;
  std::vector<Kind> kinds;
  std::vector<int> ins;
  for (size_t i = 0; i < count; ++i) {
    if (i < spec.present.size() && !spec.present[i]) return refuse(spec, error, "input " + std::to_string(i) + " is absent");
    inputs.push_back(spec.inputs[i]);
    kinds.push_back(kind_of(spec.inputs[i].dtype));
    ins.push_back(static_cast<int>(i));
  }
  std::vector<Step> steps;
  std::string why;
  if (!add_op_steps(spec.op_type, spec.attrs, ins, &kinds, static_cast<int>(count), &steps, &why))
    return refuse(spec, error, why);
  if (!check_output(spec, steps.back().kind, error)) return nullptr;
  return std::make_unique<ElementwiseKernel>(std::move(inputs), spec.outputs[0], std::move(steps));
}

// Clip(x, min, max): absent bounds become constants (-inf/+inf, or the int64 limits) held by the kernel;
// the bounds are scalars (a 1-element tensor of any rank).
std::unique_ptr<Kernel> make_clip(const NodeSpec& spec, std::string* error) {
  if (!check_inputs(spec, error)) return nullptr;
  if (spec.inputs.empty() || (!spec.present.empty() && !spec.present[0])) return refuse(spec, error, "input 0 is absent");
  Kind kind = kind_of(spec.inputs[0].dtype);
  std::vector<TensorDesc> inputs = {spec.inputs[0], {}, {}};
  std::vector<bool> given(3, false);
  for (size_t b = 1; b < 3; ++b) {
    given[b] = b < spec.inputs.size() && (b >= spec.present.size() || spec.present[b]);
    if (given[b]) {
      if (spec.inputs[b].numel() != 1)
        return refuse(spec, error, "min/max must be scalars, got shape " + dims_str(spec.inputs[b].dims));
      if (kind_of(spec.inputs[b].dtype) != kind) return refuse(spec, error, "min/max dtype differs from the input's");
      inputs[b].dtype = spec.inputs[b].dtype;
    } else {
      inputs[b].dtype = kind == kF ? ACL_FLOAT : ACL_INT64;
    }
  }
  std::vector<Kind> kinds = {kind, kind, kind};
  std::vector<Step> steps;
  std::string why;
  if (!add_op_steps("Clip", spec.attrs, {0, 1, 2}, &kinds, 3, &steps, &why)) return refuse(spec, error, why);
  NodeSpec unary = spec;
  unary.inputs = {spec.inputs[0]};
  unary.present = {true};
  if (!check_output(unary, kind, error)) return nullptr;
  auto kernel = std::make_shared<ElementwiseKernel>(inputs, spec.outputs[0], std::move(steps));
  static const float kLow = -std::numeric_limits<float>::infinity(), kHigh = std::numeric_limits<float>::infinity();
  static const int64_t kLowI = std::numeric_limits<int64_t>::min(), kHighI = std::numeric_limits<int64_t>::max();
  const void* low = kind == kF ? static_cast<const void*>(&kLow) : &kLowI;
  const void* high = kind == kF ? static_cast<const void*>(&kHigh) : &kHighI;
  bool has_low = given[1], has_high = given[2];
  return make_lambda_kernel([kernel, low, high, has_low, has_high](const void* const* in, void* const* out) {
    const void* args[3] = {in[0], has_low ? in[1] : low, has_high ? in[2] : high};
    kernel->run(args, out);
  });
}

// Removes step `index` of a program whose inputs take slots [0, n_in): the steps that read its slot read
// `replacement` instead, and the later steps' slots move down by one.
void erase_step(std::vector<Step>* steps, int n_in, size_t index, int replacement) {
  const int erased = n_in + static_cast<int>(index);
  steps->erase(steps->begin() + static_cast<std::ptrdiff_t>(index));
  for (Step& s : *steps) {
    for (int k = 0; k < s.nin; ++k) {
      if (s.in[k] == erased) s.in[k] = replacement;
      else if (s.in[k] > erased) --s.in[k];
    }
  }
}

int readers(const std::vector<Step>& steps, int slot) {
  int count = 0;
  for (const Step& s : steps)
    for (int k = 0; k < s.nin; ++k) count += s.in[k] == slot;
  return count;
}

// A float Mul read only by the Add after it becomes one multiply-add step, and a Relu that is the only reader
// of a multiply-add before it joins it: a scale-and-shift (an inference BatchNormalization on NC1HWC0,
// passes/layout_5hd.py, then its Relu) runs as one pass over each block instead of three (DenseNet-121's,
// 64 x 56 x 56 blocked: 38 -> 29 us, a Relu alone 25).
void fuse_multiply_add(std::vector<Step>* steps, int n_in) {
  auto all_float = [](const Step& s) {
    return s.kind == kF && s.in_kind[0] == kF && (s.nin < 2 || s.in_kind[1] == kF) && (s.nin < 3 || s.in_kind[2] == kF);
  };
  for (size_t t = 0; t + 1 < steps->size(); ++t) {
    Step &mul = (*steps)[t], &add = (*steps)[t + 1];
    const int product = n_in + static_cast<int>(t);
    if (mul.op != kMul || add.op != kAdd || !all_float(mul) || !all_float(add) || readers(*steps, product) != 1 ||
        (add.in[0] != product && add.in[1] != product))
      continue;
    const int shift = add.in[0] == product ? add.in[1] : add.in[0];
    add = Step{kMulAdd, {mul.in[0], mul.in[1], shift}, 3, kF, {kF, kF, kF}};
    erase_step(steps, n_in, t, product);
  }
  for (size_t t = 0; t + 1 < steps->size(); ++t) {
    Step &fused = (*steps)[t], &relu = (*steps)[t + 1];
    const int sum = n_in + static_cast<int>(t);
    if (fused.op != kMulAdd || fused.flag || relu.op != kRelu || relu.kind != kF || relu.in[0] != sum ||
        readers(*steps, sum) != 1)
      continue;
    fused.flag = true;
    erase_step(steps, n_in, t + 1, sum);
  }
}

std::unique_ptr<Kernel> make_fused(const NodeSpec& spec, std::string* error) {
  if (!check_inputs(spec, error)) return nullptr;
  const AttrValue* program = spec.attrs != nullptr ? spec.attrs->find("program") : nullptr;
  if (program == nullptr || program->type != AttrValue::Type::Dicts || program->dicts.empty())
    return refuse(spec, error, "attribute 'program' is missing or empty");
  std::vector<TensorDesc> inputs = spec.inputs;
  std::vector<Kind> kinds;
  for (const auto& in : inputs) kinds.push_back(kind_of(in.dtype));
  int n_in = static_cast<int>(inputs.size());
  // Step slots: slot numbers in the program are node inputs then step results; a variadic step may
  // expand to several kernel steps, so program slots map to kernel slots.
  std::vector<int> slot_map;
  for (int i = 0; i < n_in; ++i) slot_map.push_back(i);
  std::vector<Step> steps;
  for (size_t t = 0; t < program->dicts.size(); ++t) {
    const Attrs& step = *program->dicts[t];
    std::string op = step.get_string("op", "");
    std::vector<int> ins;
    for (int64_t v : step.get_ints("inputs")) {
      if (v < 0 || v >= static_cast<int64_t>(slot_map.size()))
        return refuse(spec, error, "program step " + std::to_string(t) + ": input " + std::to_string(v) + " is out of range");
      ins.push_back(slot_map[static_cast<size_t>(v)]);
    }
    const Attrs* step_attrs = nullptr;
    if (const AttrValue* a = step.find("attrs"); a != nullptr && a->type == AttrValue::Type::Dicts && !a->dicts.empty())
      step_attrs = a->dicts[0].get();
    std::string why;
    if (!add_op_steps(op, step_attrs, ins, &kinds, n_in, &steps, &why))
      return refuse(spec, error, "program step " + std::to_string(t) + ": " + why);
    slot_map.push_back(n_in + static_cast<int>(steps.size()) - 1);
  }
  if (!check_output(spec, steps.back().kind, error)) return nullptr;
  fuse_multiply_add(&steps, n_in);
  return std::make_unique<ElementwiseKernel>(std::move(inputs), spec.outputs[0], std::move(steps));
}

// Identity/Dropout: a copy unless the output is the input (a view).
std::unique_ptr<Kernel> make_copy(const NodeSpec& spec, std::string* error) {
  if (spec.inputs.empty() || spec.outputs.empty()) return refuse(spec, error, "needs one input and one output");
  if (spec.inputs[0].dtype != spec.outputs[0].dtype || spec.inputs[0].numel() != spec.outputs[0].numel())
    return refuse(spec, error, "output differs from the input in dtype or size");
  size_t bytes = spec.outputs[0].nbytes();
  bool mask = spec.op_type == "Dropout" && spec.outputs.size() > 1;
  int64_t mask_n = mask ? spec.outputs[1].numel() : 0;
  return make_lambda_kernel([bytes, mask, mask_n](const void* const* in, void* const* out) {
    if (out[0] != in[0] && bytes > 0) std::memmove(out[0], in[0], bytes);
    if (mask && out[1] != nullptr) std::memset(out[1], 1, static_cast<size_t>(mask_n));  // inference: keep all
  });
}

}  // namespace

ASCENDSIM_KERNEL(Sqrt, "", make_single);
ASCENDSIM_KERNEL(Exp, "", make_single);
ASCENDSIM_KERNEL(Log, "", make_single);
ASCENDSIM_KERNEL(Abs, "", make_single);
ASCENDSIM_KERNEL(Neg, "", make_single);
ASCENDSIM_KERNEL(Reciprocal, "", make_single);
ASCENDSIM_KERNEL(Floor, "", make_single);
ASCENDSIM_KERNEL(Ceil, "", make_single);
ASCENDSIM_KERNEL(Relu, "", make_single);
ASCENDSIM_KERNEL(Sigmoid, "", make_single);
ASCENDSIM_KERNEL(Tanh, "", make_single);
ASCENDSIM_KERNEL(HardSigmoid, "", make_single);
ASCENDSIM_KERNEL(Erf, "", make_single);
ASCENDSIM_KERNEL(Softplus, "", make_single);
ASCENDSIM_KERNEL(Elu, "", make_single);
ASCENDSIM_KERNEL(Selu, "", make_single);
ASCENDSIM_KERNEL(LeakyRelu, "", make_single);
ASCENDSIM_KERNEL(Sign, "", make_single);
ASCENDSIM_KERNEL(Round, "", make_single);
ASCENDSIM_KERNEL(Sin, "", make_single);
ASCENDSIM_KERNEL(Cos, "", make_single);
ASCENDSIM_KERNEL(Softsign, "", make_single);
ASCENDSIM_KERNEL(Not, "", make_single);
ASCENDSIM_KERNEL(HardSwish, "", make_single);
ASCENDSIM_KERNEL(Gelu, "", make_single);
ASCENDSIM_KERNEL(Cast, "", make_single);
ASCENDSIM_KERNEL(Add, "", make_single);
ASCENDSIM_KERNEL(Sub, "", make_single);
ASCENDSIM_KERNEL(Mul, "", make_single);
ASCENDSIM_KERNEL(Div, "", make_single);
ASCENDSIM_KERNEL(Pow, "", make_single);
ASCENDSIM_KERNEL(Mod, "", make_single);
ASCENDSIM_KERNEL(And, "", make_single);
ASCENDSIM_KERNEL(Or, "", make_single);
ASCENDSIM_KERNEL(Xor, "", make_single);
ASCENDSIM_KERNEL(PRelu, "", make_single);
ASCENDSIM_KERNEL(Max, "", make_single);
ASCENDSIM_KERNEL(Min, "", make_single);
ASCENDSIM_KERNEL(Equal, "", make_single);
ASCENDSIM_KERNEL(Greater, "", make_single);
ASCENDSIM_KERNEL(Less, "", make_single);
ASCENDSIM_KERNEL(GreaterOrEqual, "", make_single);
ASCENDSIM_KERNEL(LessOrEqual, "", make_single);
ASCENDSIM_KERNEL(Where, "", make_single);
ASCENDSIM_KERNEL(Clip, "", make_clip);
ASCENDSIM_KERNEL(FusedElementwise, "ascendsim", make_fused);
ASCENDSIM_KERNEL(Identity, "", make_copy);
ASCENDSIM_KERNEL(Dropout, "", make_copy);

}  // namespace ascendsim::kernels
