// aclTensorDesc: the description of one tensor (acl_base.h), shared by model datasets
// (aclmdlSetDatasetTensorDesc) and the single-operator API (aclop*).
//
// Two shapes live in one description, as in CANN: the *origin* format and dims, which the getters report
// (aclGetTensorDescFormat/Dim/NumDims; set by aclCreateTensorDesc and aclSetTensorOriginFormat/Shape), and
// the *storage* format and dims, the layout the data really has in device memory (aclSetTensorFormat/Shape
// and their deprecated Storage twins). An unset storage format is ACL_FORMAT_UNDEFINED and unset storage
// dims are empty: the data is then laid out as the origin says. A dim of -1 is dynamic; dims {-2} is an
// unknown rank. Ranges, a name, const data (owned copy) and the placement complete the description.
//
// Handles are the addresses of live objects kept in a registry, so that a destroyed or foreign handle is
// answered with an error instead of a crash. Each object has its own mutex: one thread may read a
// description while another changes it. Users of the object (aclop, datasets) call find_tensor_desc and
// read the fields under `mutex`.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl_base.h"
#include "core/enum_value.h"

namespace ascendsim {

constexpr int64_t kUnknownDim = -1;   // a dynamic axis
constexpr int64_t kUnknownRank = -2;  // dims {-2}: the rank itself is unknown

// The data type, formats and placement are the ints the caller gave: CANN describes with any value (checked
// where a description is used), and a value outside its C++ enum's range must not sit in an enum-typed field
// (core/enum_value.h).
struct TensorDescData {
  int32_t dtype = ACL_DT_UNDEFINED;                 // an aclDataType
  int32_t format = ACL_FORMAT_UNDEFINED;            // origin format, an aclFormat
  std::vector<int64_t> dims;                        // origin dims
  int32_t storage_format = ACL_FORMAT_UNDEFINED;    // UNDEFINED: as the origin format
  std::vector<int64_t> storage_dims;                // empty: as the origin dims
  std::vector<std::pair<int64_t, int64_t>> shape_range;  // per dim {min, max}; -1 max = unbounded
  std::vector<std::pair<int64_t, int64_t>> value_range;  // per element {min, max}
  std::string name;
  std::string dynamic_input_name;
  std::shared_ptr<const std::vector<uint8_t>> const_data;  // aclSetTensorConst: a copy of the values
  int32_t placement = ACL_MEMTYPE_DEVICE;  // an aclMemType
};

// aclDataTypeSize of any int: 0 for ACL_STRING and ACL_DT_UNDEFINED, 8 for an unknown value (as CANN's
// default case).
size_t data_type_size(int32_t dtype);

// The number of elements `dims` describe (1 for a scalar); false when a dim is negative (dynamic or
// unknown rank) or the product does not fit size_t.
bool element_count(const std::vector<int64_t>& dims, size_t* count);

// "[1,-1,3]", for messages.
std::string dims_text(const std::vector<int64_t>& dims);

}  // namespace ascendsim

struct aclTensorDesc {
  mutable std::mutex mutex;
  ascendsim::TensorDescData data;
  // A copy a dataset made and owns (aclmdlSetDatasetTensorDesc, the outputs after an execution): the
  // dataset destroys it, aclDestroyTensorDesc refuses to.
  bool dataset_owned = false;
};

namespace ascendsim {

// A new live description holding `data`; null (ACL_ERROR_BAD_ALLOC recorded for `api`) when out of memory.
std::shared_ptr<aclTensorDesc> new_tensor_desc(TensorDescData data, bool dataset_owned, const char* api);

// The live description `handle`; null with ACL_ERROR_INVALID_PARAM recorded, naming `api` and the argument
// `arg`, when it is NULL or not live.
std::shared_ptr<aclTensorDesc> find_tensor_desc(const aclTensorDesc* handle, const char* api, const char* arg);

// Makes `handle` dead: later calls with it fail. The object lives on while a call still holds it.
void retire_tensor_desc(const aclTensorDesc* handle);

}  // namespace ascendsim
