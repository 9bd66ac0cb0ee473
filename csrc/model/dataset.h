// aclmdlDataset: the ordered list of aclDataBuffer handles given to aclmdlExecute (inputs or outputs).
// The dataset does not own the buffers nor their memory (aclmdlDestroyDataset leaves both alive, as in
// CANN). Live datasets are kept in a registry so that a destroyed or random handle is refused.
#pragma once
#include <memory>
#include <mutex>
#include <vector>

#include "acl/acl_mdl.h"

struct aclmdlDataset {
  mutable std::mutex mutex;  // AddDatasetBuffer may run while another thread reads the dataset
  std::vector<aclDataBuffer*> buffers;
};

namespace ascendsim::model {

// The live dataset `handle`, or null (nothing recorded) when it is NULL or not live. Thread-safe.
std::shared_ptr<aclmdlDataset> find_dataset(const aclmdlDataset* handle);

// A copy of the dataset's buffer handles; false (nothing recorded) when `handle` is not a live dataset.
bool dataset_buffers(const aclmdlDataset* handle, std::vector<aclDataBuffer*>* out);

}  // namespace ascendsim::model
