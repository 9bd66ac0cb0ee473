// From the C handles of an aclop* call to a run on a stream, shared by aclopExecute(V2), aclopCompile*,
// the handles and aclopCast:
//   read_call  — copies the tensor descriptions (under their mutexes) and the attributes into an OpCall;
//   read_inputs / read_outputs — the buffers' addresses and sizes (host-placed inputs contribute their
//                values to the signature, as GE's SetHostMemToConst);
//   launch     — checks the outputs against what the operator produces (dtype, static dims), every
//                buffer's size and memory (device memory, inside one allocation: never an out-of-bounds
//                access), enqueues ONE task running the compiled operator on the stream (NULL: the
//                current context's default stream) and, for the V2 functions, writes the output dims back
//                into the output descriptions.
#pragma once
#include <memory>
#include <vector>

#include "acl/acl_op.h"
#include "op/compiled_op.h"
#include "op/op_call.h"

namespace ascendsim::op {

struct PreparedCall {
  OpCall call;
  std::vector<const void*> inputs;
  std::vector<void*> outputs;
  std::vector<size_t> input_sizes, output_sizes;
};

// The most inputs, and the most outputs, one operator call takes (docs/single-op.md). CANN sets no bound; a
// dynamic input (AddN, ConcatD, Pack) of tens of thousands of tensors is already far beyond real use, and
// the bound keeps what a call allocates for its descriptions small whatever count it is given.
constexpr int kMaxOpTensors = 1 << 16;

// Null arrays and entries are refused (ACL_ERROR_INVALID_PARAM, naming the argument and index).
aclError read_call(const char* api, const char* op_type, int num_inputs, const aclTensorDesc* const* input_desc,
                   int num_outputs, const aclTensorDesc* const* output_desc, const aclopAttr* attr,
                   PreparedCall* out);
// The buffers of p->call's inputs / outputs (their counts), same refusals.
aclError read_inputs(const aclDataBuffer* const* inputs, PreparedCall* p);
aclError read_outputs(const aclDataBuffer* const* outputs, PreparedCall* p);

// GE's IsHostMemTensorDesc check: ACL_ERROR_API_NOT_SUPPORT when a tensor is placed in host memory
// (`what` needs device tensors: handles, aclopCompile).
aclError require_device_placement(const OpCall& call, const char* what);

// GE's IsAllTensorEmpty: every output holds no element (a 0 dim), the call does nothing.
bool all_outputs_empty(const OpCall& call);

// The operator of `call`, when a loaded model or an earlier compilation registered its signature; else
// ACL_ERROR_OP_NOT_FOUND with GE's message. `compile` = true registers it first (aclopCompile*).
aclError find_compiled(const OpCall& call, bool compile, std::shared_ptr<CompiledOp>* out);

// GE's dynamic-map rule: ACL_ERROR_INVALID_PARAM ("TensorDesc must be static when executing") when a
// description of an execution has a -1 dim or an unknown rank.
aclError require_static(const OpCall& call);

// The outputs of `call` against what the lowering produces: count and dtypes, and the dims when `dims`
// (ACL_ERROR_OP_OUTPUT_NOT_MATCH naming the output). launch's check, and atc's (op_check.h).
aclError check_outputs(const OpCall& call, const Lowering& l, bool dims);

// Checks and enqueues; update_dims: the V2 functions' output description update.
aclError launch(PreparedCall& p, const std::shared_ptr<CompiledOp>& op, aclrtStream stream,
                aclTensorDesc* const* update_dims);

}  // namespace ascendsim::op
