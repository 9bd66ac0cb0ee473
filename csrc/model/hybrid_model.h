// HybridModel: the v2 runtime of a dynamic-shape model (GE's HybridDavinciModel running the execute graph of
// its v2 executor). The algorithm is described at the top of hybrid_model.cpp.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "acl/acl_base.h"
#include "executor/topological_executor.h"
#include "kernels/kernel.h"
#include "model/control_flow.h"
#include "model/model_def.h"
#include "model/shape_fns.h"

namespace ascendsim {
class Device;
}

namespace ascendsim::model {

// The order the Main graph's steps run in (ASCENDSIM_V2_EXECUTOR, or the load attribute).
enum class ExecutorKind { Sequential = 0, Topological = 1, ParallelTopological = 2 };
const char* executor_name(ExecutorKind kind);
// ASCENDSIM_V2_EXECUTOR: "sequential" (default), "topological" or "parallel"; false for another value.
bool executor_from_env(ExecutorKind* kind, std::string* value);

// A compute node lowered: what its four steps need (load-time facts, shared by every instance).
struct LoweredNode {
  const NodeDef* def = nullptr;
  ShapeFn shape_fn = nullptr;
  kernels::KernelFactory factory = nullptr;
  ControlOp control = ControlOp::None;  // If / Loop: InferShape runs a subgraph (model/control_flow.h)
  std::vector<uint32_t> frees;  // FEATURE_MAP tensors whose last reader (in node order) is this node
  bool round_outputs = false;   // ROUND_OUTPUTS_FP16
  bool view = false;            // its FEATURE_MAP output is input 0's bytes: no allocation, no kernel
};

// One lowered graph: the model's plan (graph 0) or If/Loop subgraph s (graph s + 1); its Main steps' edges
// are the same for every instance.
struct LoweredGraph {
  const PlanDef* plan = nullptr;
  std::vector<LoweredNode> nodes;
  size_t steps = 0;
  std::vector<uint32_t> in_degree, succ_begin, succ;  // in-degrees and successor lists of the steps
  std::vector<uint32_t> roots;                        // the steps of in-degree 0
};

struct HybridInstance;

class HybridModel {
 public:
  ~HybridModel();  // runs the DeInit graph

  // Lowers `def` (one dynamic-shape plan) and runs the Init graph (weights into device memory), then drops
  // it. A node whose op has no shape function or no kernel fails the load naming it.
  // `user_weights` (aclmdlLoadFrom*WithMem's weightPtr, checked by the caller) or null: the weights' device
  // memory (null: the Init graph allocates it).
  static aclError load(const ModelDef& def, Device* device, ExecutorKind executor, void* user_weights,
                       const char* api, std::unique_ptr<HybridModel>* out);
  const void* weights() const { return weights_; }  // their device copy

  // One execution: `input_dims` the real dims of every model input (checked by the caller against the
  // model), the users' buffers and their sizes; writes each output's dims. Binds inputs, outputs and the
  // stream (`stream` keys the caching allocator's pool) and runs Main. Thread-safe: concurrent executions
  // take their own instance.
  // An output whose buffer is NULL with size 0 (`outputs[o]` null) is allocated by the runtime, as CANN does
  // for an output of unknown size under aclmdlExecute: `outputs[o]` and `(*allocated)[o]` (its bytes) then
  // say where; the user frees it. Other entries of `allocated` are 0.
  aclError execute(const std::vector<Dims>& input_dims, const void* const* inputs, void** outputs,
                   const size_t* output_sizes, uintptr_t stream, std::vector<Dims>* output_dims,
                   std::vector<size_t>* allocated, const char* api);

  // The dims of output `index` in the latest successful execution (aclmdlGetCurOutputDims); false before one.
  bool last_output_dims(size_t index, Dims* dims) const;

  // Peak feature-map memory (ascendsimGetModelMemory): the most bytes of feature maps live at once during the
  // latest successful execution and the largest such peak since load, each feature map counted as the static
  // planner counts it (rounded up to 512 bytes), and the number of successful executions.
  struct MemoryPeaks {
    uint64_t last = 0, max = 0, executions = 0;
  };
  MemoryPeaks memory_peaks() const;

  // The Init graph's and DeInit graph's work (their nodes call these).
  void init_weights();
  void deinit_instances();
  void deinit_weights();
  void report_timing() const;  // ASCENDSIM_NODE_TIMING=1: each node's four steps, at unload

 private:
  friend struct HybridInstance;
  HybridModel() = default;
  aclError lower(uint32_t graph, const char* api);
  HybridInstance* acquire();
  void release(HybridInstance* instance);
  // A new instance of graph `graph` (0 the model's; subgraph instances belong to their parent instance).
  std::unique_ptr<HybridInstance> make_instance(uint32_t graph);
  // Runs an instance's Main steps (`main`: its steps, or their profiling wrappers) on the model's executor.
  void run_main(HybridInstance* inst, const ascendsim_exec_node* main);

  const ModelDef* def_ = nullptr;
  Device* device_ = nullptr;
  ExecutorKind executor_ = ExecutorKind::Sequential;
  std::string name_;
  std::vector<LoweredGraph> graphs_;  // the Main graph, then the If/Loop subgraphs
  // ASCENDSIM_NODE_TIMING=1: every Main step is wrapped to add its time here (per step), reported at unload.
  bool timing_ = false;
  std::vector<std::atomic<uint64_t>> step_ns_;
  std::atomic<uint64_t> runs_{0};

  // Init / DeInit graphs and what they manage.
  std::vector<ascendsim_exec_node> init_graph_, deinit_graph_;
  void* weights_ = nullptr;
  bool owns_weights_ = true;
  const char* api_ = "aclmdlLoad";

  mutable std::mutex pool_mutex_;  // also guards last_dims_ and peaks_
  std::vector<Dims> last_dims_;
  MemoryPeaks peaks_;
  std::vector<std::unique_ptr<HybridInstance>> instances_;
  std::vector<HybridInstance*> idle_;
};

}  // namespace ascendsim::model
