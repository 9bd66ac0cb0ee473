// ONNX If and Loop, run by the InferShape step of their node (their output shapes are known only once a
// subgraph ran; the node's AllocOutputs then adopts the results and its Launch copies those that are model
// outputs into the user's buffers, hybrid_model.cpp).
//
// Node layout (python/ascendsim/compiler/onnx_control_flow.py, docs/om-format.md §12): attribute `captured`
// = C, the trailing inputs that are outer-scope values, bound to the subgraph's last C inputs.
//   If   [cond, captured...]: cond must hold one element (bool, or a number: non-zero is true); the chosen
//        branch (`then_branch` / `else_branch`) runs on the captured values and its outputs are the node's.
//   Loop [M, cond, v_initial(N)..., captured...] -> [v_final(N)..., scan(K)...], body (`body`) inputs
//        [iteration number, condition, v(N)..., captured...] and outputs [condition, v(N)..., scan(K)...].
//        Exactly as the ONNX spec: M empty = no trip limit; cond empty = the condition is ignored (also the
//        body's); iteration i runs while i < M and the condition (the input's, then the body's previous
//        output) holds; v_final are the last values (the initial ones after zero iterations); scan output k
//        stacks every iteration's value along a new axis 0 (all iterations must give the same shape; after zero
//        iterations its shape is [0] + the body's compiled shape, -1 dims as 0, as onnxruntime does).
#include "model/control_flow.h"

#include <cstring>

