// The model manager (GE's ModelManager): loads model images into LoadedModels and registers them, binds the
// users' datasets to a loaded model's plan for one execution, runs it (on the caller's thread or as one task
// of a stream) and writes gear values. csrc/api/acl_mdl_exec.cpp checks the C arguments and calls it.
//
// Execution is sink mode: an asynchronous execution enqueues ONE task on the user's stream that runs every
// node of the selected plan (the "device" runs the model; the host enqueues once). A synchronous one runs the
// same plan on the calling thread and returns when it is done, as the real runtime runs a synchronous
// execution on the model's own stream and waits for it. The user's buffers are bound at the call (zero copy):
// the kernels read the input buffers and write the output buffers directly, so an async caller must keep them
// alive and unchanged until the stream reaches the task, as on the device. (An input shorter than the model's,
// which GE tolerates by up to 64 bytes, is read from a copy when its allocation ends early: model_buffers.h.)
#include "model/model_manager.h"

#include <algorithm>
#include <cstdio>
#include <tuple>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "core/error.h"
#include "core/fault_injection.h"
#include "model/dataset.h"
#include "model/loaded_model.h"
#include "model/model_buffers.h"
#include "model/model_registry.h"
#include "prof/profiler.h"
#include "runtime/context.h"
#include "runtime/device.h"
#include "runtime/runtime.h"
#include "runtime/stream.h"

