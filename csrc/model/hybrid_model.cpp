// The v2 runtime of a dynamic-shape model, after GE's HybridDavinciModel and its v2 executor.
//
// Lowering (at load): every compute node of the model's one plan becomes four steps of the execute graph,
// each a {func, context} node as the v1 sink path's:
//   InferShape  - the node's shape function (model/shape_fns.h) gives its output dims from the dims of its
//                 inputs (and the values of its shape operands);
//   AllocOutputs- each FEATURE_MAP output gets device memory of that size from the device's caching allocator
//                 (keyed by the execution's stream); a model output is the user's buffer, checked to be large
//                 enough; a VIEW node's (Reshape, Flatten, Squeeze, Unsqueeze, Identity) output is its input's
//                 bytes, and those are freed after the last reader of either;
//   Launch      - the kernel for this node and these concrete shapes, built by the kernel factory on first
//                 use and cached by shape, runs on the tensors' addresses (a view has nothing to run);
//   FreeInputs  - the FEATURE_MAP tensors whose last reader (in node order) is this node go back to the
//                 allocator's cache.
// Edges: InferShape -> AllocOutputs -> Launch of one node; the Launch of a producer -> the InferShape of
// every consumer; the Launch of every reader of a freed tensor -> the FreeInputs that frees it. The steps in
// node order are a topological order, so the same array is run by the sequential executor (the v1 C loop,
// in order), the topological executor (ready queue by dependency counts) or the multi-threaded one.
//
// Control flow (If / Loop, format 1.5): every subgraph of the model is lowered the same way into a graph of
// its own. The InferShape step of a control-flow node runs its subgraph(s) in a child instance that belongs
// to the node's instance, on the same executor kind (model/control_flow.cpp has the ONNX semantics); the
// subgraph's outputs are allocated per run, AllocOutputs adopts them as the node's feature maps and Launch
// copies those that are model outputs into the user's buffers.
//
// Lifecycle: the Init graph (the weights into device memory: allocated, or the user's weight memory of
// aclmdlLoadFrom*WithMem; a dynamic-shape model needs no work memory) runs at load and is then
// dropped; every execution binds the inputs, outputs and stream into an instance and runs Main; the DeInit
// graph (drop the kernel caches, free the weights) runs at unload. An instance (tensor states, kernel
// caches, the Main steps' contexts) serves one execution at a time; concurrent executions take their own.
// A repeated execution with the same shapes builds no kernel and, the allocator's blocks being cached,
// reserves no new device memory. AllocOutputs and FreeInputs also keep the execution's count of live
// feature-map bytes and its peak (ascendsimGetModelMemory; the NODE_TIMING report), to compare with the
// arena the static planner gives for the same shapes.
//
// The steps' fast paths (the Main loop runs them at every execution, so their fixed cost is the per-node
// overhead of the v2 runtime): every tensor's dims carry a version that changes when they do, and a node
// remembers the versions it last saw. InferShape skips the shape function when no input's dims changed and
// the function read no input values (Reshape's target, Slice's starts: those run every time); Launch reuses
// the node's last kernel when none of its inputs' and outputs' dims changed, and otherwise looks the shape up
// in the node's cache. FreeInputs hands a feature map to the instance's RecycledBlocks, from which the next
// AllocOutputs of its exact size takes it (recycled_blocks.h; the device allocator sees the same bytes in use).
//
// Observability: ASCENDSIM_NODE_TIMING=1 wraps every step of an instance in a timer (reported per node at
// unload); with profiling on, an execution runs every step through a wrapper that records its span (named
// after the node, the step as category) inside one span for the execution.
//
// A step that fails (a shape that does not fit, a too-small output buffer, no device memory) records the
// error in the instance; later steps see it and do nothing, and the execution returns it.
#include "model/hybrid_model.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include "core/error.h"
#include "core/log.h"
#include "kernels/dtype_convert.h"
#include "model/node_spec.h"
#include "model/parallel_executor.h"
#include "model/recycled_blocks.h"
#include "prof/profiler.h"
#include "runtime/device.h"

namespace ascendsim::model {

const char* executor_name(ExecutorKind kind) {
  switch (kind) {
    case ExecutorKind::Sequential: return "sequential";
    case ExecutorKind::Topological: return "topological";
    case ExecutorKind::ParallelTopological: return "parallel";
  }
  return "?";
}

bool executor_from_env(ExecutorKind* kind, std::string* value) {
  const char* env = std::getenv("ASCENDSIM_V2_EXECUTOR");
  *kind = ExecutorKind::Sequential;
  if (env == nullptr || env[0] == '\0') return true;
  *value = env;
  for (ExecutorKind k : {ExecutorKind::Sequential, ExecutorKind::Topological, ExecutorKind::ParallelTopological})
    if (*value == executor_name(k)) {
      *kind = k;
      return true;
    }
  return false;
}

namespace {

struct TensorState {
  Dims dims;
  uint64_t version = 0;  // changes whenever `dims` does (HybridInstance::set_dims)
  void* addr = nullptr;
  bool owned = false;  // allocated by AllocOutputs (returned by FreeInputs, or at the end of a failed run)
  size_t bytes = 0;      // owned: the bytes allocated
  uint64_t counted = 0;  // owned: its bytes in the execution's live feature-map count
};

struct CachedKernel {
  Dims key;  // every input's and output's rank and dims
  std::unique_ptr<kernels::Kernel> kernel;
};

constexpr uint32_t kSteps = 4;  // InferShape, AllocOutputs, Launch, FreeInputs
constexpr uint64_t kPlannerAlign = 512;  // the static planner's rounding (compiler/memory.py ALIGN, GE's MEM_ALIGN_SIZE)
constexpr uint64_t kNever = UINT64_MAX;  // a version no tensor has: the step's memo is empty
constexpr size_t kKernelsPerNode = 16;  // shapes whose kernels a node keeps (a kernel may hold packed weights)
char zero_byte_tensor[8];       // the address of an empty tensor (nothing is read or written there)

}  // namespace

// A shape a tensor can have: rank <= 8, dims >= 0, bytes without overflow.
bool valid_dims(const Dims& dims, aclDataType dtype) {
  if (dims.size() > 8) return false;
  uint64_t bytes = aclDataTypeSize(dtype);
  for (int64_t d : dims)
    if (d < 0 || __builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes)) return false;
  return bytes <= static_cast<uint64_t>(INT64_MAX);
}

