// acl_mdl.h datasets: an ordered list of data-buffer handles (model inputs or outputs). A dataset neither
// owns its buffers nor their memory; destroying it leaves both alive (samples free the memory, then the
// buffers, then the dataset). As in CANN a buffer handle is not checked when added (it may legally be
// destroyed and the dataset not used again); the execute calls check every buffer they read.
//
// Tensor descriptions (aclmdlSetDatasetTensorDesc) are copied into the dataset, as CANN does: the user's
// description stays theirs; the copy at an index is updated in place by a later set (the handle
// aclmdlGetDatasetTensorDesc gave stays valid), removed by a set with NULL, destroyed with the dataset.
#include <utility>

#include "acl/acl.h"
#include "core/error.h"
#include "model/dataset.h"
#include "runtime/tensor_desc.h"

using namespace ascendsim;

namespace {

// The live dataset `dataset` when `index` names one of its buffers (buffers only grow: the index stays
// valid), else null with the error recorded for `api`.
std::shared_ptr<aclmdlDataset> dataset_with_index(const aclmdlDataset* dataset, size_t index, const char* api);

}  // namespace

aclmdlDataset* aclmdlCreateDataset() {
  return model::add_dataset(__func__);
}

aclError aclmdlDestroyDataset(const aclmdlDataset* dataset) {
  ASCENDSIM_CHECK_NOT_NULL(dataset);
  const auto removed = model::remove_dataset(dataset);
  if (!removed)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: dataset %p is not live (destroyed twice or never created)", __func__,
                static_cast<const void*>(dataset));
  std::lock_guard<std::mutex> lock(removed->mutex);
  for (const auto& desc : removed->descs)
    if (desc) retire_tensor_desc(desc.get());
  removed->descs.clear();
  return ACL_SUCCESS;
}

aclError aclmdlAddDatasetBuffer(aclmdlDataset* dataset, aclDataBuffer* dataBuffer) {
  ASCENDSIM_CHECK_NOT_NULL(dataset);
  ASCENDSIM_CHECK_NOT_NULL(dataBuffer);
  const auto live = model::find_dataset(dataset);
  if (!live)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: dataset %p is not live (destroyed or never created)", __func__,
                static_cast<const void*>(dataset));
  std::lock_guard<std::mutex> lock(live->mutex);
  live->buffers.push_back(dataBuffer);
  return ACL_SUCCESS;
}

size_t aclmdlGetDatasetNumBuffers(const aclmdlDataset* dataset) {
  const auto live = model::find_dataset(dataset);
  if (!live) {
    fail(ACL_ERROR_INVALID_PARAM, "%s: dataset %p is NULL or not live", __func__, static_cast<const void*>(dataset));
    return 0;
  }
  std::lock_guard<std::mutex> lock(live->mutex);
  return live->buffers.size();
}

namespace {

std::shared_ptr<aclmdlDataset> dataset_with_index(const aclmdlDataset* dataset, size_t index, const char* api) {
  auto live = model::find_dataset(dataset);
  if (!live) {
    fail(ACL_ERROR_INVALID_PARAM, "%s: dataset %p is NULL or not live (destroyed or never created)", api,
         static_cast<const void*>(dataset));
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(live->mutex);
  if (index >= live->buffers.size()) {
    fail(ACL_ERROR_INVALID_PARAM, "%s: index %zu is out of range (the dataset has %zu buffers)", api, index,
         live->buffers.size());
    return nullptr;
  }
  return live;
}

}  // namespace

aclDataBuffer* aclmdlGetDatasetBuffer(const aclmdlDataset* dataset, size_t index) {
  const auto live = dataset_with_index(dataset, index, __func__);
  if (!live) return nullptr;
  std::lock_guard<std::mutex> lock(live->mutex);
  return live->buffers[index];
}

aclError aclmdlSetDatasetTensorDesc(aclmdlDataset* dataset, aclTensorDesc* tensorDesc, size_t index) {
  ASCENDSIM_CHECK_NOT_NULL(dataset);
  const auto live = dataset_with_index(dataset, index, __func__);
  if (!live) return ACL_ERROR_INVALID_PARAM;
  TensorDescData copy;
  if (tensorDesc != nullptr) {
    const auto source = find_tensor_desc(tensorDesc, __func__, "tensorDesc");
    if (!source) return ACL_ERROR_INVALID_PARAM;
    std::lock_guard<std::mutex> lock(source->mutex);
    copy = source->data;
  }
  std::shared_ptr<aclTensorDesc> retired;
  {
    std::lock_guard<std::mutex> lock(live->mutex);
    auto& descs = live->descs;
    if (tensorDesc == nullptr) {  // NULL removes the index's description
      if (index < descs.size()) retired = std::move(descs[index]);
      while (!descs.empty() && !descs.back()) descs.pop_back();
    } else if (index < descs.size() && descs[index]) {
      std::lock_guard<std::mutex> desc_lock(descs[index]->mutex);
      descs[index]->data = std::move(copy);
    } else {
      auto made = new_tensor_desc(std::move(copy), true, __func__);
      if (!made) return ACL_ERROR_BAD_ALLOC;
      if (index >= descs.size()) descs.resize(index + 1);
      descs[index] = std::move(made);
    }
  }
  if (retired) retire_tensor_desc(retired.get());
  return ACL_SUCCESS;
}

aclTensorDesc* aclmdlGetDatasetTensorDesc(const aclmdlDataset* dataset, size_t index) {
  const auto live = dataset_with_index(dataset, index, __func__);
  if (!live) return nullptr;
  std::lock_guard<std::mutex> lock(live->mutex);
  return index < live->descs.size() ? live->descs[index].get() : nullptr;  // NULL: none set (no error)
}
