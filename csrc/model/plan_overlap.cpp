// Overlap proof of a plan's feature map. A hostile .om can move an offset so that, say, a Concat input lies
// across its output, and the kernel's memcpy then gets overlapping arguments; the bounds checks of §4.3 do
// not see that. Liveness is taken in the plan's global node order, which every valid plan honours (the
// runtime may always run the tasks in that order, §5), so a correct compiler's plan always passes:
//  1. each FEATURE_MAP tensor lives from its first producer (or first reader) to its last reader;
//  2. tensors that share by design are merged into one class with a union-find: a VIEW node's output 0 at its
//     input 0's offset, and an elementwise in-place result (same offset, same size, the input read for the
//     last time by that node);
//  3. a sweep over the classes in order of birth keeps those still alive; each newcomer's bytes must be
//     disjoint from theirs.
#include "model/plan_overlap.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "kernels/kernel.h"

namespace ascendsim::model {
namespace {

struct Life {
  int64_t first = -1, last = -1;
};

struct Class {
  int64_t first, last;
  uint64_t begin, end;  // bytes [begin, end) of the arena
  uint32_t tensor;      // one member, for the message
};

uint32_t root(std::vector<uint32_t>& parent, uint32_t t) {
  while (parent[t] != t) t = parent[t] = parent[parent[t]];
  return t;
}

}  // namespace

std::string plan_overlap_problem(const PlanDef& plan) {
  const auto count = static_cast<uint32_t>(plan.tensors.size());
  auto in_arena = [&](uint32_t id) {
    return id != kNone && plan.tensors[id].kind == TensorKind::FeatureMap && plan.tensors[id].size > 0;
  };
  std::vector<Life> life(count);
  for (size_t n = 0; n < plan.nodes.size(); ++n) {
    const NodeDef& node = plan.nodes[n];
    for (const auto* ids : {&node.inputs, &node.outputs})
      for (uint32_t id : *ids) {
        if (!in_arena(id)) continue;
        if (life[id].first < 0) life[id].first = static_cast<int64_t>(n);
        life[id].last = static_cast<int64_t>(n);
      }
  }
  std::vector<uint32_t> parent(count);
  std::iota(parent.begin(), parent.end(), 0u);
  for (size_t n = 0; n < plan.nodes.size(); ++n) {
    const NodeDef& node = plan.nodes[n];
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      const uint32_t out = node.outputs[o];
      if (!in_arena(out)) continue;
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        const uint32_t in = node.inputs[i];
        if (!in_arena(in) || plan.tensors[in].offset != plan.tensors[out].offset) continue;
        const bool view = (node.flags & kernels::kView) != 0 && o == 0 && i == 0;
        const bool inplace = plan.tensors[in].size == plan.tensors[out].size && life[in].last == static_cast<int64_t>(n);
        if (view || inplace) parent[root(parent, out)] = root(parent, in);
      }
    }
  }
  std::vector<Class> classes;
  std::vector<int64_t> slot(count, -1);
  for (uint32_t t = 0; t < count; ++t) {
    if (!in_arena(t) || life[t].first < 0) continue;
    const uint32_t r = root(parent, t);
    const TensorDef& tensor = plan.tensors[t];
    if (slot[r] < 0) {
      slot[r] = static_cast<int64_t>(classes.size());
      classes.push_back({life[t].first, life[t].last, tensor.offset, tensor.offset + tensor.size, t});
      continue;
    }
    Class& c = classes[static_cast<size_t>(slot[r])];
    c.first = std::min(c.first, life[t].first);
    c.last = std::max(c.last, life[t].last);
    c.begin = std::min(c.begin, tensor.offset);
    c.end = std::max(c.end, tensor.offset + tensor.size);
  }
  std::sort(classes.begin(), classes.end(), [](const Class& a, const Class& b) { return a.first < b.first; });
  std::vector<const Class*> alive;
  for (const Class& c : classes) {
    alive.erase(std::remove_if(alive.begin(), alive.end(), [&](const Class* a) { return a->last < c.first; }),
                alive.end());
    for (const Class* a : alive)
      if (a->begin < c.end && c.begin < a->end)
        return "feature-map tensors '" + plan.tensors[a->tensor].name + "' (bytes " + std::to_string(a->begin) +
               ".." + std::to_string(a->end) + ", nodes " + std::to_string(a->first) + ".." +
               std::to_string(a->last) + ") and '" + plan.tensors[c.tensor].name + "' (bytes " +
               std::to_string(c.begin) + ".." + std::to_string(c.end) + ", nodes " + std::to_string(c.first) +
               ".." + std::to_string(c.last) + ") overlap while both are live, and neither is a view or an "
               "in-place result of the other";
    alive.push_back(&c);
  }
  return {};
}

}  // namespace ascendsim::model
