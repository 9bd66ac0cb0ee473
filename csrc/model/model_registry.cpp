// The loaded models by id: a map under a mutex (lookups copy a shared_ptr, so a model stays alive for the
// duration of a call that found it even if another thread unloads it meanwhile).
#include "model/model_registry.h"

#include <mutex>
#include <unordered_map>

#include "model/loaded_model.h"

namespace ascendsim::model {
namespace {

struct Registry {
  std::mutex mutex;
  uint32_t next_id = 1;
  std::unordered_map<uint32_t, std::shared_ptr<LoadedModel>> models;
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
  const PlanRuntime& plan = model->plan(model->last_plan());
  if (index >= plan.output_dims.size()) return false;
  *dims = plan.output_dims[index];
  return true;
}

std::shared_ptr<LoadedModel> find_loaded_model(uint32_t model_id) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.models.find(model_id);
  return it == r.models.end() ? nullptr : it->second;
}

uint32_t register_loaded_model(std::shared_ptr<LoadedModel> model) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const uint32_t id = r.next_id++;
  r.models.emplace(id, std::move(model));
  return id;
}

std::shared_ptr<LoadedModel> unregister_loaded_model(uint32_t model_id) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.models.find(model_id);
  if (it == r.models.end()) return nullptr;
  auto model = std::move(it->second);
  r.models.erase(it);
  return model;
}

}  // namespace ascendsim::model
