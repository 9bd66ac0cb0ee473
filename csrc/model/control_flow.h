// ONNX If and Loop on the v2 runtime: what the InferShape step of a control-flow node does (GE's v2
// lowering of functional control flow: the parent node's step picks or iterates a subgraph whose own
// execute graph the same executor runs). The algorithm is described at the top of control_flow.cpp; the
// plumbing (binding, running the subgraph's steps, adopting its outputs) is hybrid_model.cpp's.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl_base.h"
#include "model/model_def.h"
#include "model/shape_fns.h"

namespace ascendsim::model {

// A tensor handed to or returned by a subgraph: its dims, dtype and device address; `owned`: allocated by the
// runtime for this result (whoever receives it releases it, or adopts it).
struct FlowTensor {
  Dims dims;
  aclDataType dtype = ACL_FLOAT;
  void* addr = nullptr;
  bool owned = false;
  bool present = true;  // false: an absent optional input
};

// What a control-flow node needs from the runtime that runs it.
class SubgraphRunner {
 public:
  virtual ~SubgraphRunner() = default;
  // Runs subgraph `index` with `inputs` bound to its inputs; its outputs (runtime-allocated, owned) go to
  // `outputs`. False when it failed (the error is recorded).
  virtual bool run_subgraph(uint32_t index, const std::vector<FlowTensor>& inputs, std::vector<FlowTensor>* outputs) = 0;
  virtual void* allocate(size_t bytes) = 0;  // null: no device memory (the error is recorded)
  virtual void release(void* addr) = 0;
  virtual void fail(aclError code, const std::string& why) = 0;  // records the node's error
};

enum class ControlOp { None, If, Loop };
ControlOp control_op(const NodeDef& node);

// At load: the node's subgraph attributes name subgraphs after `graph` (0 the main graph, s + 1 subgraph s:
// no cycles) whose input and output counts fit the node; empty when fine, else what is wrong.
std::string check_control_node(ControlOp op, const NodeDef& node, const std::vector<PlanDef>& subgraphs,
                               uint32_t graph);

// Runs the node on its `inputs` (the node's inputs in order); `outputs` gets one owned tensor per node output.
// False when it failed (recorded through `runner`; nothing left allocated).
bool run_control_node(ControlOp op, const NodeDef& node, const std::vector<PlanDef>& subgraphs,
                      const std::vector<FlowTensor>& inputs, SubgraphRunner& runner, std::vector<FlowTensor>* outputs);

size_t flow_bytes(const FlowTensor& t);
void release_flow(SubgraphRunner& runner, std::vector<FlowTensor>* tensors);  // the owned ones

}  // namespace ascendsim::model
