// LoadedModel: a ModelDef made executable, following GE DavinciModel's load stages (model memory -> I/O
// nodes -> nodes -> task sink; the algorithm is described at the top of loaded_model.cpp).
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "acl/acl_base.h"
#include "executor/sequential_executor.h"
#include "kernels/kernel.h"
#include "model/hybrid_model.h"
#include "model/model_def.h"

namespace ascendsim {
class Device;
}

namespace ascendsim::model {

// Where the model's memory comes from: allocated by the runtime (aclmdlLoadFromFile/FromMem), or given by
// the user (aclmdlLoadFrom*WithMem: the model uses exactly that memory, never allocates its own).
struct UserMemory {
  void* work = nullptr;
  size_t work_size = 0;
  void* weight = nullptr;
  size_t weight_size = 0;
};

// One execution's options (aclmdlExecuteV2's exec config), checked by the API layer.
struct ExecOptions {
  void* work = nullptr;           // ACL_MDL_WORK_ADDR_PTR: the feature map of this execution, or null
  int32_t event_timeout_ms = -1;  // ACL_MDL_EVENT_SYNC_TIMEOUT: longest wait of a stream for another's event
};

// One execution's state of one plan: feature-map memory, kernels, contexts and the {func, context} array.
// Concurrent executions of the same plan each hold their own instance (see PlanRuntime::acquire).
struct PlanInstance;

// Load-time facts of one plan, shared by its instances.
struct PlanRuntime {
  const PlanDef* def = nullptr;
  std::vector<size_t> input_sizes;   // bytes each model input needs in this plan (0 for the gear input)
  std::vector<size_t> output_sizes;
  std::vector<std::vector<int64_t>> output_dims;
  // Instances: the first is built at load; further ones on demand when executions overlap (unless the
  // model runs in user memory: then executions are serialised on the first); and one per work memory an
  // execution brought (ExecOptions::work), kept for the next execution with the same memory.
  std::unique_ptr<PlanInstance> primary;
  std::mutex pool_mutex;
  std::vector<std::unique_ptr<PlanInstance>> extra;
  std::vector<std::unique_ptr<PlanInstance>> bound;
};

class LoadedModel {
 public:
  ~LoadedModel();

  // Runs the load stages on `def` for `device`. `user` null: allocate device memory. The weights are
  // copied from def->weights into device memory (def->weights is repointed there). On failure records
  // the error (naming the stage and, for a node without kernel, the node) and returns it.
  static aclError load(std::shared_ptr<ModelDef> def, Device* device, const UserMemory* user, const char* api,
                       std::shared_ptr<LoadedModel>* out);

  const std::shared_ptr<const ModelDef>& def() const { return def_; }
  // A dynamic-shape model runs on the v2 runtime (GE's ModelManager::IsNeedHybridLoad: the graph has unknown
  // shapes): then it has no plans of its own and hybrid() executes it; null for the v1 (static, gear) path.
  HybridModel* hybrid() const { return hybrid_.get(); }
  Device* device() const { return device_; }
  size_t plan_count() const { return plans_.size(); }
  const PlanRuntime& plan(size_t i) const { return *plans_[i]; }

  // Picks the plan for a gear model from the values in the ascend_mbatch_shape_data buffer; static: 0.
  // Returns ACL_SUCCESS or records an error.
  aclError select_plan(const void* gear_data, size_t gear_size, const char* api, size_t* plan) const;

  // Runs plan `plan` with the users' buffers (zero copy: the kernels read and write them directly).
  // The caller has checked the counts and sizes, and options.work. Thread-safe; returns an error when an
  // extra feature-map for an overlapping execution cannot be allocated, or when a stream waited longer
  // than options.event_timeout_ms for an event.
  aclError execute(size_t plan, const void* const* inputs, void* const* outputs, const ExecOptions& options,
                   const char* api);

  // The plan run by the latest execute (for aclmdlGetCurOutputDims).
  size_t last_plan() const { return last_plan_.load(std::memory_order_relaxed); }

  // The kernel path of every node of plan `plan` (kernels::Kernel::path(); "" for an op with one path,
  // "view" for a node left out because its output is its input): what ascendsimGetModelKernels reports.
  std::vector<std::string> kernel_paths(size_t plan) const;

 private:
  LoadedModel() = default;
  aclError build_instance(size_t plan, void* feature_map, bool owns_feature_map, const char* api,
                          std::unique_ptr<PlanInstance>* out);
  PlanInstance* acquire(size_t plan, const char* api, aclError* error);
  PlanInstance* acquire_bound(size_t plan, void* work, const char* api, aclError* error);
  void release(PlanRuntime& plan, PlanInstance* instance);
  void report_timing() const;

  std::unique_ptr<HybridModel> hybrid_;
  std::shared_ptr<ModelDef> mutable_def_;
  std::shared_ptr<const ModelDef> def_;
  Device* device_ = nullptr;
  bool user_memory_ = false;
  void* weights_ = nullptr;          // device copy of the weights
  bool owns_weights_ = false;
  void* shared_work_ = nullptr;      // user memory: every plan's feature map (executions are serialised)
  std::vector<std::unique_ptr<PlanRuntime>> plans_;
  std::atomic<size_t> last_plan_{0};
  std::string name_;
  std::mutex primary_mutex_;         // held while a primary instance (the shared arena) runs
  // Per-node timing (ASCENDSIM_NODE_TIMING=1): the subscriber loop adds to these; reported at unload.
  bool timing_ = false;
  std::vector<std::vector<std::atomic<uint64_t>>> node_ns_;  // per plan, per plan node
  std::vector<std::atomic<uint64_t>> runs_;                  // per plan
};

}  // namespace ascendsim::model
