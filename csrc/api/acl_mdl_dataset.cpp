// acl_mdl.h datasets: an ordered list of data-buffer handles (model inputs or outputs). A dataset neither
// owns its buffers nor their memory; destroying it leaves both alive (samples free the memory, then the
// buffers, then the dataset). As in CANN a buffer handle is not checked when added (it may legally be
// destroyed and the dataset not used again); the execute calls check every buffer they read.
#include "acl/acl.h"
#include "core/error.h"
#include "core/handle_registry.h"
#include "model/dataset.h"

using namespace ascendsim;

namespace {

HandleRegistry<aclmdlDataset>& datasets() {
  static auto* registry = new HandleRegistry<aclmdlDataset>();  // outlives late destructors at exit
  return *registry;
}

}  // namespace

namespace ascendsim::model {

std::shared_ptr<aclmdlDataset> find_dataset(const aclmdlDataset* handle) {
  return handle == nullptr ? nullptr : datasets().find(handle);
}

bool dataset_buffers(const aclmdlDataset* handle, std::vector<aclDataBuffer*>* out) {
  const auto dataset = find_dataset(handle);
  if (!dataset) return false;
  std::lock_guard<std::mutex> lock(dataset->mutex);
  *out = dataset->buffers;
  return true;
}

}  // namespace ascendsim::model

aclmdlDataset* aclmdlCreateDataset() {
  return static_cast<aclmdlDataset*>(datasets().add(std::make_shared<aclmdlDataset>()));
}

aclError aclmdlDestroyDataset(const aclmdlDataset* dataset) {
  ASCENDSIM_CHECK_NOT_NULL(dataset);
  if (!datasets().remove(dataset))
    return fail(ACL_ERROR_INVALID_PARAM, "%s: dataset %p is not live (destroyed twice or never created)", __func__,
                static_cast<const void*>(dataset));
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

aclDataBuffer* aclmdlGetDatasetBuffer(const aclmdlDataset* dataset, size_t index) {
  const auto live = model::find_dataset(dataset);
  if (!live) {
    fail(ACL_ERROR_INVALID_PARAM, "%s: dataset %p is NULL or not live", __func__, static_cast<const void*>(dataset));
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(live->mutex);
  if (index >= live->buffers.size()) {
    fail(ACL_ERROR_INVALID_PARAM, "%s: index %zu is out of range (the dataset has %zu buffers)", __func__, index,
         live->buffers.size());
    return nullptr;
  }
  return live->buffers[index];
}
