// The loaded models of the process, by model id (ids start at 1 and are never reused while the process lives,
// like GE's ModelManager). Written by the model manager (model_manager.cpp) and aclmdlUnload;
// read by aclmdlGetDesc (csrc/api/acl_mdl_desc.cpp) and the execute calls.
//
// A ModelDef is immutable once loaded and shared: a caller holding the shared_ptr may keep using it after a
// concurrent aclmdlUnload (the ModelDef's `weights` pointer is NOT valid after the unload — describe-only users
// such as aclmdlGetDesc never read it).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "acl/acl_base.h"
#include "model/model_def.h"

namespace ascendsim::model {

class LoadedModel;  // csrc/model/loaded_model.h (executor internals)

// The ModelDef of the loaded model `model_id`, or nullptr when no model with that id is loaded (never loaded,
// or unloaded). Thread-safe; does not record an error (the caller words its own message, e.g. aclmdlGetDesc:
// "aclmdlGetDesc: model id 7 is not loaded" with ACL_ERROR_GE_EXEC_MODEL_ID_INVALID).
std::shared_ptr<const ModelDef> find_model_def(uint32_t model_id);

// The executor's view of a loaded model, or nullptr. Thread-safe.
std::shared_ptr<LoadedModel> find_loaded_model(uint32_t model_id);

// aclmdlGetCurOutputDims: the dims of output `index` in the plan (gear) run by the latest execution of the
// model (the first plan before any execution). False when the model is not loaded or the index is out of range.
bool current_output_dims(uint32_t model_id, size_t index, std::vector<int64_t>* dims);

// Registers a loaded model, loaded by `api` (named in leak reports), under a fresh id (>= 1) and returns the
// id. Thread-safe.
uint32_t register_loaded_model(std::shared_ptr<LoadedModel> model, const char* api);

// Removes the model `model_id`; returns it (nullptr when it was not loaded). Thread-safe.
std::shared_ptr<LoadedModel> unregister_loaded_model(uint32_t model_id);

}  // namespace ascendsim::model
