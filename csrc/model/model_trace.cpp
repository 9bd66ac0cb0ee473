// A model execution's spans (the design is described in model_trace.h).
#include "model/model_trace.h"

#include "prof/profiler.h"

namespace ascendsim::model {
namespace {

void trace_node(void* user, size_t index, uint64_t start_ns, uint64_t end_ns) {
  const auto* u = static_cast<const ExecutionTrace::StreamUser*>(user);
  const TaskDef& task = u->plan->tasks[u->tasks[index]];
  if (task.type == TaskType::Kernel) {
    const NodeDef& node = u->plan->nodes[task.node];
    prof::span(u->track, node.name, "node", start_ns, end_ns, {}, {}, "op_type", node.op_type);
  } else if (task.type == TaskType::EventRecord) {
    // Drawn at its start: the record is published somewhere inside the node, and a waiting stream may
    // finish before this observer runs; the start is the one time known to precede the waiter's end.
    prof::span(u->track, "EventRecord", "event", start_ns, start_ns, {"event", task.arg});
  } else {
    prof::span(u->track, "EventWait", "event", start_ns, end_ns, {"event", task.arg});
  }
}

}  // namespace

ExecutionTrace::ExecutionTrace(int device, const std::string& model_name, size_t plan_index, const PlanDef& plan,
                               const std::vector<std::vector<uint32_t>>& tasks)
    : name_(model_name), plan_index_(plan_index), start_(prof::now_ns()) {
  const std::string track_name = "model '" + model_name + "'";
  for (size_t s = 0; s < tasks.size(); ++s) {
    uint32_t track = s == 0 ? prof::current_track() : 0;
    if (track == 0)
      track = prof::named_track(device, s == 0 ? track_name : track_name + " stream " + std::to_string(s));
    users_.push_back({track, &plan, tasks[s].data()});
  }
  for (StreamUser& u : users_) user_pointers_.push_back(&u);
}

ExecutionTrace::~ExecutionTrace() {
  prof::span(users_.front().track, name_, "model", start_, prof::now_ns(), {"plan", plan_index_});
}

ascendsim_node_observer ExecutionTrace::observer() const { return &trace_node; }

}  // namespace ascendsim::model
