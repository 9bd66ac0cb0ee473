// acl_op.h operator attributes: aclopCreateAttr / aclopDestroyAttr and the aclopSetAttr* setters.
//
// Behaviour follows GE's aclopAttr (hicann/ge api/acl/acl_op_executor/types): a NULL attr or attrName, a
// NULL string value, or a NULL list while the count says there are values -> ACL_ERROR_INVALID_PARAM;
// aclopSetAttrListString and aclopSetAttrListListInt also refuse NULL elements (every string, every inner
// list pointer, even of an empty inner list) and ListListInt a NULL numValues even for zero lists. A name set
// again is overwritten whatever its type. A negative count sets an empty list, as CANN does (logged as a
// warning here). Bools are normalised (non-zero is true); data types are stored as given, unchecked, as GE
// does. Beyond CANN, which would follow the pointer, a destroyed or foreign attr handle is refused.
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "acl/acl_op.h"
#include "core/enum_value.h"
#include "core/error.h"
#include "core/log.h"
#include "op/op_attr.h"

using namespace ascendsim;

namespace {

// The live attribute object that a setter writes to, after the checks every setter shares (attr, then
// attrName); null with the error recorded.
std::shared_ptr<aclopAttr> target(const aclopAttr* attr, const char* attrName, const char* api) {
  if (attr == nullptr) {
    fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'attr' is NULL", api);
    return nullptr;
  }
  auto live = find_op_attr(attr);
  if (!live) {
    fail(ACL_ERROR_INVALID_PARAM, "%s: attr %p is not live (destroyed or never created)", api,
         static_cast<const void*>(attr));
    return nullptr;
  }
  if (attrName == nullptr) {
    fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'attrName' is NULL", api);
    return nullptr;
  }
  return live;
}

aclError set_value(aclopAttr* attr, const char* attrName, OpAttrValue value, const char* api) {
  const auto live = target(attr, attrName, api);
  if (!live) return ACL_ERROR_INVALID_PARAM;
  live->set(attrName, std::move(value));
  return ACL_SUCCESS;
}

// CANN reads a negative count as "no values"; the warning makes the likely mistake visible.
void warn_if_negative(int count, const char* what, const char* attrName, const char* api) {
  if (count < 0)
    log(kLogWarning, "ASCENDCL", "%s: %s %d is negative: attribute '%s' is set to an empty list", api, what, count,
        attrName);
}

// The lists' sizes are ints, so no vector outgrows max_size(); host memory may still run out, which must not
// leave the C API as std::bad_alloc.
aclError out_of_memory(const char* api, const char* count_name, int count) {
  return fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory for the list (%s %d)", api, count_name, count);
}

// One item of a list as stored: a data type as its int (read from the bytes, see core/enum_value.h).
template <typename T, typename In>
T list_item(const In& value) {
  if constexpr (std::is_same_v<T, DataTypeValue>)
    return DataTypeValue{enum_int(value)};
  else
    return static_cast<T>(value);
}

// aclopSetAttrList{Bool,Int,Float,DataType}: `count` values of type In stored as a list of T.
template <typename T, typename In>
aclError set_list(aclopAttr* attr, const char* attrName, int count, const In* values, const char* api) {
  const auto live = target(attr, attrName, api);
  if (!live) return ACL_ERROR_INVALID_PARAM;
  if (count > 0 && values == nullptr)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'values' is NULL but numValues is %d", api, count);
  warn_if_negative(count, "numValues", attrName, api);
  try {
    std::vector<T> list;
    for (int i = 0; i < count; ++i) list.push_back(list_item<T>(values[i]));
    live->set(attrName, std::move(list));
  } catch (const std::bad_alloc&) {
    return out_of_memory(api, "numValues", count);
  }
  return ACL_SUCCESS;
}

// GE's CheckPtrArray: any non-zero count (even a negative one) needs the array, and its first `count`
// pointers must all be set.
template <typename P>
aclError check_pointer_array(int count, const P* const* array, const char* name, const char* api) {
  if (count == 0) return ACL_SUCCESS;
  if (array == nullptr)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: argument '%s' is NULL but its count is %d", api, name, count);
  for (int i = 0; i < count; ++i)
    if (array[i] == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: %s[%d] is NULL", api, name, i);
  return ACL_SUCCESS;
}

}  // namespace

aclopAttr* aclopCreateAttr() {
  aclopAttr* attr = create_op_attr();
  if (attr == nullptr) fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", __func__);
  return attr;
}

void aclopDestroyAttr(const aclopAttr* attr) {
  // NULL is ignored, as `delete nullptr` is in CANN.
  if (attr != nullptr && !destroy_op_attr(attr))
    fail(ACL_ERROR_INVALID_PARAM, "%s: attr %p is not live (destroyed twice or never created)", __func__,
         static_cast<const void*>(attr));
}

aclError aclopSetAttrBool(aclopAttr* attr, const char* attrName, uint8_t attrValue) {
  return set_value(attr, attrName, attrValue != 0, __func__);
}

aclError aclopSetAttrInt(aclopAttr* attr, const char* attrName, int64_t attrValue) {
  return set_value(attr, attrName, attrValue, __func__);
}

aclError aclopSetAttrFloat(aclopAttr* attr, const char* attrName, float attrValue) {
  return set_value(attr, attrName, attrValue, __func__);
}

aclError aclopSetAttrString(aclopAttr* attr, const char* attrName, const char* attrValue) {
  const auto live = target(attr, attrName, __func__);
  if (!live) return ACL_ERROR_INVALID_PARAM;
  ASCENDSIM_CHECK_NOT_NULL(attrValue);
  live->set(attrName, std::string(attrValue));
  return ACL_SUCCESS;
}

aclError aclopSetAttrDataType(aclopAttr* attr, const char* attrName, aclDataType attrValue) {
  return set_value(attr, attrName, DataTypeValue{enum_int(attrValue)}, __func__);
}

aclError aclopSetAttrListDataType(aclopAttr* attr, const char* attrName, int numValues, const aclDataType values[]) {
  return set_list<DataTypeValue>(attr, attrName, numValues, values, __func__);
}

aclError aclopSetAttrListBool(aclopAttr* attr, const char* attrName, int numValues, const uint8_t* values) {
  return set_list<bool>(attr, attrName, numValues, values, __func__);
}

aclError aclopSetAttrListInt(aclopAttr* attr, const char* attrName, int numValues, const int64_t* values) {
  return set_list<int64_t>(attr, attrName, numValues, values, __func__);
}

aclError aclopSetAttrListFloat(aclopAttr* attr, const char* attrName, int numValues, const float* values) {
  return set_list<float>(attr, attrName, numValues, values, __func__);
}

aclError aclopSetAttrListString(aclopAttr* attr, const char* attrName, int numValues, const char** values) {
  const auto live = target(attr, attrName, __func__);
  if (!live) return ACL_ERROR_INVALID_PARAM;
  if (aclError ret = check_pointer_array(numValues, values, "values", __func__)) return ret;
  warn_if_negative(numValues, "numValues", attrName, __func__);
  try {
    std::vector<std::string> list;
    for (int i = 0; i < numValues; ++i) list.emplace_back(values[i]);
    live->set(attrName, std::move(list));
  } catch (const std::bad_alloc&) {
    return out_of_memory(__func__, "numValues", numValues);
  }
  return ACL_SUCCESS;
}

aclError aclopSetAttrListListInt(aclopAttr* attr, const char* attrName, int numLists, const int* numValues,
                                 const int64_t* const values[]) {
  const auto live = target(attr, attrName, __func__);
  if (!live) return ACL_ERROR_INVALID_PARAM;
  ASCENDSIM_CHECK_NOT_NULL(numValues);
  if (aclError ret = check_pointer_array(numLists, values, "values", __func__)) return ret;
  warn_if_negative(numLists, "numLists", attrName, __func__);
  try {
    std::vector<std::vector<int64_t>> lists;
    for (int i = 0; i < numLists; ++i) {
      warn_if_negative(numValues[i], "a numValues entry", attrName, __func__);
      lists.emplace_back(values[i], values[i] + (numValues[i] > 0 ? numValues[i] : 0));
    }
    live->set(attrName, std::move(lists));
  } catch (const std::bad_alloc&) {
    return out_of_memory(__func__, "numLists", numLists);
  }
  return ACL_SUCCESS;
}
