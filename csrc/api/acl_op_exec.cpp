// acl_op.h execution: aclopExecute / aclopExecuteV2, the operator handles, aclopCast, aclopInferShape and
// aclopUpdateParams. As GE's executor: an operator runs only when a loaded single-op model or an earlier
// aclopCompile* registered its signature (op/op_cache.h), else ACL_ERROR_OP_NOT_FOUND; the run is one task
// on the stream; the V2 function writes the output dims back into the output descriptions.
#include <memory>

#include "acl/acl.h"
#include "core/error.h"
#include "core/handle_registry.h"
#include "op/lower.h"
#include "op/op_attr.h"
#include "op/op_cache.h"
#include "op/op_runner.h"
#include "runtime/tensor_desc.h"

using namespace ascendsim;
using namespace ascendsim::op;

// A handle: the call's signature, matched once; executions only bring buffers and a stream.
struct aclopHandle {
  PreparedCall prepared;
  std::shared_ptr<CompiledOp> op;
};

namespace {

HandleRegistry<aclopHandle>& handles() {
  static auto* registry = new HandleRegistry<aclopHandle>("op handle");  // outlives late destructors at exit
  return *registry;
}

aclError execute(const char* api, const char* op_type, int num_inputs, const aclTensorDesc* const* input_desc,
                 const aclDataBuffer* const* inputs, int num_outputs, const aclTensorDesc* const* output_desc,
                 const aclDataBuffer* const* outputs, const aclopAttr* attr, aclrtStream stream, bool v2) {
  thread_local PreparedCall p;  // reused: its vectors keep their capacity
  if (aclError ret = read_call(api, op_type, num_inputs, input_desc, num_outputs, output_desc, attr, &p)) return ret;
  if (all_outputs_empty(p.call)) return ACL_SUCCESS;  // GE checks this before the buffers
  if (aclError ret = read_inputs(inputs, &p)) return ret;
  if (aclError ret = read_outputs(outputs, &p)) return ret;
  std::shared_ptr<CompiledOp> op;
  if (aclError ret = find_compiled(p.call, false, &op)) return ret;
  return launch(p, op, stream, v2 ? const_cast<aclTensorDesc* const*>(output_desc) : nullptr);
}

// A handle for a signature; host-placed descriptions are refused, as in GE.
aclError create_handle(const char* api, const char* op_type, int num_inputs, const aclTensorDesc* const* input_desc,
                       int num_outputs, const aclTensorDesc* const* output_desc, const aclopAttr* attr,
                       aclopHandle** handle) {
  if (handle == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'handle' is NULL", api);
  auto h = std::make_shared<aclopHandle>();
  if (aclError ret = read_call(api, op_type, num_inputs, input_desc, num_outputs, output_desc, attr, &h->prepared))
    return ret;
  if (aclError ret = require_device_placement(h->prepared.call, "handles")) return ret;
  if (aclError ret = find_compiled(h->prepared.call, false, &h->op)) return ret;
  *handle = static_cast<aclopHandle*>(handles().add(std::move(h), api));
  return ACL_SUCCESS;
}

// aclopCast's attributes, as GE's builtin cast: dst_type, and truncate when a registered Cast has it.
aclopAttr* cast_attr(const aclTensorDesc* dst, uint8_t truncate) {
  aclopAttr* attr = create_op_attr();
  if (attr == nullptr) return nullptr;
  if (cast_has_truncate()) attr->set("truncate", truncate != 0);
  attr->set("dst_type", static_cast<int64_t>(aclGetTensorDescType(dst)));
  return attr;
}

// Runs `body` with aclopCast's attributes for `dst`, then destroys them (aclopCast and its handle).
template <typename Body>
aclError with_cast_attr(const aclTensorDesc* dst, uint8_t truncate, const char* api, Body body) {
  if (dst == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'dstDesc' is NULL", api);
  if (!find_tensor_desc(dst, api, "dstDesc")) return ACL_ERROR_INVALID_PARAM;
  aclopAttr* attr = cast_attr(dst, truncate);
  if (attr == nullptr) return fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
  const aclError ret = body(attr);
  destroy_op_attr(attr);
  return ret;
}

}  // namespace

extern "C" {

aclError aclopExecute(const char* opType, int numInputs, const aclTensorDesc* const inputDesc[],
                      const aclDataBuffer* const inputs[], int numOutputs, const aclTensorDesc* const outputDesc[],
                      aclDataBuffer* const outputs[], const aclopAttr* attr, aclrtStream stream) {
  return execute(__func__, opType, numInputs, inputDesc, inputs, numOutputs, outputDesc, outputs, attr, stream, false);
}

aclError aclopExecuteV2(const char* opType, int numInputs, aclTensorDesc* inputDesc[], aclDataBuffer* inputs[],
                        int numOutputs, aclTensorDesc* outputDesc[], aclDataBuffer* outputs[], aclopAttr* attr,
                        aclrtStream stream) {
  return execute(__func__, opType, numInputs, inputDesc, inputs, numOutputs, outputDesc, outputs, attr, stream, true);
}

aclError aclopCreateHandle(const char* opType, int numInputs, const aclTensorDesc* const inputDesc[], int numOutputs,
                           const aclTensorDesc* const outputDesc[], const aclopAttr* opAttr, aclopHandle** handle) {
  return create_handle(__func__, opType, numInputs, inputDesc, numOutputs, outputDesc, opAttr, handle);
}

aclError aclopExecWithHandle(aclopHandle* handle, int numInputs, const aclDataBuffer* const inputs[], int numOutputs,
                             aclDataBuffer* const outputs[], aclrtStream stream) {
  ASCENDSIM_CHECK_NOT_NULL(handle);
  auto h = handles().find(handle);
  if (!h) return fail(ACL_ERROR_INVALID_PARAM, "%s: handle %p is not live (destroyed or never created)", __func__,
                      static_cast<void*>(handle));
  if (numInputs < 0 || numOutputs < 0)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: numInputs %d / numOutputs %d must not be negative", __func__, numInputs,
                numOutputs);
  const OpCall& call = h->prepared.call;
  if (static_cast<size_t>(numInputs) != call.inputs.size())
    return fail(ACL_ERROR_OP_INPUT_NOT_MATCH, "%s: input num mismatch: expect %zu, but %d", __func__,
                call.inputs.size(), numInputs);
  if (static_cast<size_t>(numOutputs) != call.outputs.size())
    return fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "%s: output num mismatch: expect %zu, but %d", __func__,
                call.outputs.size(), numOutputs);
  if (all_outputs_empty(call)) return ACL_SUCCESS;
  thread_local PreparedCall p;
  p.call = call;
  p.call.api = __func__;
  if (aclError ret = read_inputs(inputs, &p)) return ret;
  if (aclError ret = read_outputs(outputs, &p)) return ret;
  return launch(p, h->op, stream, nullptr);
}

void aclopDestroyHandle(aclopHandle* handle) { handles().remove(handle); }

aclError aclopCast(const aclTensorDesc* srcDesc, const aclDataBuffer* srcBuffer, const aclTensorDesc* dstDesc,
                   aclDataBuffer* dstBuffer, uint8_t truncate, aclrtStream stream) {
  return with_cast_attr(dstDesc, truncate, __func__, [&](aclopAttr* attr) {
    const aclTensorDesc* in_desc[1] = {srcDesc};
    const aclTensorDesc* out_desc[1] = {dstDesc};
    const aclDataBuffer* in_buf[1] = {srcBuffer};
    const aclDataBuffer* out_buf[1] = {dstBuffer};
    return execute(__func__, "Cast", 1, in_desc, in_buf, 1, out_desc, out_buf, attr, stream, true);
  });
}

aclError aclopCreateHandleForCast(aclTensorDesc* srcDesc, aclTensorDesc* dstDesc, uint8_t truncate,
                                  aclopHandle** handle) {
  return with_cast_attr(dstDesc, truncate, __func__, [&](aclopAttr* attr) {
    const aclTensorDesc* in_desc[1] = {srcDesc};
    const aclTensorDesc* out_desc[1] = {dstDesc};
    return create_handle(__func__, "Cast", 1, in_desc, 1, out_desc, attr, handle);
  });
}

// Fills the output descriptions of an operator whose output shapes follow from its inputs and attributes
// (the lowering's shape inference; value inputs from `inputs` when host-placed, or from const data).
aclError aclopInferShape(const char* opType, int numInputs, aclTensorDesc* inputDesc[], aclDataBuffer* inputs[],
                         int numOutputs, aclTensorDesc* outputDesc[], aclopAttr* attr) {
  PreparedCall p;
  if (aclError ret = read_call(__func__, opType, numInputs, inputDesc, numOutputs, outputDesc, attr, &p)) return ret;
  if (inputs != nullptr)
    if (aclError ret = read_inputs(inputs, &p)) return ret;
  const CannOp* op = find_cann_op(p.call.type);
  if (op == nullptr)
    return fail(ACL_ERROR_OP_NOT_FOUND, "%s: op type '%s' is not supported by ascendsim", __func__, opType);
  Lowering lowering;
  if (aclError ret = lower(*op, p.call, &lowering)) return ret;
  for (int i = 0; i < numOutputs; ++i) {
    auto desc = find_tensor_desc(outputDesc[i], __func__, "outputDesc");
    if (!desc) return ACL_ERROR_INVALID_PARAM;
    std::lock_guard<std::mutex> lock(desc->mutex);
    desc->data.dims = lowering.out_dims[static_cast<size_t>(i)];
    if (desc->data.dtype == ACL_DT_UNDEFINED) desc->data.dtype = lowering.out_dtypes[static_cast<size_t>(i)];
  }
  return ACL_SUCCESS;
}

// GE selects a custom kernel through the compile function aclopRegisterCompileFunc registered; ascendsim
// runs no custom kernels, so no selector is ever registered: GE's answer for that case.
aclError aclopUpdateParams(const char* opType, int numInputs, const aclTensorDesc* const inputDesc[], int numOutputs,
                           const aclTensorDesc* const outputDesc[], const aclopAttr* attr) {
  PreparedCall p;
  if (aclError ret = read_call(__func__, opType, numInputs, inputDesc, numOutputs, outputDesc, attr, &p)) return ret;
  return fail(ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED, "%s: no kernel selector is registered for op type '%s' "
              "(aclopRegisterCompileFunc: custom kernels are not supported by ascendsim)", __func__, opType);
}

}  // extern "C"
