// A model execution on the profiler's timeline (prof/profiler.h): one span for the execution and one per
// node, each on the track of the stream that ran it. It plugs into the executor's existing subscriber loop
// (StreamRunner::run with an observer, sequential_executor.h), so the plain loop is untouched and profiling
// off costs the one check LoadedModel::execute makes before choosing the loop.
//
// Tracks: the plan's stream 0 runs on the thread that executes the model, so its nodes nest inside the
// stream task that runs aclmdlExecuteAsync (prof::current_track()), or, for a synchronous aclmdlExecute,
// on the model's own track "model '<name>'"; stream k > 0 has the track "model '<name>' stream k".
// The compiler's EVENT_RECORD / EVENT_WAIT tasks appear as spans "EventRecord" (zero length, at the record)
// / "EventWait" with their event id, so a wait visibly ends after the record it waited for.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "executor/sequential_executor.h"
#include "model/model_def.h"

namespace ascendsim::model {

class ExecutionTrace {
 public:
  // `tasks[s][i]`: the index in plan.tasks of entry i of stream s's node array.
  ExecutionTrace(int device, const std::string& model_name, size_t plan_index, const PlanDef& plan,
                 const std::vector<std::vector<uint32_t>>& tasks);
  ExecutionTrace(const ExecutionTrace&) = delete;
  ExecutionTrace& operator=(const ExecutionTrace&) = delete;
  ~ExecutionTrace();  // records the execution's span

  ascendsim_node_observer observer() const;
  void* const* users() const { return user_pointers_.data(); }

  struct StreamUser {
    uint32_t track;
    const PlanDef* plan;
    const uint32_t* tasks;
  };

 private:
  std::string name_;
  size_t plan_index_;
  uint64_t start_;
  std::vector<StreamUser> users_;
  std::vector<void*> user_pointers_;
};

}  // namespace ascendsim::model
