// The compile-time check of an operator signature (the algorithm is described in op_check.h).
#include "op/op_check.h"

#include <algorithm>
#include <memory>

#include "op/compiled_op.h"
#include "op/lower.h"
#include "op/op_runner.h"

namespace ascendsim::op {
namespace {

bool is_dynamic(const OpCall& call) {
  for (const auto* side : {&call.inputs, &call.outputs})
    for (const OpTensor& t : *side)
      if (!t.absent && !t.is_static()) return true;
  return false;
}

// The call with every -1 dim at its range's lower bound (at least 1); false for an unknown rank.
bool probe(const OpCall& call, OpCall* out) {
  *out = call;
  for (auto* side : {&out->inputs, &out->outputs})
    for (OpTensor& t : *side) {
      if (t.absent) continue;
      if (t.dims.size() == 1 && t.dims[0] == -2) return false;
      for (size_t k = 0; k < t.dims.size(); ++k)
        if (t.dims[k] < 0) t.dims[k] = std::max<int64_t>(1, k < t.ranges.size() ? t.ranges[k].first : 1);
    }
  return true;
}

}  // namespace

aclError check_signature(const CannOp& op, const OpCall& call) {
  if (!is_dynamic(call)) {
    std::shared_ptr<CompiledOp> compiled;
    if (aclError ret = CompiledOp::build(op, call, &compiled)) return ret;
    return check_outputs(call, compiled->lowering(), true);
  }
  OpCall probed;
  if (!probe(call, &probed)) return ACL_SUCCESS;  // unknown rank: only the execution's shapes can be checked
  Lowering lowering;
  const aclError ret = lower(op, probed, &lowering);
  if (ret == ACL_ERROR_FORMAT_NOT_MATCH || ret == ACL_ERROR_UNSUPPORTED_DATA_TYPE || ret == ACL_ERROR_OP_ATTR_NOT_MATCH)
    return ret;
  if (ret != ACL_SUCCESS) return ACL_SUCCESS;  // a shape refusal of the probe's dims, not of the model
  return check_outputs(call, lowering, false);
}

}  // namespace ascendsim::op
