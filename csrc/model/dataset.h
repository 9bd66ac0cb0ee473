// aclmdlDataset: the ordered list of aclDataBuffer handles given to aclmdlExecute (inputs or outputs),
// and per buffer an optional tensor description (aclmdlSetDatasetTensorDesc).
// The dataset does not own the buffers nor their memory (aclmdlDestroyDataset leaves both alive, as in
// CANN); it owns the descriptions: copies of the user's, destroyed with the dataset. Live datasets are
// kept in a registry so that a destroyed or random handle is refused.
#pragma once
#include <memory>
#include <mutex>
#include <vector>

#include "acl/acl_mdl.h"

struct aclmdlDataset {
  mutable std::mutex mutex;  // AddDatasetBuffer may run while another thread reads the dataset
  std::vector<aclDataBuffer*> buffers;
  // By buffer index; no entry past the last description, so `descs.empty()` means "none".
  std::vector<std::shared_ptr<aclTensorDesc>> descs;
};

namespace ascendsim::model {

// A new, empty dataset (registered), and the removal of one: the dataset it was, or null when not live.
aclmdlDataset* add_dataset(const char* api);  // `api` made it (named in leak reports)
std::shared_ptr<aclmdlDataset> remove_dataset(const aclmdlDataset* handle);

// The live dataset `handle`, or null (nothing recorded) when it is NULL or not live. Thread-safe.
std::shared_ptr<aclmdlDataset> find_dataset(const aclmdlDataset* handle);

// A copy of the dataset's buffer handles, and whether it holds any tensor description; false (nothing
// recorded) when `handle` is not a live dataset.
bool dataset_buffers(const aclmdlDataset* handle, std::vector<aclDataBuffer*>* out, bool* has_descs = nullptr);

// What CANN does to the output dataset after running a (static or gear) model given input descriptions:
// every output buffer gets a new, empty description (ACL_DT_UNDEFINED, ACL_FORMAT_UNDEFINED, no dims);
// the previous ones are destroyed.
void reset_output_descs(const aclmdlDataset* handle, const char* api);

// The dims of the description set at `index` (aclmdlSetDatasetTensorDesc); false when there is none.
bool dataset_desc_dims(const aclmdlDataset* handle, size_t index, std::vector<int64_t>* dims);

// After a dynamic-shape execution: every output buffer's description holds the output's real dims, dtype
// and format (what aclmdlGetDatasetTensorDesc then returns), replacing the previous ones.
struct OutputDesc {
  std::vector<int64_t> dims;
  aclDataType dtype;
  aclFormat format;
};
void set_output_descs(const aclmdlDataset* handle, const std::vector<OutputDesc>& outputs, const char* api);

}  // namespace ascendsim::model