struct StepContext {
  HybridInstance* inst;
  uint32_t node;
};

// ASCENDSIM_NODE_TIMING=1: a Main step wrapped to time itself (whichever executor runs it).
struct TimedStep {
  ascendsim_exec_node step;
  std::atomic<uint64_t>* ns;
};

// Profiling (task time on): a Main step wrapped to record its span on the execution's track, named after
// its node, with the step as the category ("node" for the Launch).
struct TracedStep {
  ascendsim_exec_node step;
  const LoweredNode* node;
  uint32_t track;
  uint32_t kind;  // 0..kSteps-1
};

struct HybridInstance final : SubgraphRunner {
  HybridModel* model = nullptr;
  const LoweredGraph* graph = nullptr;  // the graph this instance runs
  bool child = false;                   // a subgraph's: its outputs are allocated per run, owned by the parent
  std::vector<TensorState> tensors;
  std::vector<std::vector<CachedKernel>> kernels;  // per node
  std::vector<StepContext> contexts;               // per step
  std::vector<TimedStep> timed;                    // per step, when timing
  std::vector<ascendsim_exec_node> main;           // the Main graph
  std::vector<uint32_t> pending, queue;            // the topological executor's scratch
  std::vector<const void*> in_ptrs;                // per node, its inputs' addresses (slot_begin)
  std::vector<void*> out_ptrs;
  std::vector<size_t> in_begin, out_begin;
  // Per-node memos of the steps (see the top of the file): the input versions at the node's last inference
  // (slots in_begin), the input and output versions of its last kernel (slots in_begin + out_begin) and that
  // kernel, and whether its shape function reads input values (then it is never skipped).
  uint64_t versions = 0;
  std::vector<uint64_t> shape_seen, kernel_seen;
  std::vector<kernels::Kernel*> last_kernel;
  std::vector<char> reads_values;
  RecycledBlocks recycled;  // feature maps freed since the last allocation (recycled_blocks.h)
  uintptr_t stream = 0;
  const size_t* output_sizes = nullptr;
  std::vector<size_t> allocated;  // per model output: bytes the runtime allocated for a NULL buffer, else 0
  // Feature-map bytes live now and at most in this execution (atomics: the parallel executor's steps allocate
  // and free at once); each counted as the static planner counts it, so that the peak compares with its arena.
  std::atomic<uint64_t> live_bytes{0}, peak_bytes{0};
  // Control-flow nodes: their results between InferShape and Launch (per node), and the instances of the
  // subgraphs they run (per subgraph index; created on first use, kept with their kernel caches).
  std::vector<std::vector<FlowTensor>> results;
  std::map<uint32_t, std::unique_ptr<HybridInstance>> children;
  std::vector<size_t> child_sizes;  // zeros: a subgraph's outputs are always allocated by the runtime
  std::mutex error_mutex;  // steps of the parallel executor may fail at once
  std::atomic<bool> failed{false};  // read by every step: no lock (set under error_mutex, before `error`)
  aclError error = ACL_SUCCESS;
  std::string message;

  const PlanDef& plan() const { return *graph->plan; }

  void set_error(aclError code, std::string text) {
    std::lock_guard<std::mutex> lock(error_mutex);
    if (failed) return;
    error = code;
    message = std::move(text);
    failed.store(true, std::memory_order_release);
  }
  bool ok() const { return !failed.load(std::memory_order_acquire); }
  std::string where(uint32_t n) const {
    const NodeDef& node = *graph->nodes[n].def;
    return "node '" + node.name + "' (" + node.op_type + ")";
  }

  void set_dims(TensorState& s, const Dims& dims) {
    if (s.dims == dims) return;
    s.dims = dims;  // a copy into the capacity the tensor has
    s.version = ++versions;
  }
  // Whether the versions of `ids`' tensors equal `seen` (absent ids count as 0); stores them there.
  bool restamp(const std::vector<uint32_t>& ids, uint64_t* seen) const {
    bool same = true;
    for (size_t i = 0; i < ids.size(); ++i) {
      const uint64_t v = ids[i] == kNone ? 0 : tensors[ids[i]].version;
      same &= seen[i] == v;
      seen[i] = v;
    }
    return same;
  }

