// Attrs: a node's attributes as the loader decoded them from the .om attribute blob (docs/om-format.md
// §4.5): ints, floats, strings, lists of them, tensors and dicts (a FusedElementwise `program` is a list of
// dicts); single operators add lists of int lists (aclopSetAttrListListInt, op/op_attr.h). Kernels
// read them by name with a default; they never see the file layout.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl_base.h"

namespace ascendsim::kernels {

class Attrs;

struct AttrTensor {
  aclDataType dtype = ACL_FLOAT;
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;  // C order, little-endian
};

struct AttrValue {
  enum class Type { Int, Float, String, Ints, Floats, Strings, Tensor, Dicts, IntLists };
  Type type = Type::Int;
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<std::string> strings;
  AttrTensor tensor;
  std::vector<std::shared_ptr<const Attrs>> dicts;  // Dicts; a single dict is a list of one (aux == 1)
  std::vector<std::vector<int64_t>> int_lists;        // IntLists (single operators only)
};

class Attrs {
 public:
  void set(const std::string& name, AttrValue value) { values_[name] = std::move(value); }
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  const AttrValue* find(const std::string& name) const {
    auto it = values_.find(name);
    return it == values_.end() ? nullptr : &it->second;
  }
  int64_t get_int(const std::string& name, int64_t fallback) const {
    const AttrValue* v = find(name);
    return v != nullptr && v->type == AttrValue::Type::Int ? v->i : fallback;
  }
  double get_float(const std::string& name, double fallback) const {
    const AttrValue* v = find(name);
    if (v == nullptr) return fallback;
    return v->type == AttrValue::Type::Float ? v->f : v->type == AttrValue::Type::Int ? static_cast<double>(v->i)
                                                                                    : fallback;
  }
  std::string get_string(const std::string& name, const std::string& fallback) const {
    const AttrValue* v = find(name);
    return v != nullptr && v->type == AttrValue::Type::String ? v->s : fallback;
  }
  std::vector<int64_t> get_ints(const std::string& name, std::vector<int64_t> fallback = {}) const {
    const AttrValue* v = find(name);
    return v != nullptr && v->type == AttrValue::Type::Ints ? v->ints : fallback;
  }
  std::vector<double> get_floats(const std::string& name, std::vector<double> fallback = {}) const {
    const AttrValue* v = find(name);
    return v != nullptr && v->type == AttrValue::Type::Floats ? v->floats : fallback;
  }
  const std::map<std::string, AttrValue>& all() const { return values_; }

 private:
  std::map<std::string, AttrValue> values_;
};

}  // namespace ascendsim::kernels
