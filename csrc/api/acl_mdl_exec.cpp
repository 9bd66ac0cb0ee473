// acl_mdl.h: loading (from file / memory, with user memory, with a config handle), executing (sync, async on a
// stream, V2 with an exec config), unloading, and the dynamic gear setters.
//
// Execution is sink mode: aclmdlExecuteAsync enqueues ONE task on the user's stream that runs every node of
// the selected plan (the "device" runs the model; the host enqueues once). aclmdlExecute runs the same plan
// on the calling thread and returns when it is done, as the real runtime runs a synchronous execution on the
// model's own stream and waits for it. The user's buffers are bound at the call (zero copy): the kernels
// read the input buffers and write the output buffers directly, so an async caller must keep them alive and
// unchanged until the stream reaches the task, as on the device. (An input shorter than the model's, which GE
// tolerates by up to 64 bytes, is read from a copy when its allocation ends early: api/model_buffers.h.)
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "api/model_buffers.h"
#include "api/sync_timeout.h"
#include "core/enum_value.h"
#include "core/error.h"
#include "core/fault_injection.h"
#include "model/dataset.h"
#include "model/loaded_model.h"
#include "model/model_desc.h"
#include "model/model_registry.h"
#include "runtime/context.h"
#include "runtime/device.h"
#include "prof/profiler.h"
#include "runtime/runtime.h"
#include "runtime/stream.h"

using namespace ascendsim;
using namespace ascendsim::model;

struct aclmdlConfigHandle {
  int32_t priority = 0;
  size_t load_type = 0;
  std::string path;  // copied when set, as GE does: the caller's string may be gone by the load
  bool has_path = false;
  const void* mem = nullptr;
  size_t mem_size = 0;
  void* weight = nullptr;
  size_t weight_size = 0;
  void* work = nullptr;
  size_t work_size = 0;
  bool has_load_type = false;
};

struct aclmdlExecConfigHandle {
  int32_t stream_sync_timeout = -1;
  int32_t event_sync_timeout = -1;
  void* work = nullptr;
  size_t work_size = 0;
};

namespace {

HandleRegistry<aclmdlConfigHandle>& config_handles() {
  static auto* r = new HandleRegistry<aclmdlConfigHandle>("model config handle");
  return *r;
}

HandleRegistry<aclmdlExecConfigHandle>& exec_config_handles() {
  static auto* r = new HandleRegistry<aclmdlExecConfigHandle>("exec config handle");
  return *r;
}

// The life cycle shared by the load and execute config handles: create, find (a dead handle is an error
// naming it), destroy, and the size check of a set-option value.
template <typename Handle>
Handle* create_handle(HandleRegistry<Handle>& registry, const char* api) {
  try {
    return static_cast<Handle*>(registry.add(std::make_shared<Handle>(), api));
  } catch (const std::bad_alloc&) {
    fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", api);
    return nullptr;
  }
}

template <typename Handle>
aclError find_handle(HandleRegistry<Handle>& registry, const Handle* handle, const char* what, const char* api,
                     std::shared_ptr<Handle>* out) {
  *out = registry.find(handle);
  if (*out) return ACL_SUCCESS;
  return fail(ACL_ERROR_INVALID_PARAM, "%s: %s %p is not live", api, what, static_cast<const void*>(handle));
}

template <typename Handle>
aclError destroy_handle(HandleRegistry<Handle>& registry, const Handle* handle, const char* what, const char* api) {
  if (handle == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'handle' is NULL", api);
  if (registry.remove(handle)) return ACL_SUCCESS;
  return fail(ACL_ERROR_INVALID_PARAM, "%s: %s %p is not live (destroyed twice or never created)", api, what,
              static_cast<const void*>(handle));
}

aclError check_value_size(int attr, size_t expected, size_t given, const char* api) {
  if (given == expected) return ACL_SUCCESS;
  return fail(ACL_ERROR_INVALID_PARAM, "%s: attribute %d takes %zu bytes, valueSize is %zu", api, attr, expected,
              given);
}

// Parses, validates and loads a model image; registers it and writes its id.
aclError load_image(const uint8_t* data, size_t size, uint32_t* model_id, const UserMemory* user, const char* api) {
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
    DeviceMemory& memory = context->device()->memory();
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
      Allocation alloc{};
      if (!memory.find(part.ptr, &alloc))
        return fail(ACL_ERROR_GE_EXEC_MODEL_ADDR_INVALID, "%s: %sPtr %p is not device memory of device %d: %s", api,
                    part.name, part.ptr, memory.device_id(), memory.describe(part.ptr).c_str());
      const size_t room = alloc.size - static_cast<size_t>(static_cast<uint8_t*>(part.ptr) - static_cast<uint8_t*>(alloc.base));
      if (room < part.size)
        return fail(ACL_ERROR_GE_EXEC_MODEL_ADDR_INVALID, "%s: %sPtr %p has only %zu bytes of device memory, "
                    "%sSize says %zu", api, part.name, part.ptr, room, part.name, part.size);
    }
  }
  std::shared_ptr<LoadedModel> model;
  if (aclError ret = LoadedModel::load(std::move(def), context->device(), user, api, &model)) return ret;
  *model_id = register_loaded_model(std::move(model), api);
  return ACL_SUCCESS;
}