  void infer_shape(uint32_t n) {
    if (!ok()) return;
    const LoweredNode& lowered = graph->nodes[n];
    if (lowered.control != ControlOp::None) {
      run_control(n);
      return;
    }
    const NodeDef& node = *lowered.def;
    // Inputs of the dims this node last inferred from, and a shape function that reads no values: the outputs
    // keep the dims it gave them (no other step writes them).
    uint64_t* seen = shape_seen.data() + in_begin[n];
    if (restamp(node.inputs, seen) && !reads_values[n]) return;
    // Scratch per thread (the parallel executor runs an instance's steps on several), reused: a step allocates
    // nothing once warm (the shape functions assign into `dims`' elements, which keep their capacity).
    thread_local std::vector<ShapeInput> inputs;
    thread_local std::vector<Dims> dims;
    inputs.assign(node.inputs.size(), ShapeInput{});
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const uint32_t id = node.inputs[i];
      if (id == kNone) continue;
      inputs[i] = {true, plan().tensors[id].dtype, &tensors[id].dims, tensors[id].addr};
    }
    std::string why;
    const ShapeCall call{node.attrs, inputs, node.outputs.size()};
    const bool inferred = lowered.shape_fn(call, &dims, &why);
    reads_values[n] = call.read_values;
    if (!inferred) {
      std::fill(seen, seen + node.inputs.size(), kNever);
      std::string given;
      for (const ShapeInput& in : inputs) given += (given.empty() ? "" : ", ") + (in.present ? dims_text(*in.dims) : "-");
      set_error(ACL_ERROR_GE_SHAPE_INVALID, where(n) + ": shape inference failed for inputs " + given + ": " + why);
      return;
    }
    set_output_dims(n, &dims);
    if (!ok()) std::fill(seen, seen + node.inputs.size(), kNever);
  }

  // The shapes a node's InferShape gives its outputs, checked against the compiled record.
  void set_output_dims(uint32_t n, std::vector<Dims>* given) {
    const NodeDef& node = *graph->nodes[n].def;
    std::vector<Dims>& dims = *given;
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      const TensorDef& t = plan().tensors[node.outputs[o]];
      if (!valid_dims(dims[o], t.dtype)) {
        set_error(ACL_ERROR_GE_SHAPE_INVALID, where(n) + ": output " + std::to_string(o) + " would have shape " +
                  dims_text(dims[o]) + ": a negative dim, a rank above 8 or more bytes than a tensor can hold");
        return;
      }
      if (t.dims.size() == dims[o].size()) {  // the compiler's static dims must hold (a -1 is anything)
        for (size_t d = 0; d < t.dims.size(); ++d)
          if (t.dims[d] >= 0 && t.dims[d] != dims[o][d]) {
            set_error(ACL_ERROR_GE_SHAPE_INVALID, where(n) + ": output " + std::to_string(o) + " has shape " +
                      dims_text(dims[o]) + "; the model was compiled for " + dims_text(t.dims));
            return;
          }
      }
      set_dims(tensors[node.outputs[o]], dims[o]);
    }
  }

  // If / Loop: runs its subgraph(s) now (the output shapes follow from them); AllocOutputs adopts the results.
  void run_control(uint32_t n) {
    const LoweredNode& lowered = graph->nodes[n];
    const NodeDef& node = *lowered.def;
    std::vector<FlowTensor> inputs(node.inputs.size());
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const uint32_t id = node.inputs[i];
      inputs[i].present = id != kNone;
      if (id == kNone) continue;
      inputs[i].dims = tensors[id].dims;
      inputs[i].dtype = plan().tensors[id].dtype;
      inputs[i].addr = tensors[id].addr;
    }
    if (!run_control_node(lowered.control, node, model->def_->subgraphs, inputs, *this, &results[n])) return;
    std::vector<Dims> dims;
    for (const FlowTensor& t : results[n]) dims.push_back(t.dims);
    for (size_t o = 0; o < node.outputs.size(); ++o)
      if (results[n][o].dtype != plan().tensors[node.outputs[o]].dtype) {
        set_error(ACL_ERROR_GE_SHAPE_INVALID, where(n) + ": output " + std::to_string(o) + " has data type " +
                  std::to_string(results[n][o].dtype) + " from its subgraph; the model was compiled for " +
                  std::to_string(plan().tensors[node.outputs[o]].dtype));
        return;
      }
    set_output_dims(n, &dims);
  }

  // SubgraphRunner: a subgraph's instance (this instance's child) bound to `inputs`, run on the model's
  // executor; its outputs come back as the runtime allocated them.
  bool run_subgraph(uint32_t index, const std::vector<FlowTensor>& inputs, std::vector<FlowTensor>* outputs) override {
    std::unique_ptr<HybridInstance>& sub = children[index];
    if (sub == nullptr) sub = model->make_instance(index + 1);
    HybridInstance& c = *sub;
    const PlanDef& p = c.plan();
    for (size_t i = 0; i < p.input_ids.size(); ++i) {
      if (inputs[i].dtype != p.tensors[p.input_ids[i]].dtype || inputs[i].dims.size() > 8) {  // a broken model
        fail(ACL_ERROR_GE_PARAM_INVALID, "subgraph " + std::to_string(index) + ": input " + std::to_string(i) +
             " is given data type " + std::to_string(inputs[i].dtype) + " and shape " + dims_text(inputs[i].dims) +
             "; the subgraph takes data type " + std::to_string(p.tensors[p.input_ids[i]].dtype));
        return false;
      }
      TensorState& s = c.tensors[p.input_ids[i]];
      c.set_dims(s, inputs[i].dims);
      s.addr = inputs[i].addr;
    }
    for (uint32_t id : p.output_ids) c.tensors[id].addr = nullptr;
    c.stream = stream;
    c.output_sizes = c.child_sizes.data();
    c.allocated.assign(p.output_ids.size(), 0);
    c.failed = false;
    c.error = ACL_SUCCESS;
    model->run_main(&c, c.main.data());
    c.recycled.flush([&](void* addr) { c.release(addr); });
    if (c.failed) {
      c.discard();
      fail(c.error, "subgraph " + std::to_string(index) + ": " + c.message);
      return false;
    }
    outputs->clear();
    for (size_t o = 0; o < p.output_ids.size(); ++o) {
      const TensorState& s = c.tensors[p.output_ids[o]];
      outputs->push_back({s.dims, p.tensors[p.output_ids[o]].dtype, s.addr, c.allocated[o] != 0, true});
    }
    return true;
  }
  void* allocate(size_t bytes) override {
    void* addr = model->device_->memory().allocate(bytes, stream, 0, "aclmdlExecute");
    if (addr == nullptr) set_error(ACL_ERROR_GE_MEMORY_ALLOCATION, "no device memory for " + std::to_string(bytes) + " bytes");
    return addr;
  }
  void release(void* addr) override { model->device_->memory().release(addr, "aclmdlExecute"); }
  void fail(aclError code, const std::string& why) override { set_error(code, why); }

  void alloc_outputs(uint32_t n) {
    if (!ok()) return;
    const NodeDef& node = *graph->nodes[n].def;
    if (graph->nodes[n].view) {  // input 0's bytes (freed with them: see lower())
      tensors[node.outputs[0]].addr = tensors[node.inputs[0]].addr;
      return;
    }
    const bool control = graph->nodes[n].control != ControlOp::None;
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      const uint32_t id = node.outputs[o];
      const TensorDef& t = plan().tensors[id];
      TensorState& s = tensors[id];
      if (control && t.kind == TensorKind::FeatureMap) {  // adopt the subgraph's result: no copy
        FlowTensor& r = results[n][o];
        s.addr = r.addr != nullptr ? r.addr : zero_byte_tensor;
        s.owned = r.owned;
        s.bytes = flow_bytes(r);  // what the subgraph allocated: FreeInputs recycles it by this size
        r.owned = false;
        continue;
      }
      int64_t count = 1;
      for (int64_t d : s.dims) count *= d;
      const size_t bytes = static_cast<size_t>(count) * aclDataTypeSize(t.dtype);
      if (t.kind == TensorKind::Output) {
        if (s.addr == nullptr && output_sizes[t.io_index] == 0) {  // the runtime allocates it; the user frees it
          if (bytes == 0) {
            s.addr = zero_byte_tensor;
            continue;
          }
          // (a subgraph's output goes to its parent: cached per stream as feature maps are)
          s.addr = model->device_->memory().allocate(bytes, child ? stream : 0, 0, "aclmdlExecute");
          if (s.addr == nullptr) {
            set_error(ACL_ERROR_GE_MEMORY_ALLOCATION, where(n) + ": no device memory for output " +
                      std::to_string(t.io_index) + " ('" + t.name + "', " + std::to_string(bytes) + " bytes)");
            return;
          }
          allocated[t.io_index] = bytes;
          continue;
        }
        if (output_sizes[t.io_index] < bytes) {
          set_error(ACL_ERROR_GE_PARAM_INVALID, "output " + std::to_string(t.io_index) + " ('" + t.name + "') of shape " +
                    dims_text(s.dims) + " needs " + std::to_string(bytes) + " bytes; the output buffer has " +
                    std::to_string(output_sizes[t.io_index]));
          return;
        }
        continue;  // the user's buffer, bound at execute
      }
      if (bytes == 0) {
        s.addr = zero_byte_tensor;
        continue;
      }
      s.addr = recycled.take(bytes, [&](void* addr) { release(addr); });
      if (s.addr == nullptr) s.addr = model->device_->memory().allocate(bytes, stream, 0, "aclmdlExecute");
      if (s.addr == nullptr) {
        set_error(ACL_ERROR_GE_MEMORY_ALLOCATION, where(n) + ": no device memory for output '" + t.name + "' (" +
                  std::to_string(bytes) + " bytes)");
        return;
      }
      s.owned = true;
      s.bytes = bytes;
      s.counted = (bytes + kPlannerAlign - 1) / kPlannerAlign * kPlannerAlign;
      const uint64_t live = live_bytes.fetch_add(s.counted, std::memory_order_relaxed) + s.counted;
      uint64_t peak = peak_bytes.load(std::memory_order_relaxed);
      while (live > peak && !peak_bytes.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
      }
    }
  }

  kernels::Kernel* kernel_for(uint32_t n) {
    const LoweredNode& lowered = graph->nodes[n];
    const NodeDef& node = *lowered.def;
    // No input or output has changed dims since this node's last kernel: that kernel.
    uint64_t* seen = kernel_seen.data() + in_begin[n] + out_begin[n];
    const bool same_inputs = restamp(node.inputs, seen);
    if (restamp(node.outputs, seen + node.inputs.size()) && same_inputs && last_kernel[n] != nullptr) return last_kernel[n];
    last_kernel[n] = nullptr;
    thread_local Dims key;  // scratch, as infer_shape's
    key.clear();
    for (uint32_t id : node.inputs) {
      if (id == kNone) {
        key.push_back(-1);
        continue;
      }
      key.push_back(static_cast<int64_t>(tensors[id].dims.size()));
      key.insert(key.end(), tensors[id].dims.begin(), tensors[id].dims.end());
    }
    for (uint32_t id : node.outputs) {
      key.push_back(static_cast<int64_t>(tensors[id].dims.size()));
      key.insert(key.end(), tensors[id].dims.begin(), tensors[id].dims.end());
    }
    for (CachedKernel& cached : kernels[n])
      if (cached.key == key) return last_kernel[n] = cached.kernel.get();
    const kernels::NodeSpec spec = node_spec(
        plan(), node, [&](uint32_t id) -> const Dims& { return tensors[id].dims; }, [&](uint32_t id) { return tensors[id].addr; });
    std::string why;
    std::unique_ptr<kernels::Kernel> kernel = kernels::build_kernel(lowered.factory, spec, &why);
    if (kernel == nullptr) {
      set_error(ACL_ERROR_GE_SHAPE_INVALID, where(n) + ": no kernel for these shapes: " + (why.empty() ? "unsupported" : why));
      return nullptr;
    }
    if (kernels[n].size() >= kKernelsPerNode) kernels[n].erase(kernels[n].begin());  // the oldest shape
    kernels[n].push_back({key, std::move(kernel)});
    return last_kernel[n] = kernels[n].back().kernel.get();
  }

  void launch(uint32_t n) {
    if (!ok()) return;
    const LoweredNode& lowered = graph->nodes[n];
    const NodeDef& node = *lowered.def;
    if (lowered.control != ControlOp::None) {  // the results that are model outputs into their buffers
      for (size_t o = 0; o < node.outputs.size(); ++o)
        if (plan().tensors[node.outputs[o]].kind == TensorKind::Output && results[n][o].addr != nullptr)
          std::memcpy(tensors[node.outputs[o]].addr, results[n][o].addr, flow_bytes(results[n][o]));
      release_flow(*this, &results[n]);
      return;
    }
    if (lowered.view) return;
    kernels::Kernel* kernel = kernel_for(n);
    if (kernel == nullptr) return;
    const void** ins = in_ptrs.data() + in_begin[n];
    void** outs = out_ptrs.data() + out_begin[n];
    for (size_t i = 0; i < node.inputs.size(); ++i) ins[i] = node.inputs[i] == kNone ? nullptr : tensors[node.inputs[i]].addr;
    for (size_t o = 0; o < node.outputs.size(); ++o) outs[o] = tensors[node.outputs[o]].addr;
    kernel->run(ins, outs);
    if (!lowered.round_outputs) return;
    for (size_t o = 0; o < node.outputs.size(); ++o) {  // ROUND_OUTPUTS_FP16, as the v1 path
      const uint32_t id = node.outputs[o];
      if (plan().tensors[id].dtype != ACL_FLOAT) continue;
      int64_t count = 1;
      for (int64_t d : tensors[id].dims) count *= d;
      kernels::round_fp16_inplace(static_cast<float*>(outs[o]), count);
    }
  }

  void free_inputs(uint32_t n) {
    for (uint32_t id : graph->nodes[n].frees) {
      TensorState& s = tensors[id];
      if (!s.owned) continue;
      recycled.keep(s.addr, s.bytes, [&](void* addr) { release(addr); });
      live_bytes.fetch_sub(s.counted, std::memory_order_relaxed);
      s.owned = false;
      s.addr = nullptr;
    }
  }

  // After a failed run: every allocation of this run, the outputs the runtime allocated included.
  void discard() {
    recycled.flush([&](void* addr) { release(addr); });
    for (std::vector<FlowTensor>& r : results) release_flow(*this, &r);
    for (TensorState& s : tensors) {  // what no FreeInputs step returned
      if (s.owned) release(s.addr);
      s.owned = false;
    }
    for (size_t o = 0; o < plan().output_ids.size(); ++o)
      if (allocated[o] != 0) release(tensors[plan().output_ids[o]].addr);
  }
};

