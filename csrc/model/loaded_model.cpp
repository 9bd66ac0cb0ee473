// Loading a model follows GE DavinciModel's stages, each timed in the debug log (ASCEND_GLOBAL_LOG_LEVEL=0):
//   1. model memory: the weights are copied into device memory (or the user's weight memory) and the
//      feature-map arena is allocated (or the user's work memory is used): one arena of the largest plan's
//      size, shared by the first instance of every plan, as GE shares it between gears;
//   2. I/O nodes: the byte size each plan needs for each model input and output;
//   3. nodes: for every node the kernel factory of its (op type, domain) builds the kernel from the node's
//      static description; a node without kernel fails the load, naming the node;
//   4. task sink: every node becomes one {func, context} entry of its stream's node array. The context holds
//      the kernel and the node's input/output pointer arrays, already resolved to feature-map + offset and
//      weights + offset; the pointers of model inputs and outputs are slots patched with the user's buffer
//      addresses at each execution (zero copy). A VIEW node whose output coincides with its input is left
//      out; a node flagged ROUND_OUTPUTS_FP16 gets a func that rounds its float outputs after the kernel.
//
//      The tasks of TASK_INFO are sunk per stream, in their order: a KERNEL task is its node's entry, and
//      the compiler's EVENT_RECORD / EVENT_WAIT tasks become event nodes (executor/stream_runner.h).
//
// Execution of a plan is the executor's: every stream is the pure-C loop of executor/sequential_executor.c
// over its node array; a plan with several streams runs them concurrently, synchronised by its events, or, with
// several pool threads or a chain handed from stream to stream, as one loop in the tasks' listed order
// (streams_in_order).
//
// Concurrent executions: an instance (feature map, kernels, contexts) serves one execution at a time. The
// first instance of each plan is built at load on the shared arena; an execution that finds it busy takes
// a free extra instance of its plan or builds one with its own feature map (its own kernels too, because
// kernels may keep scratch state). A model loaded in user memory never allocates: its executions are
// serialised on the first instance.
#include "model/loaded_model.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "core/env_choice.h"
#include "core/error.h"
#include "core/log.h"
#include "executor/stream_runner.h"
#include "kernels/dtype_convert.h"
#include "kernels/isa.h"
#include "kernels/thread_pool.h"
#include "model/model_trace.h"
#include "model/node_spec.h"
#include "prof/profiler.h"
#include "runtime/device.h"

namespace ascendsim::model {

namespace {

struct RoundOutput {
  uint32_t output;  // index among the node's outputs
  size_t count;     // float elements
};

struct NodeContext {
  kernels::Kernel* kernel = nullptr;
  const void* const* inputs = nullptr;
  void* const* outputs = nullptr;
  const RoundOutput* rounds = nullptr;
  uint32_t round_count = 0;
};

extern "C" void ascendsim_run_kernel(void* context) {
  auto* c = static_cast<NodeContext*>(context);
  c->kernel->run(c->inputs, c->outputs);
}

extern "C" void ascendsim_run_kernel_round_outputs(void* context) {
  auto* c = static_cast<NodeContext*>(context);
  c->kernel->run(c->inputs, c->outputs);
  for (uint32_t r = 0; r < c->round_count; ++r) {
    // ROUND_OUTPUTS_FP16: the node's float32 outputs hold float16 values, as on the device.
    kernels::round_fp16_inplace(static_cast<float*>(c->outputs[c->rounds[r].output]),
                                static_cast<int64_t>(c->rounds[r].count));
  }
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// One stream's view of a plan's per-node times: its node array entry -> plan node (kNone: an event node).
struct TimingUser {
  std::vector<std::atomic<uint64_t>>* ns;
  const uint32_t* plan_node;
};

extern "C" void ascendsim_add_node_time(void* user, size_t index, uint64_t start_ns, uint64_t end_ns) {
  auto* u = static_cast<TimingUser*>(user);
  if (u->plan_node[index] != kNone) (*u->ns)[u->plan_node[index]].fetch_add(end_ns - start_ns, std::memory_order_relaxed);
}

constexpr size_t kMaxBoundInstances = 4;  // work memories remembered per plan (ExecOptions::work)

}  // namespace

struct PlanInstance {
  std::mutex busy;                  // extra and bound instances; the primaries use LoadedModel::primary_mutex_
  std::atomic<int> waiters{0};      // bound instances: executions about to take `busy` (not to be evicted)
  Device* device = nullptr;
  void* feature_map = nullptr;
  bool owns_feature_map = false;
  std::vector<std::unique_ptr<kernels::Kernel>> kernels;
  std::vector<void*> slots;         // every node's input then output pointers, node after node
  std::vector<NodeContext> contexts;
  std::vector<RoundOutput> rounds;
  std::unique_ptr<executor::StreamRunner> runner;
  std::vector<std::vector<uint32_t>> plan_node;  // per stream: node array entry -> plan node id or kNone
  std::vector<std::vector<uint32_t>> plan_task;  // per stream: node array entry -> index in the plan's tasks
  std::vector<std::vector<uint32_t>> input_slots;   // per model input: the slots holding its address
  std::vector<std::vector<uint32_t>> output_slots;

