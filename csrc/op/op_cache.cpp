// Registered operator signatures and the compiled-kernel cache (see op_cache.h).
#include "op/op_cache.h"

#include <atomic>
#include <cstdio>
#include <list>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/log.h"
#include "op/op_settings.h"

namespace ascendsim::op {
namespace {

void put_dims(std::string* key, const std::vector<int64_t>& dims) {
  *key += '[';
  for (int64_t d : dims) *key += std::to_string(d) + ',';
  *key += ']';
}

// Exact text of a float (hexadecimal: two values never print alike).
void put_float(std::string* key, double f) {
  char text[40];
  std::snprintf(text, sizeof(text), "%a,", f);
  *key += text;
}

void put_attr(std::string* key, const kernels::AttrValue& v) {
  using T = kernels::AttrValue::Type;
  *key += std::to_string(static_cast<int>(v.type)) + ':';
  switch (v.type) {
    case T::Int: *key += std::to_string(v.i); break;
    case T::Float: put_float(key, v.f); break;
    case T::String: *key += std::to_string(v.s.size()) + '"' + v.s; break;
    case T::Ints: put_dims(key, v.ints); break;
    case T::Floats: for (double f : v.floats) put_float(key, f); break;
    case T::Strings: for (const auto& s : v.strings) *key += std::to_string(s.size()) + '"' + s; break;
    case T::IntLists: for (const auto& l : v.int_lists) put_dims(key, l); break;
    default: break;  // tensors and dicts are not single-operator attributes
  }
  *key += ';';
}

// A registered signature matches a call when everything but the dims is equal and each dim is equal or,
// for a dynamic dim, within its range; an unknown-rank tensor accepts any shape.
bool dims_match(const OpTensor& model, const OpTensor& call) {
  if (model.dims.size() == 1 && model.dims[0] == -2) return true;
  if (model.dims.size() != call.dims.size()) return false;
  for (size_t k = 0; k < model.dims.size(); ++k) {
    if (model.dims[k] >= 0) {
      if (call.dims[k] >= 0 && call.dims[k] != model.dims[k]) return false;
      continue;
    }
    if (call.dims[k] < 0 || k >= model.ranges.size()) continue;  // no range: any size
    const auto [lo, hi] = model.ranges[k];
    if (call.dims[k] < lo || (hi >= 0 && call.dims[k] > hi)) return false;
  }
  return true;
}

bool tensor_match(const OpTensor& model, const OpTensor& call) {
  if (model.absent || call.absent) return model.absent == call.absent;
  return model.dtype == call.dtype && model.format == call.format && dims_match(model, call);
}

bool signature_match(const OpCall& model, const OpCall& call) {
  if (model.inputs.size() != call.inputs.size() || model.outputs.size() != call.outputs.size()) return false;
  for (size_t i = 0; i < model.inputs.size(); ++i)
    if (!tensor_match(model.inputs[i], call.inputs[i])) return false;
  for (size_t i = 0; i < model.outputs.size(); ++i)
    if (!tensor_match(model.outputs[i], call.outputs[i])) return false;
  if (model.attr_types != call.attr_types) return false;
  std::string a, b;
  for (const auto& [name, v] : model.attrs.all()) a += name + '=', put_attr(&a, v);
  for (const auto& [name, v] : call.attrs.all()) b += name + '=', put_attr(&b, v);
  return a == b;
}

struct Registry {
  std::mutex mutex;
  std::map<std::string, std::vector<OpCall>> by_type;  // registered signatures per op type
  size_t count = 0;
  bool cast_truncate = false;
  // The LRU kernel cache: most recently used at the front.
  std::list<std::pair<std::string, std::shared_ptr<CompiledOp>>> lru;
  std::unordered_map<std::string, decltype(lru)::iterator> index;
  std::atomic<uint64_t> hits{0}, misses{0};
};

Registry& registry() {
  static auto* r = new Registry();  // outlives late destructors
  return *r;
}

}  // namespace

std::string signature_key(const OpCall& call, bool with_values) {
  std::string key = call.type + '|';
  for (const OpTensor& t : call.inputs) {
    if (t.absent) {
      key += "-;";
      continue;
    }
    key += std::to_string(t.dtype) + ',' + std::to_string(t.format) + ',' + std::to_string(t.storage_format);
    put_dims(&key, t.dims);
    if (!t.is_static())
      for (const auto& [lo, hi] : t.ranges) key += std::to_string(lo) + '~' + std::to_string(hi) + ',';
    if (with_values && t.values) key += std::to_string(t.values->size()) + '#' + std::string(t.values->begin(), t.values->end());
    key += ';';
  }
  key += '|';
  for (const OpTensor& t : call.outputs) {
    key += std::to_string(t.dtype) + ',' + std::to_string(t.format) + ',' + std::to_string(t.storage_format);
    if (t.is_static()) put_dims(&key, t.dims);
    key += ';';
  }
  key += '|';
  for (const auto& [name, v] : call.attrs.all()) key += name + '=', put_attr(&key, v);
  for (const auto& [name, type] : call.attr_types) key += name + '#' + std::to_string(type) + ';';
  return key;
}

void register_op(const OpCall& sig, const std::string& origin) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto& list = r.by_type[sig.type];
  for (const OpCall& known : list)
    if (signature_key(known, false) == signature_key(sig, false)) return;  // already registered
  list.push_back(sig);
  list.back().api = "";
  ++r.count;
  if (sig.type == "Cast" && sig.attrs.has("truncate")) r.cast_truncate = true;
  log(kLogInfo, "OP", "registered %s operator signature from %s", sig.type.c_str(), origin.c_str());
}

bool cast_has_truncate() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.cast_truncate;
}

bool is_registered(const OpCall& call) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.by_type.find(call.type);
  if (it == r.by_type.end()) return false;
  for (const OpCall& model : it->second)
    if (signature_match(model, call)) return true;
  return false;
}

aclError compiled_op(const CannOp& op, const OpCall& call, std::shared_ptr<CompiledOp>* out) {
  Registry& r = registry();
  const std::string key = signature_key(call, true);
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.index.find(key);
    if (it != r.index.end()) {
      r.lru.splice(r.lru.begin(), r.lru, it->second);
      *out = it->second->second;
      ++r.hits;
      log(kLogDebug, "OP", "%s: operator cache hit for %s", call.api, call.type.c_str());
      return ACL_SUCCESS;
    }
  }
  // Built outside the lock: another thread may build the same signature meanwhile; the first one stored wins.
  std::shared_ptr<CompiledOp> built;
  if (aclError ret = CompiledOp::build(op, call, &built)) return ret;
  std::lock_guard<std::mutex> lock(r.mutex);
  ++r.misses;
  log(kLogDebug, "OP", "%s: operator cache miss for %s: kernel %s built", call.api, call.type.c_str(),
      built->lowering().kernel.c_str());
  auto it = r.index.find(key);
  if (it != r.index.end()) {
    *out = it->second->second;
    return ACL_SUCCESS;
  }
  r.lru.emplace_front(key, built);
  r.index[key] = r.lru.begin();
  const uint64_t limit = OpSettings::instance().max_op_queue_num();
  while (r.lru.size() > limit) {
    r.index.erase(r.lru.back().first);
    r.lru.pop_back();
  }
  *out = std::move(built);
  return ACL_SUCCESS;
}

CacheStats cache_stats() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return {r.hits.load(), r.misses.load(), r.lru.size(), r.count};
}

}  // namespace ascendsim::op