namespace {

extern "C" void ascendsim_v2_infer_shape(void* c) {
  auto* ctx = static_cast<StepContext*>(c);
  ctx->inst->infer_shape(ctx->node);
}
extern "C" void ascendsim_v2_alloc_outputs(void* c) {
  auto* ctx = static_cast<StepContext*>(c);
  ctx->inst->alloc_outputs(ctx->node);
}
extern "C" void ascendsim_v2_launch(void* c) {
  auto* ctx = static_cast<StepContext*>(c);
  ctx->inst->launch(ctx->node);
}
extern "C" void ascendsim_v2_free_inputs(void* c) {
  auto* ctx = static_cast<StepContext*>(c);
  ctx->inst->free_inputs(ctx->node);
}

constexpr ascendsim_node_func kStepFuncs[kSteps] = {ascendsim_v2_infer_shape, ascendsim_v2_alloc_outputs,
                                                     ascendsim_v2_launch, ascendsim_v2_free_inputs};
constexpr const char* kStepNames[kSteps] = {"infer-shape", "alloc", "launch", "free"};

extern "C" void ascendsim_v2_timed_step(void* c) {
  auto* timed = static_cast<TimedStep*>(c);
  const auto t0 = std::chrono::steady_clock::now();
  timed->step.func(timed->step.context);
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
  timed->ns->fetch_add(static_cast<uint64_t>(ns), std::memory_order_relaxed);
}

extern "C" void ascendsim_v2_traced_step(void* c) {
  auto* traced = static_cast<TracedStep*>(c);
  const uint64_t start = prof::now_ns();
  traced->step.func(traced->step.context);
  // A Launch is the node's kernel, category "node" as on the v1 path (the op summary counts it per op type).
  static constexpr const char* kCategories[kSteps] = {"infer-shape", "alloc", "node", "free"};
  prof::span(traced->track, traced->node->def->name, kCategories[traced->kind], start, prof::now_ns(), {}, {},
             "op_type", traced->node->def->op_type);
}

// The Init graph's node: the weights into device memory. The DeInit graph's: the instances (their kernel
// caches), then the weights. Their context is the model.
extern "C" void ascendsim_v2_init_weights(void* c) { static_cast<HybridModel*>(c)->init_weights(); }
extern "C" void ascendsim_v2_deinit_instances(void* c) { static_cast<HybridModel*>(c)->deinit_instances(); }
extern "C" void ascendsim_v2_deinit_weights(void* c) { static_cast<HybridModel*>(c)->deinit_weights(); }

}  // namespace

