// Reading, checking and launching an aclop* call (see op_runner.h).
#include "op/op_runner.h"

#include <algorithm>
#include <cstring>
#include <variant>

#include "core/error.h"
#include "kernels/kernel_util.h"
#include "op/op_attr.h"
#include "op/op_cache.h"
#include "prof/profiler.h"
#include "runtime/allocation_check.h"
#include "runtime/runtime.h"
#include "runtime/stream.h"
#include "runtime/tensor_desc.h"

namespace ascendsim::op {
namespace {

aclError read_desc(const char* api, const char* arg, int index, const aclTensorDesc* handle, OpTensor* t) {
  if (handle == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: %s[%d] is NULL", api, arg, index);
  auto desc = find_tensor_desc(handle, api, arg);
  if (!desc) return ACL_ERROR_INVALID_PARAM;
  std::lock_guard<std::mutex> lock(desc->mutex);
  const TensorDescData& d = desc->data;
  // A description holds any int it was given (CANN); one its enum cannot hold is refused here, where the
  // description is used, before it is converted to the enum (core/enum_value.h).
  if (!data_type_in_range(d.dtype))
    return fail(ACL_ERROR_INVALID_PARAM, "%s: %s[%d] has data type %d, which is not an aclDataType", api, arg, index,
                d.dtype);
  for (const int32_t format : {d.format, d.storage_format})
    if (!format_in_range(format))
      return fail(ACL_ERROR_INVALID_PARAM, "%s: %s[%d] has format %d, which is not an aclFormat", api, arg, index,
                  format);
  if (!mem_type_in_range(d.placement))
    return fail(ACL_ERROR_INVALID_PARAM, "%s: %s[%d] has placement %d, which is not an aclMemType", api, arg, index,
                d.placement);
  t->absent = d.dtype == ACL_DT_UNDEFINED && d.format == ACL_FORMAT_UNDEFINED;
  t->dtype = static_cast<aclDataType>(d.dtype);
  t->format = static_cast<aclFormat>(d.format);
  t->storage_format = static_cast<aclFormat>(d.storage_format);
  t->dims = d.dims;
  t->ranges = d.shape_range;
  t->values = d.const_data;
  t->is_const = d.const_data != nullptr;
  t->placement = static_cast<aclMemType>(d.placement);
  return ACL_SUCCESS;
}

aclError buffer_of(const char* api, const char* arg, int index, const aclDataBuffer* buffer, void** addr,
                   size_t* size) {
  if (buffer == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: %s[%d] is NULL", api, arg, index);
  *addr = aclGetDataBufferAddr(buffer);
  *size = aclGetDataBufferSizeV2(buffer);
  return ACL_SUCCESS;
}

// One buffer: big enough, and device memory inside one allocation (host memory for host-placed inputs).
aclError check_buffer(const char* api, const char* arg, size_t index, const void* addr, size_t size, size_t needed,
                      bool host) {
  if (needed == 0) return ACL_SUCCESS;
  if (addr == nullptr)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: %s[%zu] has no data (a NULL address, or a destroyed buffer)", api, arg,
                index);
  if (size < needed)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: %s[%zu] holds %zu bytes, the tensor needs %zu", api, arg, index, size,
                needed);
  MemoryRegion region;
  if (aclError ret = check_region(addr, needed, ACL_ERROR_RT_PARAM_INVALID, api, arg, &region)) return ret;
  if (!host && !region.is_device())
    return fail(ACL_ERROR_INVALID_PARAM, "%s: %s[%zu] (%p) is not device memory: allocate it with aclrtMalloc", api,
                arg, index, addr);
  return ACL_SUCCESS;
}

template <typename Ptr>
aclError read_side(const char* api, const char* arg, int num, const aclDataBuffer* const* buffers,
                   std::vector<Ptr>* addrs, std::vector<size_t>* sizes) {
  if (num > 0 && buffers == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument '%s' is NULL", api, arg);
  addrs->assign(static_cast<size_t>(num), nullptr);
  sizes->assign(static_cast<size_t>(num), 0);
  for (int i = 0; i < num; ++i) {
    void* addr = nullptr;
    if (aclError ret = buffer_of(api, arg, i, buffers[i], &addr, &(*sizes)[static_cast<size_t>(i)])) return ret;
    (*addrs)[static_cast<size_t>(i)] = addr;
  }
  return ACL_SUCCESS;
}

}  // namespace

aclError read_inputs(const aclDataBuffer* const* inputs, PreparedCall* p) {
  OpCall& call = p->call;
  if (aclError ret = read_side(call.api, "inputs", static_cast<int>(call.inputs.size()), inputs, &p->inputs,
                               &p->input_sizes))
    return ret;
  // Host-placed inputs are constants of the call (GE's SetHostMemToConst): their values join the signature.
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    OpTensor& t = call.inputs[i];
    size_t count = 0;
    if (t.absent || t.values || t.placement != ACL_MEMTYPE_HOST || p->inputs[i] == nullptr ||
        !element_count(t.dims, &count))
      continue;
    const size_t bytes = std::min(p->input_sizes[i], count * aclDataTypeSize(t.dtype));
    const auto* data = static_cast<const uint8_t*>(p->inputs[i]);
    t.values = std::make_shared<const std::vector<uint8_t>>(data, data + bytes);
  }
  return ACL_SUCCESS;
}

aclError read_outputs(const aclDataBuffer* const* outputs, PreparedCall* p) {
  return read_side(p->call.api, "outputs", static_cast<int>(p->call.outputs.size()), outputs, &p->outputs,
                   &p->output_sizes);
}

aclError read_call(const char* api, const char* op_type, int num_inputs, const aclTensorDesc* const* input_desc,
                   int num_outputs, const aclTensorDesc* const* output_desc, const aclopAttr* attr,
                   PreparedCall* out) {
  if (op_type == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'opType' is NULL", api);
  if (num_inputs < 0) return fail(ACL_ERROR_INVALID_PARAM, "%s: numInputs %d is negative", api, num_inputs);
  if (num_outputs < 0) return fail(ACL_ERROR_INVALID_PARAM, "%s: numOutputs %d is negative", api, num_outputs);
  // Bounded before the vectors below are sized (numInputs = INT_MAX threw bad_alloc out of the C API).
  if (num_inputs > kMaxOpTensors)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: numInputs %d is larger than %d, the most an operator call takes", api,
                num_inputs, kMaxOpTensors);
  if (num_outputs > kMaxOpTensors)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: numOutputs %d is larger than %d, the most an operator call takes", api,
                num_outputs, kMaxOpTensors);
  if (num_inputs > 0 && input_desc == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'inputDesc' is NULL", api);
  if (num_outputs > 0 && output_desc == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'outputDesc' is NULL", api);
  OpCall& call = out->call;
  call = OpCall{};
  call.api = api;
  call.type = op_type;
  call.inputs.resize(static_cast<size_t>(num_inputs));
  call.outputs.resize(static_cast<size_t>(num_outputs));
  for (int i = 0; i < num_inputs; ++i)
    if (aclError ret = read_desc(api, "inputDesc", i, input_desc[i], &call.inputs[static_cast<size_t>(i)])) return ret;
  for (int i = 0; i < num_outputs; ++i)
    if (aclError ret = read_desc(api, "outputDesc", i, output_desc[i], &call.outputs[static_cast<size_t>(i)])) return ret;
  if (attr != nullptr) {
    auto live = find_op_attr(attr);
    if (!live) return fail(ACL_ERROR_INVALID_PARAM, "%s: attr %p is not live (destroyed or never created)", api,
                           static_cast<const void*>(attr));
    call.attrs = live->kernel_attrs();
    for (const auto& [name, value] : live->values()) {
      if (std::holds_alternative<bool>(value) || std::holds_alternative<std::vector<bool>>(value))
        call.attr_types[name] = 1;
      else if (std::holds_alternative<DataTypeValue>(value) ||
               std::holds_alternative<std::vector<DataTypeValue>>(value))
        call.attr_types[name] = 2;
    }
  }
  return ACL_SUCCESS;
}

aclError require_device_placement(const OpCall& call, const char* what) {
  for (size_t i = 0; i < call.inputs.size() + call.outputs.size(); ++i) {
    const bool input = i < call.inputs.size();
    const OpTensor& t = input ? call.inputs[i] : call.outputs[i - call.inputs.size()];
    if (t.placement != ACL_MEMTYPE_DEVICE)
      return fail(ACL_ERROR_API_NOT_SUPPORT, "%s: %s[%zu] is placed in host memory: %s need device tensors", call.api,
                  input ? "inputDesc" : "outputDesc", input ? i : i - call.inputs.size(), what);
  }
  return ACL_SUCCESS;
}

bool all_outputs_empty(const OpCall& call) {
  if (call.outputs.empty()) return false;
  for (const OpTensor& t : call.outputs) {
    bool empty = false;
    for (int64_t d : t.dims) empty = empty || d == 0;
    if (!empty) return false;
  }
  return true;
}

aclError require_static(const OpCall& call) {
  for (const auto* side : {&call.inputs, &call.outputs})
    for (const OpTensor& t : *side)
      if (!t.absent && !t.is_static())
        return fail(ACL_ERROR_INVALID_PARAM, "%s: %s: TensorDesc must be static when executing, %s %s has the "
                    "dynamic shape %s", call.api, call.type.c_str(), side == &call.inputs ? "input" : "output",
                    tensor_text(t).c_str(), kernels::dims_str(t.dims).c_str());
  return ACL_SUCCESS;
}

aclError find_compiled(const OpCall& call, bool compile, std::shared_ptr<CompiledOp>* out) {
  const CannOp* op = find_cann_op(call.type);
  if (compile) {
    if (op == nullptr)
      return fail(ACL_ERROR_OP_NOT_FOUND, "%s: op type '%s' is not supported by ascendsim (docs/single-op.md lists "
                  "the CANN operators it runs)", call.api, call.type.c_str());
    register_op(call, call.api);
  } else if (op == nullptr || !is_registered(call)) {
    // GE looks in the static map, then the dynamic one, which refuses dynamic descriptions at execution.
    if (aclError ret = require_static(call)) return ret;
    return fail(ACL_ERROR_OP_NOT_FOUND, "%s: MatchOpModel opName = %s fail from static map or dynamic map. Please make "
                "sure the op executed and the op compiled is matched (op type, inputs and outputs number, format, "
                "datatype, attr, dim range): load its single-op model (aclopSetModelDir / aclopLoad) or compile it "
                "(aclopCompile)", call.api, call.type.c_str());
  } else if (aclError ret = require_static(call)) {
    return ret;
  }
  return compiled_op(*op, call, out);
}

aclError check_outputs(const OpCall& call, const Lowering& l, bool dims) {
  if (call.outputs.size() != l.out_dims.size())
    return fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "%s: %s has %zu outputs, %zu given", call.api, call.type.c_str(),
                l.out_dims.size(), call.outputs.size());
  for (size_t i = 0; i < call.outputs.size(); ++i) {
    const OpTensor& t = call.outputs[i];
    if (t.dtype != l.out_dtypes[i])
      return fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "%s: %s output %zu is %s, the operator produces %s", call.api,
                  call.type.c_str(), i, dtype_text(t.dtype), dtype_text(l.out_dtypes[i]));
    if (dims && t.dims != l.out_dims[i])
      return fail(ACL_ERROR_OP_OUTPUT_NOT_MATCH, "%s: %s output %zu has shape %s, the operator produces %s", call.api,
                  call.type.c_str(), i, kernels::dims_str(t.dims).c_str(), kernels::dims_str(l.out_dims[i]).c_str());
  }
  return ACL_SUCCESS;
}