aclError load_file(const char* path, uint32_t* model_id, const UserMemory* user, const char* api) {
  if (path == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'modelPath' is NULL", api);
  if (model_id == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'modelId' is NULL", api);
  std::vector<uint8_t> image;
  if (aclError ret = read_model_file(path, api, &image)) return ret;
  return load_image(image.data(), image.size(), model_id, user, api);
}

aclError load_mem(const void* model, size_t size, uint32_t* model_id, const UserMemory* user, const char* api) {
  if (model == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'model' is NULL", api);
  if (model_id == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'modelId' is NULL", api);
  if (size == 0) return fail(ACL_ERROR_INVALID_PARAM, "%s: modelSize is 0", api);
  return load_image(static_cast<const uint8_t*>(model), size, model_id, user, api);
}

// The checked request of one execution: the model, the plan and the users' buffer addresses.
struct Request {
  std::shared_ptr<LoadedModel> model;
  size_t plan = 0;
  std::vector<const void*> inputs;
  std::vector<void*> outputs;
  ExecOptions options;
  bool input_descs = false;  // the input dataset holds tensor descriptions (see reset_output_descs)
  std::vector<ShortInput> short_inputs;  // read from a copy: their allocations end early (api/model_buffers.h)
  std::vector<uint8_t> staging;          // those copies, made when the execution runs
};

// Runs the checked request (on the caller's thread or as the stream's task).
aclError run(Request& req, const char* api) {
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

// What an exec config asks of one execution; its work memory is checked against the plan that runs.
aclError apply_exec_config(const aclmdlExecConfigHandle* config, const char* api, Request* req) {
  req->options = ExecOptions{};
  if (config == nullptr) return ACL_SUCCESS;
  req->options.event_timeout_ms = config->event_sync_timeout;
  if (config->work == nullptr) return ACL_SUCCESS;
  if (aclError ret = check_buffer(req->model->device()->memory(), "work memory (ACL_MDL_WORK_ADDR_PTR, "
                                  "ACL_MDL_WORK_SIZET)", kNoIndex, config->work, config->work_size,
                                  req->model->plan(req->plan).def->feature_map_size, api))
    return ret;
  req->options.work = config->work;
  return ACL_SUCCESS;
}

aclError prepare(uint32_t model_id, const aclmdlDataset* input, const aclmdlDataset* output, const char* api,
                 Request* req) {
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
  DeviceMemory& memory = model.device()->memory();
  if (def.dynamic_input_index != kNone) {
    const size_t g = def.dynamic_input_index;
    if (aclError ret = check_buffer(memory, "input", g, req->inputs[g], in_sizes[g], def.inputs[g].size, api))
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
    if (aclError ret = check_input(memory, def.name.c_str(), i, req->inputs[i], in_sizes[i], plan.input_sizes[i],
                                   def.dynamic_type != 0, api, &req->short_inputs))
      return ret;
  }
  for (size_t i = 0; i < n_out; ++i) {
    void* addr = nullptr;
    size_t size = 0;
    if (buffer_of(out_buffers[i], &addr, &size) != ACL_SUCCESS)
      return fail(ACL_ERROR_GE_PARAM_INVALID, "%s: output %zu: the dataset holds no valid data buffer", api, i);
    if (aclError ret = check_buffer(memory, "output", i, addr, size, plan.output_sizes[i], api)) return ret;
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

aclError execute_sync(uint32_t model_id, const aclmdlDataset* input, aclmdlDataset* output,
                      const aclmdlExecConfigHandle* config, const char* api) {
  thread_local Request req;  // reused: its vectors keep their capacity
  aclError ret = prepare(model_id, input, output, api, &req);
  if (ret == ACL_SUCCESS) ret = apply_exec_config(config, api, &req);
  if (ret == ACL_SUCCESS)
    if (const fault::Hit hit = fault::check(fault::Site::kModelExecute)) ret = report_execute_fault(hit, model_id, api);
  if (ret == ACL_SUCCESS) ret = run(req, api);
  req.model.reset();  // do not keep an unloaded model alive
  if (ret == ACL_SUCCESS && req.input_descs) reset_output_descs(output, api);
  return ret;
}

aclError execute_async(uint32_t model_id, const aclmdlDataset* input, aclmdlDataset* output, aclrtStream stream_handle,
                       const aclmdlExecConfigHandle* config, const char* api) {
  std::shared_ptr<Stream> stream;
  if (aclError ret = resolve_stream(stream_handle, api, &stream)) return ret;
  auto req = std::make_shared<Request>();
  if (aclError ret = prepare(model_id, input, output, api, req.get())) return ret;
  if (stream->device_id() != req->model->device()->id())
    return fail(ACL_ERROR_GE_PARAM_INVALID, "%s: model %u was loaded on device %d, the stream belongs to device %d",
                api, model_id, req->model->device()->id(), stream->device_id());
  if (aclError ret = apply_exec_config(config, api, req.get())) return ret;
  // One task: the whole model (sink mode). An injected failure is the task's, reported by the synchronize.
  const fault::Hit injected = fault::check(fault::Site::kModelExecute);
  const aclError ret = stream->enqueue(
      [req, api, injected, model_id]() {
        if (injected) return report_execute_fault(injected, model_id, api);
        return run(*req, api);
      },
      nullptr, prof::TaskLabel{"ModelExecute", {"model", model_id}, {}});
  if (ret == ACL_SUCCESS && req->input_descs) reset_output_descs(output, api);  // at the call, as CANN
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

}  // namespace

aclError aclmdlLoadFromFile(const char* modelPath, uint32_t* modelId) {
  ASCENDSIM_PROFILE_API();
  return load_file(modelPath, modelId, nullptr, __func__);
}

aclError aclmdlLoadFromMem(const void* model, size_t modelSize, uint32_t* modelId) {
  ASCENDSIM_PROFILE_API();
  return load_mem(model, modelSize, modelId, nullptr, __func__);
}

aclError aclmdlLoadFromFileWithMem(const char* modelPath, uint32_t* modelId, void* workPtr, size_t workSize,
                                   void* weightPtr, size_t weightSize) {
  ASCENDSIM_PROFILE_API();
  const UserMemory user{workPtr, workSize, weightPtr, weightSize};
  return load_file(modelPath, modelId, &user, __func__);
}

aclError aclmdlLoadFromMemWithMem(const void* model, size_t modelSize, uint32_t* modelId, void* workPtr,
                                  size_t workSize, void* weightPtr, size_t weightSize) {
  ASCENDSIM_PROFILE_API();
  const UserMemory user{workPtr, workSize, weightPtr, weightSize};
  return load_mem(model, modelSize, modelId, &user, __func__);
}

aclError aclmdlUnload(uint32_t modelId) {
  ASCENDSIM_PROFILE_API();
  auto model = unregister_loaded_model(modelId);
  if (!model) return fail(ACL_ERROR_GE_EXEC_MODEL_ID_INVALID, "%s: model id %u is not loaded", __func__, modelId);
  // Memory is released when the last holder lets go: a queued aclmdlExecuteAsync keeps the model alive.
  return ACL_SUCCESS;
}

aclError aclmdlExecute(uint32_t modelId, const aclmdlDataset* input, aclmdlDataset* output) {
  ASCENDSIM_PROFILE_API();
  return execute_sync(modelId, input, output, nullptr, __func__);
}

aclError aclmdlExecuteAsync(uint32_t modelId, const aclmdlDataset* input, aclmdlDataset* output, aclrtStream stream) {
  ASCENDSIM_PROFILE_API();
  return execute_async(modelId, input, output, stream, nullptr, __func__);
}

aclError aclmdlExecuteV2(uint32_t modelId, const aclmdlDataset* input, aclmdlDataset* output, aclrtStream stream,
                         const aclmdlExecConfigHandle* handle) {
  ASCENDSIM_PROFILE_API();
  std::shared_ptr<aclmdlExecConfigHandle> config;
  if (handle != nullptr)
    if (aclError ret = find_handle(exec_config_handles(), handle, "exec config handle", __func__, &config)) return ret;
  if (stream == nullptr) return execute_sync(modelId, input, output, config.get(), __func__);
  // On a stream: enqueue, then wait for the stream with the configured timeout.
  if (aclError ret = execute_async(modelId, input, output, stream, config.get(), __func__)) return ret;
  const int32_t timeout = config ? config->stream_sync_timeout : -1;
  const aclError ret = synchronize_stream(stream, timeout, __func__);
  if (ret == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)
    return fail(ACL_ERROR_GE_MODEL_EXECUTE_TIMEOUT, "%s: model %u did not finish within %d ms", __func__, modelId,
                timeout);
  return ret;
}

aclError aclmdlExecuteAsyncV2(uint32_t modelId, const aclmdlDataset* input, aclmdlDataset* output, aclrtStream stream,
                              const aclmdlExecConfigHandle* handle) {
  ASCENDSIM_PROFILE_API();
  std::shared_ptr<aclmdlExecConfigHandle> config;
  if (handle != nullptr)
    if (aclError ret = find_handle(exec_config_handles(), handle, "exec config handle", __func__, &config)) return ret;
  return execute_async(modelId, input, output, stream, config.get(), __func__);
}

aclmdlExecConfigHandle* aclmdlCreateExecConfigHandle() {
  ASCENDSIM_PROFILE_API();
  return create_handle(exec_config_handles(), __func__);
}

aclError aclmdlDestroyExecConfigHandle(const aclmdlExecConfigHandle* handle) {
  ASCENDSIM_PROFILE_API();
  return destroy_handle(exec_config_handles(), handle, "exec config handle", __func__);
}

aclError aclmdlSetExecConfigOpt(aclmdlExecConfigHandle* handle, aclmdlExecConfigAttr attr, const void* attrValue,
                                size_t valueSize) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(handle);
  ASCENDSIM_CHECK_NOT_NULL(attrValue);
  std::shared_ptr<aclmdlExecConfigHandle> config;
  if (aclError ret = find_handle(exec_config_handles(), handle, "exec config handle", __func__, &config)) return ret;
  const int32_t which = enum_int(attr);  // any int from C: switched on as an int (core/enum_value.h)
  auto need = [&](size_t size) { return check_value_size(which, size, valueSize, __func__); };
  switch (which) {
    case ACL_MDL_STREAM_SYNC_TIMEOUT:
    case ACL_MDL_EVENT_SYNC_TIMEOUT: {
      if (aclError ret = need(sizeof(int32_t))) return ret;
      int32_t v;
      std::memcpy(&v, attrValue, sizeof v);
      if (v < -1 || v == 0)
        return fail(ACL_ERROR_INVALID_PARAM, "%s: timeout %d is invalid: -1 (wait forever) or > 0 ms", __func__, v);
      (which == ACL_MDL_STREAM_SYNC_TIMEOUT ? config->stream_sync_timeout : config->event_sync_timeout) = v;
      return ACL_SUCCESS;
    }
    case ACL_MDL_WORK_ADDR_PTR:
      if (aclError ret = need(sizeof(void*))) return ret;
      std::memcpy(&config->work, attrValue, sizeof(void*));
      return ACL_SUCCESS;
    case ACL_MDL_WORK_SIZET:
    case ACL_MDL_MPAIMID_SIZET:
    case ACL_MDL_AICQOS_SIZET:
    case ACL_MDL_AICOST_SIZET:
    case ACL_MDL_MEC_TIMETHR_SIZET:
      if (aclError ret = need(sizeof(size_t))) return ret;
      if (which == ACL_MDL_WORK_SIZET) std::memcpy(&config->work_size, attrValue, sizeof(size_t));
      return ACL_SUCCESS;  // QoS hints: accepted, no meaning on a CPU
    default:
      return fail(ACL_ERROR_INVALID_PARAM, "%s: attribute %d is not an aclmdlExecConfigAttr (0..%d)", __func__, which,
                  static_cast<int>(ACL_MDL_MEC_TIMETHR_SIZET));
  }
}

aclmdlConfigHandle* aclmdlCreateConfigHandle() {
  ASCENDSIM_PROFILE_API();
  return create_handle(config_handles(), __func__);
}

aclError aclmdlDestroyConfigHandle(aclmdlConfigHandle* handle) {
  ASCENDSIM_PROFILE_API();
  return destroy_handle(config_handles(), handle, "config handle", __func__);
}

aclError aclmdlSetConfigOpt(aclmdlConfigHandle* handle, aclmdlConfigAttr attr, const void* attrValue,
                            size_t valueSize) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(handle);
  ASCENDSIM_CHECK_NOT_NULL(attrValue);
  std::shared_ptr<aclmdlConfigHandle> config;
  if (aclError ret = find_handle(config_handles(), handle, "config handle", __func__, &config)) return ret;
  const int32_t which = enum_int(attr);  // any int from C: checked and switched on as an int (core/enum_value.h)
  if (which < ACL_MDL_PRIORITY_INT32 || which > ACL_MDL_DYNAMIC_TASK_SIZET)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: attribute %d is not an aclmdlConfigAttr (0..%d)", __func__, which,
                static_cast<int>(ACL_MDL_DYNAMIC_TASK_SIZET));
  auto need = [&](size_t size) { return check_value_size(which, size, valueSize, __func__); };
  switch (which) {
    case ACL_MDL_PRIORITY_INT32:
      if (aclError ret = need(sizeof(int32_t))) return ret;
      std::memcpy(&config->priority, attrValue, sizeof(int32_t));
      return ACL_SUCCESS;
    case ACL_MDL_LOAD_TYPE_SIZET: {
      if (aclError ret = need(sizeof(size_t))) return ret;
      size_t v;
      std::memcpy(&v, attrValue, sizeof v);
      if (v < ACL_MDL_LOAD_FROM_FILE || v > ACL_MDL_LOAD_FROM_MEM_WITH_Q)
        return fail(ACL_ERROR_INVALID_PARAM, "%s: load type %zu is invalid (1..6)", __func__, v);
      config->load_type = v;
      config->has_load_type = true;
      return ACL_SUCCESS;
    }
    case ACL_MDL_PATH_PTR:
    case ACL_MDL_MEM_ADDR_PTR:
    case ACL_MDL_WEIGHT_ADDR_PTR:
    case ACL_MDL_WORKSPACE_ADDR_PTR: {
      // The value is the pointer itself (for the path: a char*, whose string is copied).
      if (aclError ret = need(sizeof(void*))) return ret;
      void* p;
      std::memcpy(&p, attrValue, sizeof p);
      if (which == ACL_MDL_PATH_PTR) {
        if (p == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: the ACL_MDL_PATH_PTR value is NULL", __func__);
        config->path = static_cast<const char*>(p);
        config->has_path = true;
      }
      if (which == ACL_MDL_MEM_ADDR_PTR) config->mem = p;
      if (which == ACL_MDL_WEIGHT_ADDR_PTR) config->weight = p;
      if (which == ACL_MDL_WORKSPACE_ADDR_PTR) config->work = p;
      return ACL_SUCCESS;
    }
    case ACL_MDL_MEM_SIZET:
    case ACL_MDL_WEIGHT_SIZET:
    case ACL_MDL_WORKSPACE_SIZET: {
      if (aclError ret = need(sizeof(size_t))) return ret;
      size_t v;
      std::memcpy(&v, attrValue, sizeof v);
      (which == ACL_MDL_MEM_SIZET ? config->mem_size : which == ACL_MDL_WEIGHT_SIZET ? config->weight_size
                                                                                     : config->work_size) = v;
      return ACL_SUCCESS;
    }
    case ACL_MDL_WORKSPACE_MEM_OPTIMIZE:
      if (aclError ret = need(sizeof(size_t))) return ret;
      return ACL_SUCCESS;  // accepted: ascendsim never copies inputs/outputs (always zero copy)
    default:
      return fail(ACL_ERROR_API_NOT_SUPPORT, "%s: attribute %d (queues, external weights, pre-built task "
                  "descriptions) is not supported by ascendsim", __func__, which);
  }
}

aclError aclmdlLoadWithConfig(const aclmdlConfigHandle* handle, uint32_t* modelId) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(handle);
  ASCENDSIM_CHECK_NOT_NULL(modelId);
  std::shared_ptr<aclmdlConfigHandle> config;
  if (aclError ret = find_handle(config_handles(), handle, "config handle", __func__, &config)) return ret;
  if (!config->has_load_type)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: the config handle has no ACL_MDL_LOAD_TYPE_SIZET", __func__);
  const UserMemory user{config->work, config->work_size, config->weight, config->weight_size};
  switch (config->load_type) {
    case ACL_MDL_LOAD_FROM_FILE:
    case ACL_MDL_LOAD_FROM_FILE_WITH_MEM:
      if (!config->has_path)
        return fail(ACL_ERROR_INVALID_PARAM, "%s: load type %zu needs ACL_MDL_PATH_PTR", __func__, config->load_type);
      return load_file(config->path.c_str(), modelId, config->load_type == ACL_MDL_LOAD_FROM_FILE ? nullptr : &user, __func__);
    case ACL_MDL_LOAD_FROM_MEM:
    case ACL_MDL_LOAD_FROM_MEM_WITH_MEM:
      if (config->mem == nullptr || config->mem_size == 0)
        return fail(ACL_ERROR_INVALID_PARAM, "%s: load type %zu needs ACL_MDL_MEM_ADDR_PTR and ACL_MDL_MEM_SIZET",
                    __func__, config->load_type);
      return load_mem(config->mem, config->mem_size, modelId,
                      config->load_type == ACL_MDL_LOAD_FROM_MEM ? nullptr : &user, __func__);
    default:
      return fail(ACL_ERROR_API_NOT_SUPPORT, "%s: load type %zu (with queues) is not supported by ascendsim",
                  __func__, config->load_type);
  }
}

aclError aclmdlSetDynamicBatchSize(uint32_t modelId, aclmdlDataset* dataset, size_t index, uint64_t batchSize) {
  ASCENDSIM_PROFILE_API();
  std::shared_ptr<LoadedModel> model;
  void* addr = nullptr;
  size_t item = 0;
  if (aclError ret = gear_buffer(modelId, dataset, index, 1, "dynamic batch", __func__, &model, &addr, &item))
    return ret;
  return write_gear(*model, addr, item, {static_cast<int64_t>(batchSize)}, "batch size", __func__);
}

aclError aclmdlSetDynamicHWSize(uint32_t modelId, aclmdlDataset* dataset, size_t index, uint64_t height,
                                uint64_t width) {
  ASCENDSIM_PROFILE_API();
  std::shared_ptr<LoadedModel> model;
  void* addr = nullptr;
  size_t item = 0;
  if (aclError ret = gear_buffer(modelId, dataset, index, 2, "dynamic image size", __func__, &model, &addr, &item))
    return ret;
  return write_gear(*model, addr, item, {static_cast<int64_t>(height), static_cast<int64_t>(width)}, "image size (h,w)",
                    __func__);
}

aclError aclmdlSetInputDynamicDims(uint32_t modelId, aclmdlDataset* dataset, size_t index, const aclmdlIODims* dims) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(dims);
  std::shared_ptr<LoadedModel> model;
  void* addr = nullptr;
  size_t item = 0;
  if (aclError ret = gear_buffer(modelId, dataset, index, 3, "dynamic dims", __func__, &model, &addr, &item))
    return ret;
  const ModelDef& def = *model->def();
  if (dims->dimCount > ACL_MAX_DIM_CNT)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: dims.dimCount %zu is larger than %d", __func__, dims->dimCount,
                ACL_MAX_DIM_CNT);
  // The dims of the designated inputs, concatenated (GE): the gear is the values at their -1 positions.
  std::vector<int64_t> gear;
  size_t total = 0;
  for (const std::string& name : def.designate_shape_order)
    for (const IoDesc& io : def.inputs)
      if (io.name == name) {
        for (size_t k = 0; k < io.dims.size(); ++k)
          if (total + k < dims->dimCount && io.dims[k] < 0) gear.push_back(dims->dims[total + k]);
        total += io.dims.size();
      }
  if (dims->dimCount != total || gear.size() != def.gear_dim_count)
    return fail(ACL_ERROR_GE_PARAM_INVALID, "%s: dims.dimCount is %zu; model '%s' needs the %zu dims of its dynamic "
                "inputs, concatenated in their order", __func__, dims->dimCount, def.name.c_str(), total);
  return write_gear(*model, addr, item, gear, "dims", __func__);
}

// The output dims of the gear the model last ran (GE's GetCurShape): from a description made by
// aclmdlGetDesc; one made from a file or memory image has no execution and gives the described dims.
aclError aclmdlGetCurOutputDims(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims) {
  ASCENDSIM_PROFILE_API();
  ASCENDSIM_CHECK_NOT_NULL(dims);
  auto desc = find_desc(modelDesc, __func__);
  if (!desc) return ACL_ERROR_INVALID_PARAM;
  std::shared_ptr<const ModelDef> def;
  uint32_t model_id = 0;
  {
    std::lock_guard<std::mutex> lock(desc->mutex);
    def = desc->def;
    model_id = desc->model_id;
  }
  if (!def) return fail(ACL_ERROR_INVALID_PARAM, "%s: model description %p was never filled (aclmdlGetDesc)", __func__,
                        static_cast<const void*>(modelDesc));
  if (index >= def->outputs.size())
    return fail(ACL_ERROR_INVALID_PARAM, "%s: index %zu is out of range: model '%s' has %zu outputs", __func__, index,
                def->name.c_str(), def->outputs.size());
  std::vector<int64_t> shape = def->outputs[index].dims;
  if (model_id != 0 && !current_output_dims(model_id, index, &shape))
    return fail(ACL_ERROR_GE_EXEC_MODEL_ID_INVALID, "%s: model id %u of the description is no longer loaded",
                __func__, model_id);
  std::memset(dims, 0, sizeof(*dims));
  std::strncpy(dims->name, def->outputs[index].name.c_str(), ACL_MAX_TENSOR_NAME_LEN - 1);
  dims->dimCount = shape.size();
  for (size_t i = 0; i < shape.size() && i < ACL_MAX_DIM_CNT; ++i) dims->dims[i] = shape[i];
  return ACL_SUCCESS;
}