HybridModel::~HybridModel() {
  ascendsim_execute_nodes(deinit_graph_.data(), deinit_graph_.size());
  if (timing_) report_timing();
}

// At unload, on stderr: every node's mean time per execution, slowest first, split into its four steps.
void HybridModel::report_timing() const {
  const uint64_t runs = runs_.load();
  if (runs == 0) return;
  std::vector<std::pair<uint64_t, size_t>> order;
  uint64_t total = 0;
  const LoweredGraph& g = graphs_[0];  // (a control-flow node's time includes its subgraphs')
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    uint64_t sum = 0;
    for (uint32_t s = 0; s < kSteps; ++s) sum += step_ns_[n * kSteps + s].load();
    order.emplace_back(sum, n);
    total += sum;
  }
  std::sort(order.rbegin(), order.rend());
  std::fprintf(stderr, "[ascendsim] model '%s' (v2, %s executor): %llu executions, %.3f ms of step time per "
               "execution in %zu nodes (%zu steps)\n", name_.c_str(), executor_name(executor_),
               static_cast<unsigned long long>(runs), total / 1e6 / runs, g.nodes.size(), g.steps);
  const MemoryPeaks peaks = memory_peaks();
  std::fprintf(stderr, "  peak feature-map memory: %llu bytes in the latest execution, %llu at most\n",
               static_cast<unsigned long long>(peaks.last), static_cast<unsigned long long>(peaks.max));
  for (const auto& [ns, n] : order) {
    std::string steps;
    for (uint32_t s = 0; s < kSteps; ++s) {
      char part[64];
      std::snprintf(part, sizeof part, "%s%s %.1f", s ? ", " : "", kStepNames[s], step_ns_[n * kSteps + s].load() / 1e3 / runs);
      steps += part;
    }
    std::fprintf(stderr, "  %10.3f us  %5.1f%%  %s (%s): %s us\n", ns / 1e3 / runs, total ? 100.0 * ns / total : 0.0,
                 g.nodes[n].def->name.c_str(), g.nodes[n].def->op_type.c_str(), steps.c_str());
  }
}