aclError launch(PreparedCall& p, const std::shared_ptr<CompiledOp>& op, aclrtStream stream,
                aclTensorDesc* const* update_dims) {
  const OpCall& call = p.call;
  const Lowering& l = op->lowering();
  if (aclError ret = check_outputs(call, l, update_dims == nullptr)) return ret;
  // Constant inputs (aclSetTensorConst) run from their host copy, which the task keeps alive.
  std::vector<std::shared_ptr<const std::vector<uint8_t>>> constants;
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    const OpTensor& t = call.inputs[i];
    if (t.is_const && t.values->size() >= op->input_bytes(i)) {
      p.inputs[i] = t.values->data();
      constants.push_back(t.values);
      continue;
    }
    const bool host = t.values != nullptr;
    if (aclError ret = check_buffer(call.api, "inputs", i, p.inputs[i], p.input_sizes[i], op->input_bytes(i), host))
      return ret;
  }
  for (size_t i = 0; i < p.outputs.size(); ++i)
    if (aclError ret = check_buffer(call.api, "outputs", i, p.outputs[i], p.output_sizes[i], op->output_bytes(i), false))
      return ret;
  std::shared_ptr<Stream> s;
  if (aclError ret = resolve_stream(stream, call.api, &s)) return ret;
  auto task = [op, inputs = p.inputs, outputs = p.outputs, constants = std::move(constants)]() {
    op->run(inputs.data(), outputs.data());
    return ACL_SUCCESS;
  };
  if (aclError ret = s->enqueue(std::move(task), nullptr, prof::TaskLabel{op->type_name(), {}, {}})) return ret;
  if (update_dims != nullptr) {
    for (size_t i = 0; i < call.outputs.size(); ++i) {
      auto desc = find_tensor_desc(update_dims[i], call.api, "outputDesc");
      if (!desc) continue;
      std::lock_guard<std::mutex> lock(desc->mutex);
      desc->data.dims = l.out_dims[i];
    }
  }
  return ACL_SUCCESS;
}

}  // namespace ascendsim::op