namespace ascendsim::model {
namespace {

// The checked request of one execution: the model, the plan and the users' buffer addresses.
struct ExecRequest {
  std::shared_ptr<LoadedModel> model;
  size_t plan = 0;
  std::vector<const void*> inputs;
  std::vector<void*> outputs;
  ExecOptions options;
  bool input_descs = false;  // the input dataset holds tensor descriptions (see reset_output_descs)
  std::vector<ShortInput> short_inputs;  // read from a copy: their allocations end early (model/model_buffers.h)
  std::vector<uint8_t> staging;          // those copies, made when the execution runs
  // A dynamic-shape model (v2): each input's real dims, each output buffer's size, the output dataset that
  // receives the outputs' dims, and the stream whose allocator pool the execution uses.
  std::vector<std::vector<int64_t>> input_dims;
  std::vector<size_t> output_sizes;
  const aclmdlDataset* output_dataset = nullptr;
  std::vector<aclDataBuffer*> output_buffers;
  uintptr_t stream = 0;
  bool sync = false;  // aclmdlExecute(V2): a NULL output buffer of size 0 is allocated by the runtime
};

// A v2 execution, then the outputs' real dims into the output dataset's descriptions.
aclError run_hybrid(ExecRequest& req, const char* api) {
  std::vector<std::vector<int64_t>> dims;
  std::vector<size_t> allocated;
  const aclError ret = req.model->hybrid()->execute(req.input_dims, req.inputs.data(), req.outputs.data(),
                                                    req.output_sizes.data(), req.stream, &dims, &allocated, api);
  if (ret != ACL_SUCCESS) return ret;
  for (size_t o = 0; o < allocated.size(); ++o)  // the user frees it and resets the buffer (CANN's rule)
    if (allocated[o] != 0) aclUpdateDataBuffer(req.output_buffers[o], req.outputs[o], allocated[o]);
  const ModelDef& def = *req.model->def();
  std::vector<OutputDesc> outputs;
  for (size_t o = 0; o < dims.size(); ++o) outputs.push_back({dims[o], def.outputs[o].dtype, def.outputs[o].format});
  set_output_descs(req.output_dataset, outputs, api);
  return ACL_SUCCESS;
}

// Runs the checked request (on the caller's thread or as the stream's task).
aclError run(ExecRequest& req, const char* api) {
  if (req.model->hybrid() != nullptr) return run_hybrid(req, api);
  if (!req.short_inputs.empty()) stage_short_inputs(req.short_inputs, &req.staging, req.inputs.data());
  return req.model->execute(req.plan, req.inputs.data(), req.outputs.data(), req.options, api);
}


constexpr size_t kNoIndex = SIZE_MAX;

aclError buffer_of(const aclDataBuffer* buffer, void** addr, size_t* size) {
  if (buffer == nullptr) return ACL_ERROR_INVALID_PARAM;
  *addr = aclGetDataBufferAddr(buffer);
  *size = aclGetDataBufferSizeV2(buffer);
  return ACL_SUCCESS;
}

aclError buffer_of(const aclmdlDataset* dataset, size_t i, void** addr, size_t* size) {
  std::vector<aclDataBuffer*> buffers;
  if (!dataset_buffers(dataset, &buffers) || i >= buffers.size()) return ACL_ERROR_INVALID_PARAM;
  return buffer_of(buffers[i], addr, size);
}

std::string dims_string(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

// The real dims of dynamic-shape input `i`: its dataset description's (aclmdlSetDatasetTensorDesc), or the
// model's when they are static; checked against the model's rank, static dims and ranges.
aclError hybrid_input_dims(const ModelDef& def, const aclmdlDataset* input, size_t i, const char* api,
                           std::vector<int64_t>* dims) {
  const IoDesc& io = def.inputs[i];
  const bool any_rank = io.dims.size() == 1 && io.dims[0] == -2;
  if (!dataset_desc_dims(input, i, dims)) {
    if (any_rank || std::any_of(io.dims.begin(), io.dims.end(), [](int64_t d) { return d < 0; }))
      return fail(ACL_ERROR_GE_PARAM_INVALID, "%s: model '%s' input %zu ('%s') has dynamic dims %s: set its real dims "
                  "with aclmdlSetDatasetTensorDesc before executing", api, def.name.c_str(), i, io.name.c_str(),
                  dims_string(io.dims).c_str());
    *dims = io.dims;
  }
  if (!any_rank && dims->size() != io.dims.size())
    return fail(ACL_ERROR_GE_PARAM_INVALID, "%s: model '%s' input %zu ('%s'): dims %s have rank %zu; the model's input "
                "%s has rank %zu", api, def.name.c_str(), i, io.name.c_str(), dims_string(*dims).c_str(), dims->size(),
                dims_string(io.dims).c_str(), io.dims.size());
  if (dims->size() > 8)
    return fail(ACL_ERROR_GE_PARAM_INVALID, "%s: model '%s' input %zu ('%s'): rank %zu is above 8", api,
                def.name.c_str(), i, io.name.c_str(), dims->size());
  for (size_t d = 0; d < dims->size(); ++d) {
    const int64_t v = (*dims)[d];
    int64_t low = 0, high = -1;
    if (!any_rank && io.dims[d] >= 0) low = high = io.dims[d];
    if (!any_rank && d < io.shape_range.size() && io.dims[d] < 0)
      std::tie(low, high) = io.shape_range[d];
    if (v < low || (high >= 0 && v > high) || v < 0) {
      const std::string allowed = low == high ? std::to_string(low)
                                  : "[" + std::to_string(low) + ", " + (high < 0 ? std::string("unbounded") : std::to_string(high)) + "]";
      return fail(ACL_ERROR_GE_PARAM_INVALID, "%s: model '%s' input %zu ('%s'): dim %zu is %lld, outside the model's "
                  "range %s (dims %s)", api, def.name.c_str(), i, io.name.c_str(), d, static_cast<long long>(v),
                  allowed.c_str(), dims_string(*dims).c_str());
    }
  }
  return ACL_SUCCESS;
}

// The checks of a dynamic-shape execution: real input dims and buffers large enough for them; outputs are
// checked against their real size when the execution has inferred it.
aclError prepare_hybrid(const ModelDef& def, const aclmdlDataset* input, const aclmdlDataset* output,
                        const std::vector<size_t>& in_sizes, const std::vector<aclDataBuffer*>& out_buffers,
                        Device* device, const char* api, ExecRequest* req) {
  req->input_dims.resize(def.inputs.size());
  for (size_t i = 0; i < def.inputs.size(); ++i) {
    if (aclError ret = hybrid_input_dims(def, input, i, api, &req->input_dims[i])) return ret;
    uint64_t needed = aclDataTypeSize(def.inputs[i].dtype);
    for (int64_t d : req->input_dims[i])
      if (__builtin_mul_overflow(needed, static_cast<uint64_t>(d), &needed))
        return fail(ACL_ERROR_GE_PARAM_INVALID, "%s: model '%s' input %zu ('%s'): dims %s hold more bytes than a tensor "
                    "can", api, def.name.c_str(), i, def.inputs[i].name.c_str(), dims_string(req->input_dims[i]).c_str());
    if (aclError ret = check_buffer(device, "input", i, req->inputs[i], in_sizes[i], needed, api)) return ret;
  }
  req->output_sizes.resize(out_buffers.size());
  for (size_t o = 0; o < out_buffers.size(); ++o) {
    void* addr = nullptr;
    if (buffer_of(out_buffers[o], &addr, &req->output_sizes[o]) != ACL_SUCCESS)
      return fail(ACL_ERROR_GE_PARAM_INVALID, "%s: output %zu: the dataset holds no valid data buffer", api, o);
    req->outputs[o] = addr;
    if (addr == nullptr && req->output_sizes[o] == 0) {  // CANN: the runtime allocates it (synchronous only)
      if (req->sync) continue;
      return fail(ACL_ERROR_GE_PARAM_INVALID, "%s: output %zu ('%s'): a NULL buffer of size 0 (the runtime allocates "
                  "the output) is supported by aclmdlExecute and aclmdlExecuteV2 only", api, o,
                  def.outputs[o].name.c_str());
    }
    if (aclError ret = check_buffer(device, "output", o, addr, req->output_sizes[o], 0, api)) return ret;
  }
  req->output_buffers = out_buffers;
  req->output_dataset = output;
  req->stream = 0;  // an asynchronous execution sets its stream after this
  return ACL_SUCCESS;
}

// What an exec config asks of one execution; its work memory is checked against the plan that runs.
aclError apply_exec_config(const ExecConfig* config, const char* api, ExecRequest* req) {
  req->options = ExecOptions{};
  if (config == nullptr) return ACL_SUCCESS;
  req->options.event_timeout_ms = config->event_sync_timeout;
  if (config->work == nullptr) return ACL_SUCCESS;
  if (aclError ret = check_buffer(req->model->device(), "work memory (ACL_MDL_WORK_ADDR_PTR, "
                                  "ACL_MDL_WORK_SIZET)", kNoIndex, config->work, config->work_size,
                                  req->model->plan(req->plan).def->feature_map_size, api))
    return ret;
  req->options.work = config->work;
  return ACL_SUCCESS;
}

aclError prepare(uint32_t model_id, const aclmdlDataset* input, const aclmdlDataset* output, const char* api,
                 ExecRequest* req) {
  req->model = find_loaded_model(model_id);
  if (!req->model)
    return fail(ACL_ERROR_GE_EXEC_MODEL_ID_INVALID, "%s: model id %u is not loaded", api, model_id);
  if (input == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'input' is NULL", api);
  if (output == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'output' is NULL", api);
  LoadedModel& model = *req->model;
  const ModelDef& def = *model.def();
  // Per-thread scratch: after the first call on a thread, checking a request allocates nothing.
  thread_local std::vector<aclDataBuffer*> in_buffers, out_buffers;
  thread_local std::vector<size_t> in_sizes;
  if (!dataset_buffers(input, &in_buffers, &req->input_descs))
    return fail(ACL_ERROR_INVALID_PARAM, "%s: input dataset %p is not live (destroyed or never created)", api,
                static_cast<const void*>(input));
  if (!dataset_buffers(output, &out_buffers))
    return fail(ACL_ERROR_INVALID_PARAM, "%s: output dataset %p is not live (destroyed or never created)", api,
                static_cast<const void*>(output));
  const size_t n_in = in_buffers.size();
  const size_t n_out = out_buffers.size();
  if (n_in != def.inputs.size())
    return fail(ACL_ERROR_GE_PARAM_INVALID, "%s: model '%s' has %zu inputs, the input dataset has %zu buffers", api,
                def.name.c_str(), def.inputs.size(), n_in);
  if (n_out != def.outputs.size())
    return fail(ACL_ERROR_GE_PARAM_INVALID, "%s: model '%s' has %zu outputs, the output dataset has %zu buffers", api,
                def.name.c_str(), def.outputs.size(), n_out);
  req->inputs.resize(n_in);
  req->outputs.resize(n_out);
  in_sizes.resize(n_in);
  for (size_t i = 0; i < n_in; ++i) {
    void* addr = nullptr;
    if (buffer_of(in_buffers[i], &addr, &in_sizes[i]) != ACL_SUCCESS)
      return fail(ACL_ERROR_GE_PARAM_INVALID, "%s: input %zu: the dataset holds no valid data buffer", api, i);
    req->inputs[i] = addr;
  }
  if (model.hybrid() != nullptr)
    return prepare_hybrid(def, input, output, in_sizes, out_buffers, model.device(), api, req);
  if (def.dynamic_input_index != kNone) {
    const size_t g = def.dynamic_input_index;
    if (aclError ret = check_buffer(model.device(), "input", g, req->inputs[g], in_sizes[g], def.inputs[g].size, api))
      return ret;
  }
  if (aclError ret = model.select_plan(def.dynamic_input_index == kNone ? nullptr : req->inputs[def.dynamic_input_index],
                                       def.dynamic_input_index == kNone ? 0 : in_sizes[def.dynamic_input_index], api,
                                       &req->plan))
    return ret;
  const PlanRuntime& plan = model.plan(req->plan);
  req->short_inputs.clear();
  for (size_t i = 0; i < n_in; ++i) {
    if (i == def.dynamic_input_index) continue;
    if (aclError ret = check_input(model.device(), def.name.c_str(), i, req->inputs[i], in_sizes[i], plan.input_sizes[i],
                                   def.dynamic_type != 0, api, &req->short_inputs))
      return ret;
  }
  for (size_t i = 0; i < n_out; ++i) {
    void* addr = nullptr;
    size_t size = 0;
    if (buffer_of(out_buffers[i], &addr, &size) != ACL_SUCCESS)
      return fail(ACL_ERROR_GE_PARAM_INVALID, "%s: output %zu: the dataset holds no valid data buffer", api, i);
    if (aclError ret = check_buffer(model.device(), "output", i, addr, size, plan.output_sizes[i], api)) return ret;
    req->outputs[i] = addr;
  }
  return ACL_SUCCESS;
}

// A model_execute rule chose this execution to fail: the model does not run, its outputs are left as they were.
aclError report_execute_fault(const fault::Hit& hit, uint32_t model_id, const char* api) {
  char what[64];
  std::snprintf(what, sizeof what, "model %u failed on the device", model_id);
  return fault::report(hit, api, what);
}

}  // namespace

// Parses, validates and loads a model image; registers it and writes its id.
aclError load_model(const uint8_t* data, size_t size, uint32_t* model_id, const UserMemory* user, const char* api) {
  if (aclError ret = require_initialized(api)) return ret;
  std::shared_ptr<Context> context;
  if (aclError ret = require_current_context(api, &context)) return ret;
  auto def = std::make_shared<ModelDef>();
  if (aclError ret = parse_om(data, size, Runtime::instance().soc_name(), def.get())) {
    add_error_context("%s: the model could not be loaded", api);
    return ret;
  }
  if (user != nullptr) {
    // The model runs in exactly the memory the user gives (null: the runtime allocates that part).
    uint64_t work_size = 0;
    for (const PlanDef& plan : def->plans) work_size = std::max(work_size, plan.feature_map_size);
    struct Part {
      const char* name;
      void* ptr;
      size_t size;
      uint64_t needed;
    } parts[] = {{"work", user->work, user->work_size, work_size}, {"weight", user->weight, user->weight_size,
                                                                    def->weight_size}};
    for (const Part& part : parts) {
      if (part.ptr == nullptr) continue;
      if (part.size < part.needed)
        return fail(ACL_ERROR_GE_PARAM_INVALID, "%s: %sSize %zu is smaller than the %llu bytes model '%s' needs "
                    "(aclmdlQuerySize)", api, part.name, part.size, static_cast<unsigned long long>(part.needed),
                    def->name.c_str());
      const std::string label = std::string(part.name) + "Ptr";
      Allocation alloc{};
      if (aclError ret = check_device_buffer(context->device(), label.c_str(), part.ptr, part.size, part.size,
                                             ACL_ERROR_GE_EXEC_MODEL_ADDR_INVALID, api, &alloc))
        return ret;
    }
  }
  std::shared_ptr<LoadedModel> model;
  if (aclError ret = LoadedModel::load(std::move(def), context->device(), user, api, &model)) return ret;
  *model_id = register_loaded_model(std::move(model), api);
  return ACL_SUCCESS;
}


aclError execute_sync(uint32_t model_id, const aclmdlDataset* input, aclmdlDataset* output,
                      const ExecConfig* config, const char* api) {
  thread_local ExecRequest req;  // reused: its vectors keep their capacity
  req.sync = true;
  aclError ret = prepare(model_id, input, output, api, &req);
  if (ret == ACL_SUCCESS && req.model->hybrid() == nullptr) ret = apply_exec_config(config, api, &req);
  if (ret == ACL_SUCCESS)
    if (const fault::Hit hit = fault::check(fault::Site::kModelExecute)) ret = report_execute_fault(hit, model_id, api);
  if (ret == ACL_SUCCESS) ret = run(req, api);
  const bool v1 = req.model && req.model->hybrid() == nullptr;
  req.model.reset();  // do not keep an unloaded model alive
  if (ret == ACL_SUCCESS && req.input_descs && v1) reset_output_descs(output, api);
  return ret;
}

aclError execute_async(uint32_t model_id, const aclmdlDataset* input, aclmdlDataset* output, aclrtStream stream_handle,
                       const ExecConfig* config, const char* api) {
  std::shared_ptr<Stream> stream;
  if (aclError ret = resolve_stream(stream_handle, api, &stream)) return ret;
  auto req = std::make_shared<ExecRequest>();
  req->sync = std::strcmp(api, "aclmdlExecuteV2") == 0;  // it waits for the stream before returning
  if (aclError ret = prepare(model_id, input, output, api, req.get())) return ret;
  if (stream->device_id() != req->model->device()->id())
    return fail(ACL_ERROR_GE_PARAM_INVALID, "%s: model %u was loaded on device %d, the stream belongs to device %d",
                api, model_id, req->model->device()->id(), stream->device_id());
  const bool v1 = req->model->hybrid() == nullptr;
  if (v1) {
    if (aclError ret = apply_exec_config(config, api, req.get())) return ret;
  }
  req->stream = reinterpret_cast<uintptr_t>(stream.get());
  // One task: the whole model (sink mode). An injected failure is the task's, reported by the synchronize.
  const fault::Hit injected = fault::check(fault::Site::kModelExecute);
  const aclError ret = stream->enqueue(
      [req, api, injected, model_id]() {
        if (injected) return report_execute_fault(injected, model_id, api);
        return run(*req, api);
      },
      nullptr, prof::TaskLabel{"ModelExecute", {"model", model_id}, {}});
  if (ret == ACL_SUCCESS && req->input_descs && v1) reset_output_descs(output, api);  // at the call, as CANN
  return ret;
}

// The dataset buffer that receives gear values, checked: the model is a gear model of `type`, `index` is
// its ascend_mbatch_shape_data input, and the buffer holds `count` values of the input's dtype.
aclError gear_buffer(uint32_t model_id, aclmdlDataset* dataset, size_t index, uint32_t type, const char* type_name,
                     const char* api, std::shared_ptr<LoadedModel>* model, void** addr, size_t* item) {
  *model = find_loaded_model(model_id);
  if (!*model) return fail(ACL_ERROR_GE_EXEC_MODEL_ID_INVALID, "%s: model id %u is not loaded", api, model_id);
  if (dataset == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'dataset' is NULL", api);
  const ModelDef& def = *(*model)->def();
  if (def.dynamic_type != type)
    return fail(ACL_ERROR_GE_PARAM_INVALID, "%s: model '%s' is not a %s model (its dynamic type is %u)", api,
                def.name.c_str(), type_name, def.dynamic_type);
  if (index != def.dynamic_input_index)
    return fail(ACL_ERROR_GE_PARAM_INVALID, "%s: index %zu is not the model's %s input (index %u)", api, index,
                ACL_DYNAMIC_TENSOR_NAME, def.dynamic_input_index);
  size_t size = 0;
  if (buffer_of(dataset, index, addr, &size) != ACL_SUCCESS || *addr == nullptr)
    return fail(ACL_ERROR_GE_PARAM_INVALID, "%s: the dataset has no data buffer at index %zu", api, index);
  const IoDesc& io = def.inputs[index];
  *item = io.dtype == ACL_INT64 || io.dtype == ACL_UINT64 ? 8 : 4;
  const size_t needed = *item * def.gear_dim_count;
  if (size < needed)
    return fail(ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID, "%s: input %zu (%s): model expects %zu bytes, given %zu",
                api, index, ACL_DYNAMIC_TENSOR_NAME, needed, size);
  return ACL_SUCCESS;
}

// Writes the gear after checking it is one of the model's gears.
aclError write_gear(const LoadedModel& model, void* addr, size_t item, const std::vector<int64_t>& gear,
                    const char* what, const char* api) {
  bool known = false;
  for (const std::vector<int64_t>& g : model.def()->gears) known = known || g == gear;
  if (!known) {
    std::string list, mine;
    for (int64_t v : gear) mine += (mine.empty() ? "" : ",") + std::to_string(v);
    for (const std::vector<int64_t>& g : model.def()->gears) {
      std::string one;
      for (int64_t v : g) one += (one.empty() ? "" : ",") + std::to_string(v);
      list += (list.empty() ? "[" : " [") + one + "]";
    }
    return fail(ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, "%s: %s [%s] is not one of the model's gears: %s", api, what,
                mine.c_str(), list.c_str());
  }
  auto* out = static_cast<uint8_t*>(addr);
  for (size_t i = 0; i < gear.size(); ++i) {
    if (item == 8) {
      std::memcpy(out + 8 * i, &gear[i], 8);
    } else {
      const int32_t v = static_cast<int32_t>(gear[i]);
      std::memcpy(out + 4 * i, &v, 4);
    }
  }
  return ACL_SUCCESS;
}

}  // namespace ascendsim::model