aclError HybridModel::lower(uint32_t index, const char* api) {
  LoweredGraph& g = graphs_[index];
  g.plan = index == 0 ? &def_->plans[0] : &def_->subgraphs[index - 1];
  const PlanDef& p = *g.plan;
  std::vector<uint32_t> producer(p.tensors.size(), kNone);  // per tensor: the node writing it
  std::vector<uint32_t> last_reader(p.tensors.size(), kNone);  // of the bytes: per alias root, below
  std::vector<std::vector<uint32_t>> readers(p.tensors.size());
  // A view's output is its input's bytes: the tensor holding them (the root) lives until the last reader of
  // any of its views.
  std::vector<uint32_t> root(p.tensors.size());
  for (uint32_t id = 0; id < p.tensors.size(); ++id) root[id] = id;
  g.nodes.resize(p.nodes.size());
  for (uint32_t n = 0; n < p.nodes.size(); ++n) {
    const NodeDef& node = p.nodes[n];
    LoweredNode& lowered = g.nodes[n];
    lowered.def = &node;
    lowered.round_outputs = (node.flags & kernels::kRoundOutputsFp16) != 0;
    lowered.control = control_op(node);
    lowered.view = (node.flags & kernels::kView) != 0 && !lowered.round_outputs && !node.inputs.empty() &&
                   node.inputs[0] != kNone && node.outputs.size() == 1 &&
                   p.tensors[node.outputs[0]].kind == TensorKind::FeatureMap &&
                   p.tensors[node.outputs[0]].dtype == p.tensors[node.inputs[0]].dtype;
    lowered.shape_fn = find_shape_fn(node.op_type, node.domain);
    lowered.factory = kernels::find_kernel(node.op_type, node.domain);
    const std::string op = node.domain.empty() ? node.op_type : node.domain + "::" + node.op_type;
    const std::string control = lowered.control == ControlOp::None ? std::string()
                                : check_control_node(lowered.control, node, def_->subgraphs, index);
    if (!control.empty())
      return fail(ACL_ERROR_GE_EXEC_LOAD_KERNEL_PARTITION_FAILED, "%s: model '%s': node '%s' (%s): %s", api,
                  name_.c_str(), node.name.c_str(), op.c_str(), control.c_str());
    if (lowered.control != ControlOp::None) {
      // (runs its subgraphs: no shape function or kernel of its own)
    } else if (lowered.shape_fn == nullptr)
      return fail(ACL_ERROR_GE_EXEC_LOAD_KERNEL_PARTITION_FAILED, "%s: model '%s': node '%s' (%s): no shape function "
                  "for op type '%s' in ascendsim's dynamic-shape runtime", api, name_.c_str(), node.name.c_str(),
                  op.c_str(), op.c_str());
    else if (lowered.factory == nullptr)
      return fail(ACL_ERROR_GE_EXEC_LOAD_KERNEL_PARTITION_FAILED, "%s: model '%s': node '%s' (%s): no kernel for op "
                  "type '%s' in ascendsim", api, name_.c_str(), node.name.c_str(), op.c_str(), op.c_str());
    // The order the steps rely on (the parser does not check it: a v1 arena makes any order addressable).
    for (uint32_t id : node.inputs)
      if (id != kNone && (p.tensors[id].kind == TensorKind::FeatureMap || p.tensors[id].kind == TensorKind::Output) &&
          producer[id] == kNone)
        return fail(ACL_ERROR_GE_EXEC_LOAD_KERNEL_PARTITION_FAILED, "%s: model '%s': node '%s' (%s) reads tensor '%s' "
                    "before any node writes it", api, name_.c_str(), node.name.c_str(), op.c_str(),
                    p.tensors[id].name.c_str());
    for (uint32_t id : node.outputs) {
      if (producer[id] != kNone)
        return fail(ACL_ERROR_GE_EXEC_LOAD_KERNEL_PARTITION_FAILED, "%s: model '%s': tensor '%s' is written by nodes "
                    "'%s' and '%s'", api, name_.c_str(), p.tensors[id].name.c_str(), p.nodes[producer[id]].name.c_str(),
                    node.name.c_str());
      producer[id] = n;
    }
    for (uint32_t id : node.inputs)
      if (id != kNone) {
        const uint32_t r = root[id];
        last_reader[r] = n;
        if (readers[r].empty() || readers[r].back() != n) readers[r].push_back(n);
      }
    if (lowered.view) root[node.outputs[0]] = root[node.inputs[0]];
  }
  // A feature map is freed after its last reader; one nobody reads (an unused optional output) after its producer.
  for (uint32_t id = 0; id < p.tensors.size(); ++id) {
    if (p.tensors[id].kind != TensorKind::FeatureMap || root[id] != id) continue;
    const uint32_t last = last_reader[id] != kNone ? last_reader[id] : producer[id];
    if (last != kNone) g.nodes[last].frees.push_back(id);
  }

  // The Main graph's edges, step s of node n being step n * kSteps + s.
  const size_t steps = p.nodes.size() * kSteps;
  std::vector<std::vector<uint32_t>> succ(steps);
  for (uint32_t n = 0; n < p.nodes.size(); ++n) {
    const uint32_t base = n * kSteps;
    succ[base].push_back(base + 1);
    succ[base + 1].push_back(base + 2);
    for (uint32_t id : p.nodes[n].inputs)
      if (id != kNone && producer[id] != kNone) succ[producer[id] * kSteps + 2].push_back(base);
    for (uint32_t id : g.nodes[n].frees)
      for (uint32_t reader : readers[id]) succ[reader * kSteps + 2].push_back(base + 3);
    succ[base + 2].push_back(base + 3);  // a FreeInputs always follows its own Launch
  }
  g.in_degree.assign(steps, 0);
  g.succ_begin.assign(steps + 1, 0);
  g.succ.clear();
  for (size_t s = 0; s < steps; ++s) {
    std::sort(succ[s].begin(), succ[s].end());
    succ[s].erase(std::unique(succ[s].begin(), succ[s].end()), succ[s].end());
    for (uint32_t t : succ[s]) {
      ++g.in_degree[t];
      g.succ.push_back(t);
    }
    g.succ_begin[s + 1] = static_cast<uint32_t>(g.succ.size());
  }
  g.roots.clear();
  for (uint32_t s = 0; s < steps; ++s)
    if (g.in_degree[s] == 0) g.roots.push_back(s);
  g.steps = steps;
  return ACL_SUCCESS;
}

