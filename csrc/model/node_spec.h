// What a kernel factory sees of a node, for both runtimes: its static description from the plan, each tensor's dims
// as the caller knows them (the plan's on the v1 path, the inferred ones on v2) and the data of its weight inputs
// (wherever the caller placed them).
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/kernel.h"
#include "model/model_def.h"

namespace ascendsim::model {

// dims_of(id) -> the tensor's dims; address_of(id) -> where a weight tensor's bytes are.
template <typename DimsOf, typename AddressOf>
kernels::NodeSpec node_spec(const PlanDef& plan, const NodeDef& node, const DimsOf& dims_of,
                            const AddressOf& address_of) {
  kernels::NodeSpec spec;
  spec.name = node.name;
  spec.op_type = node.op_type;
  spec.domain = node.domain;
  spec.attrs = &node.attrs;
  spec.flags = node.flags;
  for (uint32_t id : node.inputs) {
    kernels::TensorDesc desc;
    if (id != kNone) desc = {plan.tensors[id].dtype, dims_of(id)};
    spec.inputs.push_back(std::move(desc));
    spec.present.push_back(id != kNone);
    spec.constant_data.push_back(id != kNone && plan.tensors[id].kind == TensorKind::Weight ? address_of(id) : nullptr);
  }
  for (uint32_t id : node.outputs) spec.outputs.push_back({plan.tensors[id].dtype, dims_of(id)});
  return spec;
}

}  // namespace ascendsim::model
