// acl_op_compiler.h: "online compilation". aclopCompile checks the call as GE does, registers the
// signature as executable (op/op_cache.h) and, for static shapes, builds the kernel into the operator cache
// (a second compilation of the same signature is a cache hit; a dynamic signature — -1 dims with ranges —
// is built per concrete shape at execution). aclopCompileAndExecute(V2) compile then execute; the V2 form
// writes the output dims back (GE: ACL_OP_EXECUTE_REFRESH_OUTPUT_ORI_SHAPE). The engine type only selects a
// real device's compute unit and is accepted as is. ascendsimGetOpCacheStats exposes the cache counters.
#include "acl/acl.h"
#include "acl/acl_op_compiler.h"
#include "ascendsim/ascendsim_ext.h"
#include "core/error.h"
#include "op/op_cache.h"
#include "op/op_runner.h"

using namespace ascendsim;
using namespace ascendsim::op;

namespace {

aclError check_flags(const char* api, aclopCompileType flag, const char* op_path) {
  if (flag != ACL_COMPILE_SYS && flag != ACL_COMPILE_UNREGISTERED)
    return fail(ACL_ERROR_API_NOT_SUPPORT, "%s: compile type %d is not supported (ACL_COMPILE_SYS or "
                "ACL_COMPILE_UNREGISTERED)", api, static_cast<int>(flag));
  if (flag == ACL_COMPILE_UNREGISTERED && op_path == nullptr)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: opPath cannot be NULL while compileFlag is ACL_COMPILE_UNREGISTERED", api);
  return ACL_SUCCESS;
}

// Registers the signature; builds the kernel when every input shape is static.
aclError compile(PreparedCall& p, std::shared_ptr<CompiledOp>* op) {
  bool dynamic = false;
  for (const OpTensor& t : p.call.inputs) dynamic = dynamic || (!t.absent && !t.is_static());
  if (!dynamic) return find_compiled(p.call, true, op);
  if (find_cann_op(p.call.type) == nullptr)
    return fail(ACL_ERROR_OP_NOT_FOUND, "%s: op type '%s' is not supported by ascendsim", p.call.api,
                p.call.type.c_str());
  register_op(p.call, p.call.api);
  return ACL_SUCCESS;
}

aclError compile_and_execute(const char* api, const char* op_type, int num_inputs, const aclTensorDesc* const* in_desc,
                             const aclDataBuffer* const* inputs, int num_outputs, const aclTensorDesc* const* out_desc,
                             aclDataBuffer* const* outputs, const aclopAttr* attr, aclopCompileType flag,
                             const char* op_path, aclrtStream stream, bool v2) {
  if (num_inputs < 0 || num_outputs < 0)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: numInputs %d / numOutputs %d must not be negative", api, num_inputs,
                num_outputs);
  if (aclError ret = check_flags(api, flag, op_path)) return ret;
  thread_local PreparedCall p;
  if (aclError ret = read_call(api, op_type, num_inputs, in_desc, num_outputs, out_desc, attr, &p)) return ret;
  if (aclError ret = read_inputs(inputs, &p)) return ret;  // GE checks the buffer arrays first here
  if (aclError ret = read_outputs(outputs, &p)) return ret;
  if (all_outputs_empty(p.call)) return ACL_SUCCESS;
  std::shared_ptr<CompiledOp> op;
  if (aclError ret = compile(p, &op)) return ret;
  if (aclError ret = require_static(p.call)) return ret;  // GE's execution step refuses dynamic descriptions
  return launch(p, op, stream, v2 ? const_cast<aclTensorDesc* const*>(out_desc) : nullptr);
}

}  // namespace

extern "C" {

aclError aclopCompile(const char* opType, int numInputs, const aclTensorDesc* const inputDesc[], int numOutputs,
                      const aclTensorDesc* const outputDesc[], const aclopAttr* attr, aclopEngineType engineType,
                      aclopCompileType compileFlag, const char* opPath) {
  (void)engineType;
  if (numInputs < 0 || numOutputs < 0)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: numInputs %d / numOutputs %d must not be negative", __func__, numInputs,
                numOutputs);
  if (compileFlag != ACL_COMPILE_SYS && compileFlag != ACL_COMPILE_UNREGISTERED)
    return check_flags(__func__, compileFlag, opPath);
  PreparedCall p;
  if (aclError ret = read_call(__func__, opType, numInputs, inputDesc, numOutputs, outputDesc, attr, &p)) return ret;
  if (aclError ret = require_device_placement(p.call, "aclopCompile")) return ret;
  if (aclError ret = check_flags(__func__, compileFlag, opPath)) return ret;
  std::shared_ptr<CompiledOp> op;
  return compile(p, &op);
}

aclError aclopCompileAndExecute(const char* opType, int numInputs, const aclTensorDesc* const inputDesc[],
                                const aclDataBuffer* const inputs[], int numOutputs,
                                const aclTensorDesc* const outputDesc[], aclDataBuffer* const outputs[],
                                const aclopAttr* attr, aclopEngineType engineType, aclopCompileType compileFlag,
                                const char* opPath, aclrtStream stream) {
  (void)engineType;
  return compile_and_execute(__func__, opType, numInputs, inputDesc, inputs, numOutputs, outputDesc, outputs, attr,
                             compileFlag, opPath, stream, false);
}

aclError aclopCompileAndExecuteV2(const char* opType, int numInputs, aclTensorDesc* inputDesc[],
                                  aclDataBuffer* inputs[], int numOutputs, aclTensorDesc* outputDesc[],
                                  aclDataBuffer* outputs[], aclopAttr* attr, aclopEngineType engineType,
                                  aclopCompileType compileFlag, const char* opPath, aclrtStream stream) {
  (void)engineType;
  return compile_and_execute(__func__, opType, numInputs, inputDesc, inputs, numOutputs, outputDesc, outputs, attr,
                             compileFlag, opPath, stream, true);
}

aclError ascendsimGetOpCacheStats(ascendsimOpCacheStats* stats) {
  ASCENDSIM_CHECK_NOT_NULL(stats);
  const CacheStats s = cache_stats();
  stats->hits = s.hits;
  stats->misses = s.misses;
  stats->entries = s.entries;
  stats->registered = s.registered;
  return ACL_SUCCESS;
}

}  // extern "C"