aclError HybridModel::load(const ModelDef& def, Device* device, ExecutorKind executor, void* user_weights,
                           const char* api, std::unique_ptr<HybridModel>* out) {
  std::unique_ptr<HybridModel> model(new HybridModel());
  model->def_ = &def;
  model->device_ = device;
  model->executor_ = executor;
  model->name_ = def.name;
  model->api_ = api;
  model->weights_ = user_weights;
  model->owns_weights_ = user_weights == nullptr;
  const char* timing_env = std::getenv("ASCENDSIM_NODE_TIMING");
  model->timing_ = timing_env != nullptr && timing_env[0] == '1';
  model->graphs_.resize(1 + def.subgraphs.size());
  for (uint32_t g = 0; g < model->graphs_.size(); ++g)
    if (aclError ret = model->lower(g, api)) return ret;
  model->step_ns_ = std::vector<std::atomic<uint64_t>>(model->graphs_[0].steps);
  model->init_graph_ = {{ascendsim_v2_init_weights, model.get()}};
  model->deinit_graph_ = {{ascendsim_v2_deinit_instances, model.get()}, {ascendsim_v2_deinit_weights, model.get()}};
  ascendsim_execute_nodes(model->init_graph_.data(), model->init_graph_.size());
  model->init_graph_.clear();  // GE drops the Init graph once it ran
  model->init_graph_.shrink_to_fit();
  if (def.weight_size > 0 && model->weights_ == nullptr)
    return fail(ACL_ERROR_GE_MEMORY_ALLOCATION, "%s: model '%s': no device memory for the weights (%llu bytes)", api,
                def.name.c_str(), static_cast<unsigned long long>(def.weight_size));
  log(kLogDebug, "GE", "%s: model '%s': v2 runtime, %zu nodes lowered into %zu Main steps, %zu subgraphs, %s "
      "executor", api, def.name.c_str(), model->graphs_[0].nodes.size(), model->graphs_[0].steps, def.subgraphs.size(),
      executor_name(executor));
  *out = std::move(model);
  return ACL_SUCCESS;
}

void HybridModel::init_weights() {
  if (def_->weight_size == 0) return;
  if (owns_weights_) weights_ = device_->memory().allocate(def_->weight_size, 0, 0, api_);
  if (weights_ != nullptr) std::memcpy(weights_, def_->weights, def_->weight_size);
}

void HybridModel::deinit_instances() {
  std::lock_guard<std::mutex> lock(pool_mutex_);
  idle_.clear();
  instances_.clear();
}

void HybridModel::deinit_weights() {
  if (weights_ != nullptr && owns_weights_) device_->memory().release(weights_, "aclmdlUnload");
  weights_ = nullptr;
}

HybridInstance* HybridModel::acquire() {
  std::lock_guard<std::mutex> lock(pool_mutex_);
  if (!idle_.empty()) {
    HybridInstance* inst = idle_.back();
    idle_.pop_back();
    return inst;
  }
  instances_.push_back(make_instance(0));
  return instances_.back().get();
}

std::unique_ptr<HybridInstance> HybridModel::make_instance(uint32_t index) {
  const LoweredGraph& g = graphs_[index];
  const PlanDef& p = *g.plan;
  auto inst = std::make_unique<HybridInstance>();
  inst->model = this;
  inst->graph = &g;
  inst->child = index != 0;
  inst->tensors.resize(p.tensors.size());
  for (uint32_t id = 0; id < p.tensors.size(); ++id)
    if (p.tensors[id].kind == TensorKind::Weight) {
      inst->tensors[id].dims = p.tensors[id].dims;
      inst->tensors[id].addr = static_cast<uint8_t*>(weights_) + p.tensors[id].offset;
    }
  inst->kernels.resize(p.nodes.size());
  inst->results.resize(p.nodes.size());
  inst->child_sizes.assign(p.output_ids.size(), 0);
  inst->contexts.resize(g.steps);
  inst->main.resize(g.steps);
  for (uint32_t n = 0; n < p.nodes.size(); ++n) {
    inst->in_begin.push_back(inst->in_ptrs.size());
    inst->out_begin.push_back(inst->out_ptrs.size());
    inst->in_ptrs.resize(inst->in_ptrs.size() + p.nodes[n].inputs.size());
    inst->out_ptrs.resize(inst->out_ptrs.size() + p.nodes[n].outputs.size());
    for (uint32_t s = 0; s < kSteps; ++s) {
      inst->contexts[n * kSteps + s] = {inst.get(), n};
      inst->main[n * kSteps + s] = {kStepFuncs[s], &inst->contexts[n * kSteps + s]};
    }
  }
  if (timing_ && index == 0) {  // every step through its timing wrapper (the contexts above stay where they are)
    inst->timed.resize(g.steps);
    for (size_t s = 0; s < g.steps; ++s) {
      inst->timed[s] = {inst->main[s], &step_ns_[s]};
      inst->main[s] = {ascendsim_v2_timed_step, &inst->timed[s]};
    }
  }
  inst->pending.resize(g.steps);
  inst->queue.resize(g.steps);
  inst->shape_seen.assign(inst->in_ptrs.size(), kNever);
  inst->kernel_seen.assign(inst->in_ptrs.size() + inst->out_ptrs.size(), kNever);
  inst->last_kernel.assign(p.nodes.size(), nullptr);
  inst->reads_values.assign(p.nodes.size(), 0);
  return inst;
}

