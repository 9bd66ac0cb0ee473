// aclopAttr: the attributes of a single-operator call, as the aclopSetAttr* functions set them: a map from
// name to a typed value, one value type per setter (bool, int64, float, string, data type, and lists of
// each, plus lists of int64 lists). Setting a name again replaces its value, whatever its earlier type
// (as GE's aclopAttr does). aclopExecute hands the kernels `kernel_attrs()`, the same decoded form the
// model loader gives them (kernels/attrs.h); the mapping is one to one:
//   Bool, Int, DataType -> Int (bools as 0/1, data types as their aclDataType value)
//   Float -> Float · String -> String · ListBool, ListInt, ListDataType -> Ints
//   ListFloat -> Floats · ListString -> Strings · ListListInt -> IntLists
// Live attribute objects are kept in a registry, so a destroyed or foreign handle is refused, not followed.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <variant>
#include <vector>

#include "acl/acl_op.h"
#include "kernels/attrs.h"

namespace ascendsim {

// A data type as the int the caller passed (any int, as CANN keeps it; core/enum_value.h says why not an enum).
struct DataTypeValue {
  int32_t raw;
};

// One value per setter: the alternative says which aclopSetAttr* set it.
using OpAttrValue = std::variant<bool, int64_t, float, std::string, DataTypeValue, std::vector<bool>,
                                 std::vector<int64_t>, std::vector<float>, std::vector<std::string>,
                                 std::vector<DataTypeValue>,
                                 std::vector<std::vector<int64_t>>>;

// The kernels' decoded form of one value (the mapping in the header comment).
kernels::AttrValue to_kernel_value(const OpAttrValue& value);

}  // namespace ascendsim

struct aclopAttr {
  // Thread-safe: one thread may set attributes while another executes an operator with them.
  void set(const char* name, ascendsim::OpAttrValue value);
  std::map<std::string, ascendsim::OpAttrValue> values() const;
  ascendsim::kernels::Attrs kernel_attrs() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, ascendsim::OpAttrValue> values_;
};

namespace ascendsim {

// The registry of live attribute objects: create (null if out of memory), find (null if not live),
// destroy (false if not live).
aclopAttr* create_op_attr();
std::shared_ptr<aclopAttr> find_op_attr(const aclopAttr* handle);
bool destroy_op_attr(const aclopAttr* handle);

}  // namespace ascendsim
