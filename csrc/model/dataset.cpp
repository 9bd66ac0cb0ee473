// The datasets of the process (see dataset.h): a registry so that a destroyed or random handle is refused.
#include "model/dataset.h"

#include <utility>

#include "core/handle_registry.h"
#include "runtime/tensor_desc.h"

namespace ascendsim::model {
namespace {

HandleRegistry<aclmdlDataset>& datasets() {
  static auto* registry = new HandleRegistry<aclmdlDataset>("dataset");  // outlives late destructors at exit
  return *registry;
}

}  // namespace

aclmdlDataset* add_dataset(const char* api) {
  return static_cast<aclmdlDataset*>(datasets().add(std::make_shared<aclmdlDataset>(), api));
}

std::shared_ptr<aclmdlDataset> remove_dataset(const aclmdlDataset* handle) { return datasets().remove(handle); }

std::shared_ptr<aclmdlDataset> find_dataset(const aclmdlDataset* handle) {
  return handle == nullptr ? nullptr : datasets().find(handle);
}

bool dataset_buffers(const aclmdlDataset* handle, std::vector<aclDataBuffer*>* out, bool* has_descs) {
  const auto dataset = find_dataset(handle);
  if (!dataset) return false;
  std::lock_guard<std::mutex> lock(dataset->mutex);
  *out = dataset->buffers;
  if (has_descs != nullptr) *has_descs = !dataset->descs.empty();
  return true;
}

namespace {

// Replaces the dataset's descriptions by one per buffer, made by `make(index)`.
template <class Make>
void replace_descs(const aclmdlDataset* handle, Make make) {
  const auto dataset = find_dataset(handle);
  if (!dataset) return;
  std::vector<std::shared_ptr<aclTensorDesc>> fresh;
  {
    std::lock_guard<std::mutex> lock(dataset->mutex);
    fresh.resize(dataset->buffers.size());
  }
  for (size_t i = 0; i < fresh.size(); ++i) fresh[i] = make(i);  // a failed allocation leaves no desc
  {
    std::lock_guard<std::mutex> lock(dataset->mutex);
    dataset->descs.swap(fresh);
  }
  for (const auto& old : fresh)
    if (old) retire_tensor_desc(old.get());
}

}  // namespace

void reset_output_descs(const aclmdlDataset* handle, const char* api) {
  replace_descs(handle, [api](size_t) { return new_tensor_desc({}, true, api); });
}

void set_output_descs(const aclmdlDataset* handle, const std::vector<OutputDesc>& outputs, const char* api) {
  replace_descs(handle, [&](size_t i) -> std::shared_ptr<aclTensorDesc> {
    TensorDescData data;
    if (i < outputs.size()) {
      data.dtype = outputs[i].dtype;
      data.format = outputs[i].format;
      data.dims = outputs[i].dims;
    }
    return new_tensor_desc(std::move(data), true, api);
  });
}

bool dataset_desc_dims(const aclmdlDataset* handle, size_t index, std::vector<int64_t>* dims) {
  const auto dataset = find_dataset(handle);
  if (!dataset) return false;
  std::shared_ptr<aclTensorDesc> desc;
  {
    std::lock_guard<std::mutex> lock(dataset->mutex);
    if (index >= dataset->descs.size() || !dataset->descs[index]) return false;
    desc = dataset->descs[index];
  }
  std::lock_guard<std::mutex> lock(desc->mutex);
  *dims = desc->data.dims;
  return true;
}

}  // namespace ascendsim::model