// A subgraph runs on the executor kind of the model (under `parallel` a subgraph run from a pool thread finds
// the pool busy and runs on that thread, see parallel_executor.h).
void HybridModel::run_main(HybridInstance* inst, const ascendsim_exec_node* main) {
  const LoweredGraph& g = *inst->graph;
  const ascendsim_exec_graph graph{main, g.steps, g.in_degree.data(), g.succ_begin.data(), g.succ.data(),
                                   g.roots.data(), g.roots.size()};
  switch (executor_) {
    case ExecutorKind::Sequential: ascendsim_execute_nodes(main, g.steps); break;
    case ExecutorKind::Topological: ascendsim_execute_topological(&graph, inst->pending.data(), inst->queue.data()); break;
    case ExecutorKind::ParallelTopological:
      execute_parallel_topological(graph, inst->pending.data(), inst->queue.data());
      break;
  }
}

void HybridModel::release(HybridInstance* instance) {
  std::lock_guard<std::mutex> lock(pool_mutex_);
  idle_.push_back(instance);
}

aclError HybridModel::execute(const std::vector<Dims>& input_dims, const void* const* inputs, void** outputs,
                              const size_t* output_sizes, uintptr_t stream, std::vector<Dims>* output_dims,
                              std::vector<size_t>* allocated, const char* api) {
  HybridInstance* inst = acquire();
  const LoweredGraph& g = graphs_[0];
  const PlanDef& p = *g.plan;
  // Bind: the inputs' dims and buffers, the outputs' buffers, the stream.
  for (size_t i = 0; i < p.input_ids.size(); ++i) {
    TensorState& s = inst->tensors[p.input_ids[i]];
    inst->set_dims(s, input_dims[i]);
    s.addr = const_cast<void*>(inputs[i]);
  }
  for (size_t o = 0; o < p.output_ids.size(); ++o) inst->tensors[p.output_ids[o]].addr = outputs[o];
  inst->stream = stream;
  inst->output_sizes = output_sizes;
  inst->allocated.assign(p.output_ids.size(), 0);
  inst->failed = false;
  inst->error = ACL_SUCCESS;
  inst->live_bytes = 0;
  inst->peak_bytes = 0;
  // Profiling: this execution runs every step through its tracing wrapper, and is one span itself.
  std::vector<TracedStep> traced;
  std::vector<ascendsim_exec_node> traced_main;
  const ascendsim_exec_node* main = inst->main.data();
  uint32_t track = 0;
  const uint64_t start = prof::now_ns();
  if (prof::on(prof::kTaskTime) && prof::device_on(device_->id())) {
    track = prof::current_track();  // inside the stream task of an asynchronous execution
    if (track == 0) track = prof::named_track(device_->id(), "model '" + name_ + "'");
    traced.resize(g.steps);
    traced_main.resize(g.steps);
    for (size_t s = 0; s < g.steps; ++s) {
      traced[s] = {inst->main[s], &g.nodes[s / kSteps], track, static_cast<uint32_t>(s % kSteps)};
      traced_main[s] = {ascendsim_v2_traced_step, &traced[s]};
    }
    main = traced_main.data();
  }
  run_main(inst, main);
  inst->recycled.flush([&](void* addr) { inst->release(addr); });
  if (track != 0) prof::span(track, name_, "model", start, prof::now_ns(), {"plan", 0});
  if (timing_) runs_.fetch_add(1, std::memory_order_relaxed);
  aclError ret = ACL_SUCCESS;
  if (inst->failed) {
    inst->discard();
    ret = fail(inst->error, "%s: model '%s': %s", api, name_.c_str(), inst->message.c_str());
  } else {
    output_dims->resize(p.output_ids.size());
    for (size_t o = 0; o < p.output_ids.size(); ++o) (*output_dims)[o] = inst->tensors[p.output_ids[o]].dims;
    *allocated = inst->allocated;
    for (size_t o = 0; o < p.output_ids.size(); ++o)
      if (inst->allocated[o] != 0) outputs[o] = inst->tensors[p.output_ids[o]].addr;
    std::lock_guard<std::mutex> lock(pool_mutex_);
    last_dims_ = *output_dims;
    peaks_.last = inst->peak_bytes.load(std::memory_order_relaxed);
    peaks_.max = std::max(peaks_.max, peaks_.last);
    ++peaks_.executions;
  }
  release(inst);
  return ret;
}

HybridModel::MemoryPeaks HybridModel::memory_peaks() const {
  std::lock_guard<std::mutex> lock(pool_mutex_);
  return peaks_;
}

bool HybridModel::last_output_dims(size_t index, Dims* dims) const {
  std::lock_guard<std::mutex> lock(pool_mutex_);
  if (index >= last_dims_.size()) return false;
  *dims = last_dims_[index];
  return true;
}

}  // namespace ascendsim::model
