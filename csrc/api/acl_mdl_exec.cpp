// acl_mdl.h: loading (from file / memory, with user memory, with a config handle), executing (sync, async on a
// stream, V2 with an exec config), unloading, and the dynamic gear setters.
//
// The model manager (csrc/model/model_manager.h) loads and runs; this face checks the C arguments, owns the
// config handles and words the errors.
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "api/sync_timeout.h"
#include "core/enum_value.h"
#include "core/error.h"
#include "core/handle_registry.h"
#include "model/loaded_model.h"
#include "model/model_desc.h"
#include "model/model_manager.h"
#include "model/model_registry.h"
#include "prof/profiler.h"

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

struct aclmdlExecConfigHandle : ascendsim::model::ExecConfig {};

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


aclError load_file(const char* path, uint32_t* model_id, const UserMemory* user, const char* api) {
  if (path == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'modelPath' is NULL", api);
  if (model_id == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'modelId' is NULL", api);
  std::vector<uint8_t> image;
  if (aclError ret = read_model_file(path, api, &image)) return ret;
  return load_model(image.data(), image.size(), model_id, user, api);
}

aclError load_mem(const void* model, size_t size, uint32_t* model_id, const UserMemory* user, const char* api) {
  if (model == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'model' is NULL", api);
  if (model_id == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'modelId' is NULL", api);
  if (size == 0) return fail(ACL_ERROR_INVALID_PARAM, "%s: modelSize is 0", api);
  return load_model(static_cast<const uint8_t*>(model), size, model_id, user, api);
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
