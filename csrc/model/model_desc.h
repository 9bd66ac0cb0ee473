// aclmdlDesc: what aclmdlGetDesc / GetDescFromFile / GetDescFromMem fill in, the model's decoded
// description (ModelDef, shared with a loaded model) and the id of the model it came from (0 when it came
// from a file or memory image). Live descriptions are kept in a registry so that a destroyed or random
// handle is answered with ACL_ERROR_INVALID_PARAM instead of a crash.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "model/model_def.h"

struct aclmdlDesc {
  mutable std::mutex mutex;                     // GetDesc* may refill it while another thread reads it
  std::shared_ptr<const ascendsim::model::ModelDef> def;  // null until a GetDesc* succeeded
  uint32_t model_id = 0;
};

namespace ascendsim::model {

// A new, empty description (registered), and the removal of one: false when it was not live.
aclmdlDesc* add_desc(const char* api);  // `api` made it (named in leak reports)
bool remove_desc(const aclmdlDesc* handle);

// The live description `handle` (null, with the error recorded under `api`'s name, when it is NULL or
// not live).
std::shared_ptr<aclmdlDesc> find_desc(const aclmdlDesc* handle, const char* api);

// Reads a whole file (`api` names the caller in messages): ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID when it
// cannot be opened or read, as GE's LoadDataFromFile.
aclError read_model_file(const char* path, const char* api, std::vector<uint8_t>* out);

}  // namespace ascendsim::model
