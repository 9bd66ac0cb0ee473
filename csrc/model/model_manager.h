// The model manager: loading, request binding, execution and gear values of the loaded models
// (model_manager.cpp explains how an execution runs). The C API (csrc/api/acl_mdl_exec.cpp) checks its
// arguments and calls these; each records its error with `api` naming the caller.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "acl/acl_mdl.h"

namespace ascendsim::model {

class LoadedModel;
struct UserMemory;

// What an exec config handle (aclmdlSetExecConfigOpt) asks of one execution.
struct ExecConfig {
  int32_t stream_sync_timeout = -1;
  int32_t event_sync_timeout = -1;
  void* work = nullptr;
  size_t work_size = 0;
};

// Parses, validates and loads a model image (with the user's work / weight memory when `user` is set);
// registers it and writes its id.
aclError load_model(const uint8_t* data, size_t size, uint32_t* model_id, const UserMemory* user, const char* api);

// One execution of `model_id` (config may be null): on the calling thread, or enqueued on `stream` as one task.
aclError execute_sync(uint32_t model_id, const aclmdlDataset* input, aclmdlDataset* output, const ExecConfig* config,
                      const char* api);
aclError execute_async(uint32_t model_id, const aclmdlDataset* input, aclmdlDataset* output, aclrtStream stream_handle,
                       const ExecConfig* config, const char* api);

// The dataset buffer that receives gear values, checked: the model is a gear model of `type`, `index` is
// its ascend_mbatch_shape_data input, and the buffer holds the gear's values of the input's dtype (`item`
// bytes each).
aclError gear_buffer(uint32_t model_id, aclmdlDataset* dataset, size_t index, uint32_t type, const char* type_name,
                     const char* api, std::shared_ptr<LoadedModel>* model, void** addr, size_t* item);

// Writes the gear after checking it is one of the model's gears.
aclError write_gear(const LoadedModel& model, void* addr, size_t item, const std::vector<int64_t>& gear,
                    const char* what, const char* api);

}  // namespace ascendsim::model
