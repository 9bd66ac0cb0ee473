// The loaded models by id: a map under a mutex (lookups copy a shared_ptr, so a model stays alive for the
// duration of a call that found it even if another thread unloads it meanwhile). The registry is a
// LiveObjectSource (core/live_objects.h): leak reports list the models still loaded, with their loading API.
#include "model/model_registry.h"

#include <mutex>
#include <unordered_map>

#include "core/live_objects.h"
#include "device/device_memory.h"
#include "model/loaded_model.h"
#include "runtime/device.h"

namespace ascendsim::model {
namespace {

struct Entry {
  std::shared_ptr<LoadedModel> model;
  CreationSite site;
};

struct Registry final : LiveObjectSource {
  Registry() { register_live_source(this); }
  void collect_live(std::vector<LiveObject>* out) const override {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto& [id, entry] : models)
      out->push_back(LiveObject{"model", nullptr, id, entry.model->device()->id(), 0, entry.site});
  }
  mutable std::mutex mutex;
  uint32_t next_id = 1;
  std::unordered_map<uint32_t, Entry> models;
};

Registry& registry() {
  static auto* r = new Registry();  // outlives late destructors at exit
  return *r;
}

}  // namespace

std::shared_ptr<const ModelDef> find_model_def(uint32_t model_id) {
  auto model = find_loaded_model(model_id);
  return model ? model->def() : nullptr;
}

bool current_output_dims(uint32_t model_id, size_t index, std::vector<int64_t>* dims) {
  auto model = find_loaded_model(model_id);
  if (!model) return false;
  if (model->hybrid() != nullptr) {  // the latest execution's dims; before one, the model's (-1 dims)
    model->hybrid()->last_output_dims(index, dims);
    return true;
  }
  const PlanRuntime& plan = model->plan(model->last_plan());
  if (index >= plan.output_dims.size()) return false;
  *dims = plan.output_dims[index];
  return true;
}

std::shared_ptr<LoadedModel> find_loaded_model(uint32_t model_id) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.models.find(model_id);
  return it == r.models.end() ? nullptr : it->second.model;
}

uint32_t register_loaded_model(std::shared_ptr<LoadedModel> model, const char* api) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const uint32_t id = r.next_id++;
  r.models.emplace(id, Entry{std::move(model), CreationSite{api, next_creation_seq()}});
  return id;
}

std::shared_ptr<LoadedModel> unregister_loaded_model(uint32_t model_id) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.models.find(model_id);
  if (it == r.models.end()) return nullptr;
  auto model = std::move(it->second.model);
  r.models.erase(it);
  return model;
}

}  // namespace ascendsim::model