namespace ascendsim::model {

namespace {

int64_t elements(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Element 0 of a one-element tensor as a truth value; false with `why` when it has another size.
bool truth(const FlowTensor& t, bool* value, std::string* why) {
  if (elements(t.dims) != 1) {
    *why = "has shape " + dims_text(t.dims) + "; it must hold exactly one element";
    return false;
  }
  const size_t size = aclDataTypeSize(t.dtype);
  const auto* bytes = static_cast<const uint8_t*>(t.addr);
  bool any = false;
  if (t.dtype == ACL_FLOAT) {
    float f;
    std::memcpy(&f, bytes, sizeof f);
    any = f != 0.0f;
  } else if (t.dtype == ACL_DOUBLE) {
    double f;
    std::memcpy(&f, bytes, sizeof f);
    any = f != 0.0;
  } else {
    for (size_t i = 0; i < size; ++i) any = any || bytes[i] != 0;
  }
  *value = any;
  return true;
}

std::string op_name(const NodeDef& node) { return "node '" + node.name + "' (" + node.op_type + ")"; }

bool run_if(const NodeDef& node, const std::vector<FlowTensor>& inputs, SubgraphRunner& runner,
            std::vector<FlowTensor>* outputs) {
  bool cond = false;
  std::string why;
  if (!truth(inputs[0], &cond, &why)) {
    runner.fail(ACL_ERROR_GE_PARAM_INVALID, op_name(node) + ": the condition " + why);
    return false;
  }
  const int64_t branch = node.attrs.get_int(cond ? "then_branch" : "else_branch", -1);
  const std::vector<FlowTensor> captured(inputs.begin() + 1, inputs.end());
  return runner.run_subgraph(static_cast<uint32_t>(branch), captured, outputs);
}

// A copy of `t` in memory of its own (the result of a Loop that ran zero times, whose final values are the
// initial inputs the caller still owns).
bool own_copy(const FlowTensor& t, SubgraphRunner& runner, FlowTensor* out) {
  *out = t;
  out->owned = false;
  const size_t bytes = flow_bytes(t);
  if (bytes == 0) return true;
  out->addr = runner.allocate(bytes);
  if (out->addr == nullptr) return false;
  std::memcpy(out->addr, t.addr, bytes);
  out->owned = true;
  return true;
}

class LoopRun {
 public:
  LoopRun(const NodeDef& node, const PlanDef& body, const std::vector<FlowTensor>& inputs, SubgraphRunner& runner)
      : node_(node), body_(body), inputs_(inputs), runner_(runner) {
    captured_ = static_cast<size_t>(node.attrs.get_int("captured", 0));
    carried_ = inputs.size() - 2 - captured_;
    scans_ = node.outputs.size() - carried_;
  }
  ~LoopRun() {
    release_flow(runner_, &carried_values_);
    if (counter_ != nullptr) runner_.release(counter_);
  }

  bool run(std::vector<FlowTensor>* outputs) {
    int64_t trips = INT64_MAX;  // M empty: no limit
    if (inputs_[0].present) {
      if (elements(inputs_[0].dims) != 1 || inputs_[0].dtype != ACL_INT64)
        return fail(ACL_ERROR_GE_PARAM_INVALID, "the trip count M has shape " + dims_text(inputs_[0].dims) +
                    " and data type " + std::to_string(inputs_[0].dtype) + "; it must be one INT64 element");
      std::memcpy(&trips, inputs_[0].addr, sizeof trips);
    }
    const bool use_cond = inputs_[1].present;
    bool cond = true;
    std::string why;
    if (use_cond && !truth(inputs_[1], &cond, &why)) return fail(ACL_ERROR_GE_PARAM_INVALID, "the condition " + why);
    // The iteration number (int64) and the condition (bool) the body reads, in device memory of their own.
    counter_ = static_cast<uint8_t*>(runner_.allocate(16));
    if (counter_ == nullptr) return false;
    carried_values_.assign(inputs_.begin() + 2, inputs_.begin() + 2 + static_cast<ptrdiff_t>(carried_));
    for (FlowTensor& t : carried_values_) t.owned = false;  // the caller's
    std::vector<std::vector<uint8_t>> scan_bytes(scans_);
    std::vector<Dims> scan_dims(scans_);
    int64_t done = 0;
    for (; done < trips && cond; ++done) {
      std::memcpy(counter_, &done, sizeof done);
      counter_[8] = 1;  // the body's condition input: true on every iteration that runs
      std::vector<FlowTensor> args{{{}, ACL_INT64, counter_, false, true}, {{}, ACL_BOOL, counter_ + 8, false, true}};
      args.insert(args.end(), carried_values_.begin(), carried_values_.end());
      args.insert(args.end(), inputs_.end() - static_cast<ptrdiff_t>(captured_), inputs_.end());
      std::vector<FlowTensor> results;
      if (!runner_.run_subgraph(static_cast<uint32_t>(node_.attrs.get_int("body", -1)), args, &results)) return false;
      bool next = true;
      const bool cond_ok = truth(results[0], &next, &why);
      release_flow(runner_, &carried_values_);
      carried_values_.assign(results.begin() + 1, results.begin() + 1 + static_cast<ptrdiff_t>(carried_));
      for (size_t k = 0; k < scans_; ++k) {
        const FlowTensor& s = results[1 + carried_ + k];
        if (done > 0 && s.dims != scan_dims[k]) {
          const std::string text = "scan output " + std::to_string(k) + " has shape " + dims_text(s.dims) +
                                   " in iteration " + std::to_string(done) + " and " + dims_text(scan_dims[k]) +
                                   " before; every iteration must give the same shape";
          std::vector<FlowTensor> rest(results.begin() + 1 + static_cast<ptrdiff_t>(carried_), results.end());
          results.resize(1);
          release_flow(runner_, &results);
          release_flow(runner_, &rest);
          return fail(ACL_ERROR_GE_SHAPE_INVALID, text);
        }
        scan_dims[k] = s.dims;
        const auto* bytes = static_cast<const uint8_t*>(s.addr);
        scan_bytes[k].insert(scan_bytes[k].end(), bytes, bytes + flow_bytes(s));
      }
      std::vector<FlowTensor> spent(results.begin() + 1 + static_cast<ptrdiff_t>(carried_), results.end());
      spent.push_back(results[0]);
      release_flow(runner_, &spent);
      if (!cond_ok) return fail(ACL_ERROR_GE_PARAM_INVALID, "the body's condition output " + why);
      if (use_cond) cond = next;
    }
    // The final values (copies of the initial ones after zero iterations), then the scan outputs.
    for (FlowTensor& t : carried_values_) {
      FlowTensor out;
      if (t.owned) {
        out = t;
        t.owned = false;
      } else if (!own_copy(t, runner_, &out)) {
        release_flow(runner_, outputs);
        return false;
      }
      outputs->push_back(out);
    }
    for (size_t k = 0; k < scans_; ++k) {
      FlowTensor out;
      out.dtype = body_.tensors[body_.output_ids[1 + carried_ + k]].dtype;
      if (done == 0)  // no iteration: the body's compiled per-iteration shape
        for (int64_t d : body_.tensors[body_.output_ids[1 + carried_ + k]].dims) scan_dims[k].push_back(d < 0 ? 0 : d);
      out.dims = {done};
      out.dims.insert(out.dims.end(), scan_dims[k].begin(), scan_dims[k].end());
      if (!scan_bytes[k].empty()) {
        out.addr = runner_.allocate(scan_bytes[k].size());
        if (out.addr == nullptr) {
          release_flow(runner_, outputs);
          return false;
        }
        std::memcpy(out.addr, scan_bytes[k].data(), scan_bytes[k].size());
        out.owned = true;
      }
      outputs->push_back(out);
    }
    return true;
  }

 private:
  bool fail(aclError code, const std::string& why) {
    runner_.fail(code, op_name(node_) + ": " + why);
    return false;
  }

  const NodeDef& node_;
  const PlanDef& body_;
  const std::vector<FlowTensor>& inputs_;
  SubgraphRunner& runner_;
  size_t captured_ = 0, carried_ = 0, scans_ = 0;
  std::vector<FlowTensor> carried_values_;
  uint8_t* counter_ = nullptr;
};

// Subgraph `attr` of the node: its index, checked to point after `graph` and to have the given counts.
std::string check_subgraph(const NodeDef& node, const char* attr, const std::vector<PlanDef>& subgraphs, uint32_t graph,
                           size_t inputs, size_t outputs) {
  const int64_t index = node.attrs.get_int(attr, -1);
  if (index < 0 || static_cast<size_t>(index) >= subgraphs.size() || static_cast<uint64_t>(index) + 1 <= graph)
    return std::string("attribute '") + attr + "' is " + std::to_string(index) + ", not a subgraph after this graph (" +
           std::to_string(subgraphs.size()) + " subgraphs)";
  const PlanDef& sub = subgraphs[static_cast<size_t>(index)];
  if (sub.input_ids.size() != inputs || sub.output_ids.size() != outputs)
    return std::string("subgraph ") + std::to_string(index) + " ('" + attr + "') has " +
           std::to_string(sub.input_ids.size()) + " inputs and " + std::to_string(sub.output_ids.size()) +
           " outputs; the node needs " + std::to_string(inputs) + " and " + std::to_string(outputs);
  return {};
}

}  // namespace

size_t flow_bytes(const FlowTensor& t) { return static_cast<size_t>(elements(t.dims)) * aclDataTypeSize(t.dtype); }

void release_flow(SubgraphRunner& runner, std::vector<FlowTensor>* tensors) {
  for (FlowTensor& t : *tensors)
    if (t.owned) runner.release(t.addr);
  tensors->clear();
}

ControlOp control_op(const NodeDef& node) {
  if (!node.domain.empty()) return ControlOp::None;
  if (node.op_type == "If") return ControlOp::If;
  if (node.op_type == "Loop") return ControlOp::Loop;
  return ControlOp::None;
}

std::string check_control_node(ControlOp op, const NodeDef& node, const std::vector<PlanDef>& subgraphs, uint32_t graph) {
  const int64_t captured = node.attrs.get_int("captured", -1);
  const size_t fixed = op == ControlOp::If ? 1 : 2;
  if (captured < 0 || node.inputs.size() < fixed + static_cast<size_t>(captured))
    return "attribute 'captured' is " + std::to_string(captured) + " for " + std::to_string(node.inputs.size()) + " inputs";
  if (op == ControlOp::If) {
    if (node.inputs[0] == kNone) return "input 0 (cond) is absent";
    for (const char* attr : {"then_branch", "else_branch"}) {
      std::string why = check_subgraph(node, attr, subgraphs, graph, node.inputs.size() - 1, node.outputs.size());
      if (!why.empty()) return why;
    }
    return {};
  }
  const size_t carried = node.inputs.size() - 2 - static_cast<size_t>(captured);
  if (node.outputs.size() < carried)
    return std::to_string(node.outputs.size()) + " outputs for " + std::to_string(carried) + " loop-carried values";
  for (size_t i = 2; i < 2 + carried; ++i)
    if (node.inputs[i] == kNone) return "loop-carried input " + std::to_string(i) + " is absent";
  return check_subgraph(node, "body", subgraphs, graph, node.inputs.size(), node.outputs.size() + 1);
}

bool run_control_node(ControlOp op, const NodeDef& node, const std::vector<PlanDef>& subgraphs,
                      const std::vector<FlowTensor>& inputs, SubgraphRunner& runner, std::vector<FlowTensor>* outputs) {
  if (op == ControlOp::If) return run_if(node, inputs, runner, outputs);
  LoopRun loop(node, subgraphs[static_cast<size_t>(node.attrs.get_int("body", -1))], inputs, runner);
  return loop.run(outputs);
}

}  // namespace ascendsim::model
