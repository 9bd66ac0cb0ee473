// Whether an operator signature would run, without registering or caching anything: the check `atc --singleop`
// makes through ascendsimCheckOpModel before it keeps a model, so that ATC refuses at compile time what the
// runtime would refuse at execution (a model of an NHWC Conv2D that no kernel runs, an output description the
// operator does not produce).
//
// A static signature is built as an execution would build it (the lowering and every kernel): any refusal is
// returned, and so is an output whose count, dtype or dims differ from what the operator produces
// (ACL_ERROR_OP_OUTPUT_NOT_MATCH). A dynamic signature (-1 dims, unknown rank) is lowered with each -1 dim at
// its range's lower bound (at least 1): only the refusals that do not depend on the dims are returned (formats,
// unsupported dtypes, attributes) and the output dtypes are compared; kernels are built per shape at execution.
#pragma once
#include "acl/acl_base.h"
#include "op/op_call.h"
#include "op/op_table.h"

namespace ascendsim::op {

aclError check_signature(const CannOp& op, const OpCall& call);

}  // namespace ascendsim::op