  ~PlanInstance() {
    if (owns_feature_map && feature_map != nullptr) device->memory().release(feature_map, "aclmdlUnload");
  }
};

namespace {

// Where the tensors of one plan instance live: feature map + offset, weights + offset; null for a model input
// or output (a slot patched with the user's buffer at each execution).
struct TensorPlaces {
  const PlanDef& plan;
  uint8_t* feature_map;
  uint8_t* weights;
  void* address(uint32_t id) const {
    const TensorDef& t = plan.tensors[id];
    if (t.kind == TensorKind::FeatureMap) return feature_map + t.offset;
    if (t.kind == TensorKind::Weight) return weights + t.offset;
    return nullptr;
  }
};

// A VIEW node whose output coincides with its input: nothing to compute, left out of the tasks.
bool elided_view(const PlanDef& p, const NodeDef& node) {
  if ((node.flags & kernels::kView) == 0 || node.inputs.empty() || node.outputs.empty() || node.inputs[0] == kNone)
    return false;
  const TensorDef& in = p.tensors[node.inputs[0]];
  const TensorDef& o = p.tensors[node.outputs[0]];
  return in.kind == TensorKind::FeatureMap && o.kind == TensorKind::FeatureMap && in.offset == o.offset;
}

// Stage 3, nodes: one kernel per node from its factory (an elided view gets none). Counts the pointer slots
// the kept nodes need.
aclError build_kernels(const TensorPlaces& places, const std::string& model, const char* api, PlanInstance* inst,
                       std::vector<bool>* skipped, size_t* slot_count) {
  const PlanDef& p = places.plan;
  skipped->assign(p.nodes.size(), false);
  for (size_t n = 0; n < p.nodes.size(); ++n) {
    const NodeDef& node = p.nodes[n];
    if (elided_view(p, node)) {
      (*skipped)[n] = true;  // nothing to compute: output 0 is input 0's bytes
      inst->kernels.emplace_back();
      continue;
    }
    kernels::KernelFactory factory = kernels::find_kernel(node.op_type, node.domain);
    if (factory == nullptr)
      return fail(ACL_ERROR_GE_EXEC_LOAD_KERNEL_PARTITION_FAILED, "%s: model '%s': node '%s' (%s%s%s): no kernel for "
                  "op type '%s'%s%s in ascendsim", api, model.c_str(), node.name.c_str(),
                  node.domain.c_str(), node.domain.empty() ? "" : "::", node.op_type.c_str(), node.op_type.c_str(),
                  node.domain.empty() ? "" : " of domain ", node.domain.c_str());
    std::string why;
    const auto plan_dims = [&](uint32_t id) -> const std::vector<int64_t>& { return p.tensors[id].dims; };
    const auto weight_data = [&](uint32_t id) { return places.address(id); };
    std::unique_ptr<kernels::Kernel> kernel = kernels::build_kernel(factory, node_spec(p, node, plan_dims, weight_data), &why);
    if (kernel == nullptr)
      return fail(ACL_ERROR_GE_EXEC_LOAD_KERNEL_PARTITION_FAILED, "%s: model '%s': node '%s' (%s): no kernel for "
                  "this node: %s", api, model.c_str(), node.name.c_str(), node.op_type.c_str(),
                  why.empty() ? "unsupported" : why.c_str());
    if (log_enabled(kLogDebug)) {
      const std::string path = kernel->path();
      log(kLogDebug, "GE", "model '%s': node '%s' (%s): kernel variant %s%s%s", model.c_str(), node.name.c_str(),
          node.op_type.c_str(), kernels::active_isa_name(), path.empty() ? "" : ", ", path.c_str());
    }
    inst->kernels.push_back(std::move(kernel));
    *slot_count += node.inputs.size() + node.outputs.size();
  }
  return ACL_SUCCESS;
}

// Stage 4a, task sink: every kept node's context (its kernel, its input/output pointer arrays, its fp16
// rounds). Slots are sized first: contexts point into them. The slots of model inputs and outputs are recorded
// to be patched at execution. context_of: plan node -> its context (kNone when elided).
void bind_contexts(const TensorPlaces& places, const std::vector<bool>& skipped, size_t slot_count,
                   PlanInstance* inst, std::vector<uint32_t>* context_of) {
  const PlanDef& p = places.plan;
  inst->slots.assign(slot_count, nullptr);
  inst->contexts.reserve(p.nodes.size());
  size_t round_total = 0;
  for (size_t n = 0; n < p.nodes.size(); ++n)
    if (!skipped[n] && (p.nodes[n].flags & kernels::kRoundOutputsFp16) != 0) round_total += p.nodes[n].outputs.size();
  inst->rounds.reserve(round_total);
  size_t slot = 0;
  context_of->assign(p.nodes.size(), kNone);
  for (size_t n = 0; n < p.nodes.size(); ++n) {
    if (skipped[n]) continue;
    const NodeDef& node = p.nodes[n];
    NodeContext ctx;
    ctx.kernel = inst->kernels[n].get();
    void** base = inst->slots.data() + slot;
    for (uint32_t id : node.inputs) {
      if (id != kNone) {
        const TensorDef& t = p.tensors[id];
        inst->slots[slot] = places.address(id);
        if (t.kind == TensorKind::Input) inst->input_slots[t.io_index].push_back(static_cast<uint32_t>(slot));
        if (t.kind == TensorKind::Output) inst->output_slots[t.io_index].push_back(static_cast<uint32_t>(slot));
      }
      ++slot;
    }
    void** outs = inst->slots.data() + slot;
    ctx.inputs = base;
    ctx.outputs = outs;
    const bool round = (node.flags & kernels::kRoundOutputsFp16) != 0;
    ctx.rounds = inst->rounds.data() + inst->rounds.size();
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      const TensorDef& t = p.tensors[node.outputs[o]];
      inst->slots[slot] = places.address(node.outputs[o]);
      if (t.kind == TensorKind::Output) inst->output_slots[t.io_index].push_back(static_cast<uint32_t>(slot));
      ++slot;
      if (round && t.dtype == ACL_FLOAT && t.size > 0) {
        inst->rounds.push_back({static_cast<uint32_t>(o), static_cast<size_t>(t.size / 4)});
        ++ctx.round_count;
      }
    }
    (*context_of)[n] = static_cast<uint32_t>(inst->contexts.size());
    inst->contexts.push_back(ctx);
  }
}

// Whether a plan's side streams are branches of stream 0: each waits only for events that stream 0 records, and
// stream 0 runs the last kernel, so it is stream 0 that joins them. A branch's thread then works beside stream 0's
// (ResNet-50's downsampling convs, BERT's key / value projections). Otherwise the chain of the graph moves from
// stream to stream (ShuffleNet V1: each stride-2 block's Concat continues the stream of its shortcut AvgPool),
// and each hand-over waits for the next stream's thread to wake on the critical path.
bool side_streams_are_branches(const PlanDef& p) {
  std::vector<uint32_t> recorded_on(p.event_count, 0);  // per event id: the stream of its latest record
  uint32_t last_kernel_stream = 0;
  for (const TaskDef& task : p.tasks) {
    const bool known_event = task.arg < recorded_on.size();
    if (task.type == TaskType::Kernel)
      last_kernel_stream = task.stream;
    else if (task.type == TaskType::EventRecord && known_event)
      recorded_on[task.arg] = task.stream;
    else if (task.type == TaskType::EventWait && known_event && task.stream != 0 && recorded_on[task.arg] != 0)
      return false;
  }
  return last_kernel_stream == 0;
}

// Whether a plan's streams run as one loop over its tasks in their listed order, on the executing thread, rather
// than a loop per stream (docs/om-format.md §6: the listed order is always a correct execution, its events then
// no-ops). ASCENDSIM_MODEL_STREAMS=concurrent or in_order chooses; by default the streams run concurrently only
// when the intra-op pool has one thread and the side streams are branches of stream 0. A pool of several threads
// already covers the CPUs, and a side stream's kernel that found it busy ran on its own thread beside the pool's,
// with a thread wake-up at every event between streams: on 2 CPUs ShuffleNet V1 (102 of its 110 nodes on side
// streams) took 6.8 ms concurrently and 5.2 ms in order, BERT-base 151 and 139 ms. With one pool thread a branch
// is a free second CPU (ResNet-50 9 %, BERT-base 7 % faster concurrently), but a chain handed from stream to
// stream is not (ShuffleNet V1 8-15 % slower concurrently; medians of executions alternating with the other
// setting, Zen 3, 2 CPUs).
bool streams_in_order(const PlanDef& p) {
  switch (env_choice("ASCENDSIM_MODEL_STREAMS", {"auto", "concurrent", "in_order"})) {
    case 1: return false;
    case 2: return true;
    default: return kernels::num_threads() > 1 || !side_streams_are_branches(p);
  }
}

// Stage 4b, task sink: the tasks of TASK_INFO per stream, in their order, as the streams' node arrays: a
// KERNEL task is its node's {func, context}, EVENT_RECORD / EVENT_WAIT become event nodes. Streams run in order
// (streams_in_order): every KERNEL task in the listed order on stream 0, no events.
void sink_tasks(const PlanDef& p, const std::vector<bool>& skipped, const std::vector<uint32_t>& context_of,
                PlanInstance* inst) {
  const bool in_order = p.stream_count > 1 && streams_in_order(p);
  inst->runner = std::make_unique<executor::StreamRunner>(in_order ? 1 : p.stream_count, in_order ? 0 : p.event_count);
  inst->plan_node.resize(inst->runner->stream_count());
  inst->plan_task.resize(inst->runner->stream_count());
  std::vector<uint32_t> records(p.event_count, 0);  // per event: RECORD tasks so far (the ordinal)
  for (const TaskDef& task : p.tasks) {
    if (task.type == TaskType::Kernel && skipped[task.node]) continue;
    if (in_order && task.type != TaskType::Kernel) continue;
    const uint32_t stream = in_order ? 0 : task.stream;
    inst->plan_task[stream].push_back(static_cast<uint32_t>(&task - p.tasks.data()));
    if (task.type == TaskType::Kernel) {
      NodeContext& ctx = inst->contexts[context_of[task.node]];
      inst->runner->add_node(stream, {ctx.round_count > 0 ? ascendsim_run_kernel_round_outputs
                                                          : ascendsim_run_kernel, &ctx});
      inst->plan_node[stream].push_back(task.node);
      continue;
    }
    if (task.type == TaskType::EventRecord)
      inst->runner->add_record(stream, task.arg, ++records[task.arg]);
    else
      inst->runner->add_wait(stream, task.arg, records[task.arg]);
    inst->plan_node[stream].push_back(kNone);
  }
}

}  // namespace

LoadedModel::~LoadedModel() {
  hybrid_.reset();  // its DeInit graph
  if (timing_) report_timing();
  for (auto& plan : plans_) {
    plan->extra.clear();
    plan->primary.reset();
  }
  if (shared_work_ != nullptr && !user_memory_) device_->memory().release(shared_work_, "aclmdlUnload");
  if (owns_weights_ && weights_ != nullptr) device_->memory().release(weights_, "aclmdlUnload");
}

aclError LoadedModel::load(std::shared_ptr<ModelDef> def, Device* device, const UserMemory* user, const char* api,
                           std::shared_ptr<LoadedModel>* out) {
  std::shared_ptr<LoadedModel> model(new LoadedModel());
  model->device_ = device;
  model->name_ = def->name;
  DeviceMemory& memory = device->memory();
  const char* timing_env = std::getenv("ASCENDSIM_NODE_TIMING");
  model->timing_ = timing_env != nullptr && timing_env[0] == '1';
  if (def->dynamic_shape) {  // the v2 runtime (model/hybrid_model.h)
    ExecutorKind executor;
    std::string value;
    if (!executor_from_env(&executor, &value))
      return fail(ACL_ERROR_INVALID_PARAM, "%s: ASCENDSIM_V2_EXECUTOR='%s' is not one of sequential, topological, "
                  "parallel", api, value.c_str());
    if (aclError ret = HybridModel::load(*def, device, executor, user != nullptr ? user->weight : nullptr, api,
                                         &model->hybrid_))
      return ret;
    def->weights = static_cast<const uint8_t*>(model->hybrid_->weights());  // as the v1 path: the device copy
    model->timing_ = false;  // the v2 model reports its own steps
    model->mutable_def_ = def;
    model->def_ = std::move(def);
    *out = std::move(model);
    return ACL_SUCCESS;
  }

  // Stage 1: model memory.
  auto t0 = std::chrono::steady_clock::now();
  uint64_t work_size = 0;
  for (const PlanDef& plan : def->plans) work_size = std::max(work_size, plan.feature_map_size);
  if (user != nullptr && user->weight != nullptr) {
    model->weights_ = user->weight;
  } else if (def->weight_size > 0) {
    model->weights_ = memory.allocate(def->weight_size, 0, 0, api);
    if (model->weights_ == nullptr) return ACL_ERROR_GE_MEMORY_ALLOCATION;
    model->owns_weights_ = true;
  }
  if (def->weight_size > 0) std::memcpy(model->weights_, def->weights, def->weight_size);
  def->weights = static_cast<const uint8_t*>(model->weights_);
  if (user != nullptr && user->work != nullptr) {
    model->shared_work_ = user->work;
    model->user_memory_ = true;
  } else if (work_size > 0) {
    model->shared_work_ = memory.allocate(work_size, 0, 0, api);
    if (model->shared_work_ == nullptr) return ACL_ERROR_GE_MEMORY_ALLOCATION;
  }
  log(kLogDebug, "GE", "%s: model '%s' stage model memory: weights %llu bytes, feature map %llu bytes, %.3f ms",
      api, def->name.c_str(), static_cast<unsigned long long>(def->weight_size),
      static_cast<unsigned long long>(work_size), ms_since(t0));

  // Stage 2: I/O nodes.
  t0 = std::chrono::steady_clock::now();
  for (const PlanDef& plan_def : def->plans) {
    auto plan = std::make_unique<PlanRuntime>();
    plan->def = &plan_def;
    // An input or output that no device memory can hold could never be given (and a kernel's tables for it
    // would exhaust the host first: a Pad by 2^38).
    for (const auto* ids : {&plan_def.input_ids, &plan_def.output_ids})
      for (uint32_t id : *ids)
        if (id != kNone && plan_def.tensors[id].size > memory.capacity())
          return fail(ACL_ERROR_GE_MEMORY_ALLOCATION, "%s: model '%s': %s '%s' needs %llu bytes, more than the "
                      "device's memory (%zu bytes)", api, def->name.c_str(), ids == &plan_def.input_ids ? "input" :
                      "output", plan_def.tensors[id].name.c_str(),
                      static_cast<unsigned long long>(plan_def.tensors[id].size), memory.capacity());
    for (uint32_t id : plan_def.input_ids) plan->input_sizes.push_back(id == kNone ? 0 : plan_def.tensors[id].size);
    for (uint32_t id : plan_def.output_ids) {
      plan->output_sizes.push_back(plan_def.tensors[id].size);
      plan->output_dims.push_back(plan_def.tensors[id].dims);
    }
    model->plans_.push_back(std::move(plan));
  }
  log(kLogDebug, "GE", "%s: model '%s' stage I/O nodes: %zu inputs, %zu outputs, %.3f ms", api, def->name.c_str(),
      def->inputs.size(), def->outputs.size(), ms_since(t0));

  // Stages 3 and 4 for the first instance of every plan (build_instance logs them).
  for (size_t i = 0; i < model->plans_.size(); ++i)
    if (aclError ret = model->build_instance(i, model->shared_work_, false, api, &model->plans_[i]->primary))
      return ret;

  if (model->timing_) {
    for (auto& plan : model->plans_) model->node_ns_.emplace_back(plan->def->nodes.size());
    model->runs_ = std::vector<std::atomic<uint64_t>>(model->plans_.size());
  }
  model->mutable_def_ = def;
  model->def_ = std::move(def);
  *out = std::move(model);
  return ACL_SUCCESS;
}

aclError LoadedModel::build_instance(size_t plan, void* feature_map, bool owns_feature_map, const char* api,
                                     std::unique_ptr<PlanInstance>* out) {
  const PlanDef& p = *plans_[plan]->def;
  auto inst = std::make_unique<PlanInstance>();
  inst->device = device_;
  inst->feature_map = feature_map;
  inst->owns_feature_map = owns_feature_map;
  inst->input_slots.resize(p.input_ids.size());
  inst->output_slots.resize(p.output_ids.size());
  const TensorPlaces places{p, static_cast<uint8_t*>(feature_map), static_cast<uint8_t*>(weights_)};

  auto t0 = std::chrono::steady_clock::now();
  std::vector<bool> skipped;
  size_t slot_count = 0;
  if (aclError ret = build_kernels(places, name_, api, inst.get(), &skipped, &slot_count)) return ret;
  const double nodes_ms = ms_since(t0);

  t0 = std::chrono::steady_clock::now();
  std::vector<uint32_t> context_of;
  bind_contexts(places, skipped, slot_count, inst.get(), &context_of);
  sink_tasks(p, skipped, context_of, inst.get());
  log(kLogDebug, "GE", "%s: model '%s' plan %zu: stage nodes: %zu kernels, %.3f ms; stage task sink: %zu tasks on "
      "%u streams with %u events%s, %zu view nodes elided, %.3f ms", api, name_.c_str(), plan, inst->contexts.size(),
      nodes_ms, p.tasks.size(), p.stream_count, p.event_count,
      inst->runner->stream_count() < p.stream_count ? " (run in task order)" : "", p.nodes.size() - inst->contexts.size(),
      ms_since(t0));
  *out = std::move(inst);
  return ACL_SUCCESS;
}

aclError LoadedModel::select_plan(const void* gear_data, size_t gear_size, const char* api, size_t* plan) const {
  const ModelDef& d = *def_;
  if (d.dynamic_type == 0 || plans_.size() == 1) {
    *plan = 0;
    return ACL_SUCCESS;
  }
  // The gear values in the dtype the model describes for ascend_mbatch_shape_data (INT32 since format 1.1).
  const IoDesc& io = d.inputs[d.dynamic_input_index];
  const size_t item = io.dtype == ACL_INT64 || io.dtype == ACL_UINT64 ? 8 : 4;
  const size_t n = d.gear_dim_count;
  if (gear_data == nullptr || gear_size < n * item)
    return fail(ACL_ERROR_GE_PARAM_INVALID, "%s: input %u (ascend_mbatch_shape_data): model expects %zu bytes, given "
                "%zu", api, d.dynamic_input_index, n * item, gear_size);
  int64_t values[16] = {};
  for (size_t i = 0; i < n && i < 16; ++i) {
    if (item == 8) {
      std::memcpy(&values[i], static_cast<const uint8_t*>(gear_data) + 8 * i, 8);
    } else {
      int32_t v;
      std::memcpy(&v, static_cast<const uint8_t*>(gear_data) + 4 * i, 4);
      values[i] = v;
    }
  }
  for (size_t p = 0; p < plans_.size(); ++p) {
    const std::vector<int64_t>& gear = plans_[p]->def->gear_values;
    if (gear.size() == n && std::equal(gear.begin(), gear.end(), values)) {
      *plan = p;
      return ACL_SUCCESS;
    }
  }
  std::string got;
  for (size_t i = 0; i < n && i < 16; ++i) got += (i ? "," : "") + std::to_string(values[i]);
  return fail(ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, "%s: model '%s': the gear [%s] in ascend_mbatch_shape_data is "
              "not one of the model's gears (set it with aclmdlSetDynamicBatchSize / SetDynamicHWSize / "
              "SetInputDynamicDims before executing)", api, name_.c_str(), got.c_str());
}

PlanInstance* LoadedModel::acquire(size_t plan_index, const char* api, aclError* error) {
  PlanRuntime& plan = *plans_[plan_index];
  if (primary_mutex_.try_lock()) return plan.primary.get();
  if (user_memory_) {  // the user's memory is the only memory: wait for the running execution
    primary_mutex_.lock();
    return plan.primary.get();
  }
  std::lock_guard<std::mutex> lock(plan.pool_mutex);
  for (auto& inst : plan.extra)
    if (inst->busy.try_lock()) return inst.get();
  void* fm = nullptr;
  if (plan.def->feature_map_size > 0) {
    fm = device_->memory().allocate(plan.def->feature_map_size, 0, 0, api);
    if (fm == nullptr) {
      *error = ACL_ERROR_GE_MEMORY_ALLOCATION;
      add_error_context("%s: model '%s': no device memory for the feature map of a concurrent execution", api,
                        name_.c_str());
      return nullptr;
    }
  }
  std::unique_ptr<PlanInstance> inst;
  // On failure the half-built instance, which owns fm, releases it.
  if ((*error = build_instance(plan_index, fm, true, api, &inst)) != ACL_SUCCESS) return nullptr;
  inst->busy.lock();
  plan.extra.push_back(std::move(inst));
  return plan.extra.back().get();
}

// The instance whose feature map is the user's `work` memory. Two executions with the same work memory are
// serialised on it (the memory can hold one execution's tensors at a time).
PlanInstance* LoadedModel::acquire_bound(size_t plan_index, void* work, const char* api, aclError* error) {
  PlanRuntime& plan = *plans_[plan_index];
  std::unique_lock<std::mutex> lock(plan.pool_mutex);
  for (auto& inst : plan.bound) {
    if (inst->feature_map != work) continue;
    PlanInstance* found = inst.get();
    found->waiters.fetch_add(1);
    lock.unlock();
    found->busy.lock();
    found->waiters.fetch_sub(1);
    return found;
  }
  if (plan.bound.size() >= kMaxBoundInstances) {  // forget an idle one
    for (auto it = plan.bound.begin(); it != plan.bound.end(); ++it) {
      if ((*it)->waiters.load() != 0 || !(*it)->busy.try_lock()) continue;
      (*it)->busy.unlock();
      plan.bound.erase(it);
      break;
    }
  }
  std::unique_ptr<PlanInstance> inst;
  if ((*error = build_instance(plan_index, work, false, api, &inst)) != ACL_SUCCESS) return nullptr;
  inst->busy.lock();
  plan.bound.push_back(std::move(inst));
  return plan.bound.back().get();
}

void LoadedModel::release(PlanRuntime& plan, PlanInstance* instance) {
  if (instance == plan.primary.get())
    primary_mutex_.unlock();
  else
    instance->busy.unlock();
}

aclError LoadedModel::execute(size_t plan_index, const void* const* inputs, void* const* outputs,
                              const ExecOptions& options, const char* api) {
  PlanRuntime& plan = *plans_[plan_index];
  aclError error = ACL_SUCCESS;
  PlanInstance* inst = options.work != nullptr ? acquire_bound(plan_index, options.work, api, &error)
                                               : acquire(plan_index, api, &error);
  if (inst == nullptr) return error;
  void** slots = inst->slots.data();
  for (size_t i = 0, n = inst->input_slots.size(); i < n; ++i)
    for (uint32_t s : inst->input_slots[i]) slots[s] = const_cast<void*>(inputs[i]);
  for (size_t i = 0, n = inst->output_slots.size(); i < n; ++i)
    for (uint32_t s : inst->output_slots[i]) slots[s] = outputs[i];
  uint32_t late_event = kNone;
  bool in_time;
  if (prof::on(prof::kTaskTime) && prof::device_on(device_->id())) {
    const ExecutionTrace trace(device_->id(), name_, plan_index, *plan.def, inst->plan_task);
    in_time = inst->runner->run(trace.observer(), trace.users(), options.event_timeout_ms, &late_event);
  } else if (!timing_) {
    in_time = inst->runner->run(nullptr, nullptr, options.event_timeout_ms, &late_event);
  } else {
    std::vector<TimingUser> users;
    std::vector<void*> user_pointers;
    for (const std::vector<uint32_t>& map : inst->plan_node) users.push_back({&node_ns_[plan_index], map.data()});
    for (TimingUser& u : users) user_pointers.push_back(&u);
    in_time = inst->runner->run(ascendsim_add_node_time, user_pointers.data(), options.event_timeout_ms, &late_event);
    runs_[plan_index].fetch_add(1, std::memory_order_relaxed);
  }
  last_plan_.store(plan_index, std::memory_order_relaxed);
  release(plan, inst);
  if (!in_time)
    return fail(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, "%s: model '%s': a stream waited longer than the event sync timeout "
                "(%d ms) for event %u; the execution completed", api, name_.c_str(), options.event_timeout_ms,
                late_event);
  return ACL_SUCCESS;
}

// ASCENDSIM_NODE_TIMING=1: at unload, the mean time of every node per execution, slowest first, on stderr.
std::vector<std::string> LoadedModel::kernel_paths(size_t plan) const {
  std::vector<std::string> paths;
  for (const auto& kernel : plans_[plan]->primary->kernels) paths.push_back(kernel ? kernel->path() : "view");
  return paths;
}

void LoadedModel::report_timing() const {
  for (size_t p = 0; p < node_ns_.size() && p < plans_.size(); ++p) {
    const uint64_t runs = runs_[p].load();
    if (runs == 0) continue;
    std::vector<std::pair<uint64_t, size_t>> order;
    uint64_t total = 0;
    for (size_t i = 0; i < node_ns_[p].size(); ++i) {
      order.emplace_back(node_ns_[p][i].load(), i);
      total += order.back().first;
    }
    std::sort(order.rbegin(), order.rend());
    while (!order.empty() && order.back().first == 0) order.pop_back();  // elided view nodes
    std::fprintf(stderr, "[ascendsim] model '%s' plan %zu: %llu executions, %.3f ms of node time per execution "
                 "(summed over streams) in %zu nodes\n", name_.c_str(), p, static_cast<unsigned long long>(runs),
                 total / 1e6 / runs, order.size());
    for (const auto& [ns, i] : order) {
      const NodeDef& node = plans_[p]->def->nodes[i];
      std::fprintf(stderr, "  %10.3f us  %5.1f%%  %s (%s)\n", ns / 1e3 / runs, total ? 100.0 * ns / total : 0.0,
                   node.name.c_str(), node.op_type.c_str());
    }
  }
}

}  // namespace ascendsim::model
