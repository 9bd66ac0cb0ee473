// aclopAttr storage and its conversion to the kernels' decoded attributes (see op_attr.h).
#include "op/op_attr.h"

#include <new>
#include <type_traits>
#include <utility>

#include "core/handle_registry.h"

namespace ascendsim {
namespace {

using kernels::AttrValue;

HandleRegistry<aclopAttr>& op_attrs() {
  static auto* registry = new HandleRegistry<aclopAttr>("op attr");  // outlives late destructors at exit
  return *registry;
}

int64_t as_int(bool v) { return v; }
int64_t as_int(int64_t v) { return v; }
int64_t as_int(DataTypeValue v) { return v.raw; }

template <typename T>
std::vector<int64_t> as_ints(const std::vector<T>& values) {
  std::vector<int64_t> ints;
  ints.reserve(values.size());
  for (const T& v : values) ints.push_back(as_int(v));
  return ints;
}

}  // namespace

AttrValue to_kernel_value(const OpAttrValue& value) {
  AttrValue out;
  std::visit(
      [&out](const auto& v) {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, bool> || std::is_same_v<V, int64_t> || std::is_same_v<V, DataTypeValue>) {
          out.type = AttrValue::Type::Int;
          out.i = as_int(v);
        } else if constexpr (std::is_same_v<V, float>) {
          out.type = AttrValue::Type::Float;
          out.f = v;
        } else if constexpr (std::is_same_v<V, std::string>) {
          out.type = AttrValue::Type::String;
          out.s = v;
        } else if constexpr (std::is_same_v<V, std::vector<float>>) {
          out.type = AttrValue::Type::Floats;
          out.floats.assign(v.begin(), v.end());
        } else if constexpr (std::is_same_v<V, std::vector<std::string>>) {
          out.type = AttrValue::Type::Strings;
          out.strings = v;
        } else if constexpr (std::is_same_v<V, std::vector<std::vector<int64_t>>>) {
          out.type = AttrValue::Type::IntLists;
          out.int_lists = v;
        } else {  // lists of bools, ints and data types
          out.type = AttrValue::Type::Ints;
          out.ints = as_ints(v);
        }
      },
      value);
  return out;
}

}  // namespace ascendsim

void aclopAttr::set(const char* name, ascendsim::OpAttrValue value) {
  std::lock_guard<std::mutex> lock(mutex_);
  values_[name] = std::move(value);
}

std::map<std::string, ascendsim::OpAttrValue> aclopAttr::values() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return values_;
}

ascendsim::kernels::Attrs aclopAttr::kernel_attrs() const {
  ascendsim::kernels::Attrs attrs;
  for (const auto& [name, value] : values()) attrs.set(name, ascendsim::to_kernel_value(value));
  return attrs;
}

namespace ascendsim {

aclopAttr* create_op_attr() {
  try {
    return static_cast<aclopAttr*>(op_attrs().add(std::make_shared<aclopAttr>(), "aclopCreateAttr"));
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

std::shared_ptr<aclopAttr> find_op_attr(const aclopAttr* handle) { return op_attrs().find(handle); }

bool destroy_op_attr(const aclopAttr* handle) { return op_attrs().remove(handle) != nullptr; }

}  // namespace ascendsim
