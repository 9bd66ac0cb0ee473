// acl_base.h tensor descriptions: create/destroy, getters, the origin/storage format and shape setters,
// ranges, name, const data, placement, format translation (the object: runtime/tensor_desc.h).
//
// Semantics follow CANN's implementation, quirks included, because programs depend on them:
//  - the getters read the *origin* format and dims; aclSetTensorFormat/Shape (and the deprecated
//    StorageFormat/StorageShape) set the *storage* ones, aclSetTensorOriginFormat/Shape the origin ones;
//  - the format setters accept a NULL desc and succeed; the shape setters treat a negative numDims as 0
//    but need a non-NULL dims; aclCreateTensorDesc refuses numDims < 0 and NULL dims with numDims > 0;
//  - no dtype, format, placement or rank limit is checked when describing (checked where a description is
//    used); the element count of a shape with a negative dim (dynamic, unknown rank) is 0;
//  - aclGetTensorDescNumDims of dims {-2} is ACL_UNKNOWN_RANK; aclGetTensorDescDim fails with -1;
//  - aclTransTensorDescFormat gives the derived dims with the *source* format (as CANN does).
// Beyond CANN, a destroyed or foreign handle is refused with ACL_ERROR_INVALID_PARAM instead of crashing, and
// the range counts are bounded (see set_ranges).
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "core/error.h"
#include "runtime/format_shape.h"
#include "runtime/tensor_desc.h"

using namespace ascendsim;

namespace {

// Runs fn(data) on the live description `handle` under its lock; false (error recorded) if not live.
// (Inside fn, __func__ is "operator()": callers pass their own name as `api`.)
template <typename Fn>
bool with_desc(const aclTensorDesc* handle, const char* api, Fn&& fn) {
  const auto desc = find_tensor_desc(handle, api, "desc");
  if (!desc) return false;
  std::lock_guard<std::mutex> lock(desc->mutex);
  fn(desc->data);
  return true;
}

// The shape setters: numDims < 0 sets no dims (CANN); `dims` must not be NULL.
aclError set_dims(aclTensorDesc* handle, int num_dims, const int64_t* dims, std::vector<int64_t> TensorDescData::*field,
                  const char* api) {
  if (handle == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'desc' is NULL", api);
  if (dims == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'dims' is NULL", api);
  std::vector<int64_t> values;
  try {
    if (num_dims > 0) values.assign(dims, dims + num_dims);
  } catch (const std::bad_alloc&) {
    return fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory for %d dims", api, num_dims);
  }
  if (!with_desc(handle, api, [&](TensorDescData& d) { d.*field = std::move(values); })) return ACL_ERROR_INVALID_PARAM;
  return ACL_SUCCESS;
}

// The format setters: a NULL desc is accepted and ignored, as CANN does.
// Any int is stored as given (CANN), as an int (core/enum_value.h).
aclError set_format(aclTensorDesc* handle, aclFormat format, int32_t TensorDescData::*field, const char* api) {
  if (handle == nullptr) return ACL_SUCCESS;
  const int32_t value = enum_int(format);
  if (!with_desc(handle, api, [&](TensorDescData& d) { d.*field = value; })) return ACL_ERROR_INVALID_PARAM;
  return ACL_SUCCESS;
}

// The most ranges a description takes, checked before anything is allocated (a huge count made reserve()
// throw out of the C API). A shape range has one pair per dim: at most ACL_MAX_DIM_CNT, the most a model's
// aclmdlIODimsRange reports. A value range has one pair per element of a (shape-like) value: 2^20 pairs,
// 16 MiB, is far above any such value. (CANN has no bound and would read `count` pairs.)
constexpr size_t kMaxShapeRanges = ACL_MAX_DIM_CNT;
constexpr size_t kMaxValueRanges = size_t{1} << 20;

// aclSetTensorShapeRange / aclSetTensorValueRange: `count` {min, max} pairs replace the previous ones.
aclError set_ranges(aclTensorDesc* handle, size_t count, const int64_t (*ranges)[2], size_t max_count,
                    std::vector<std::pair<int64_t, int64_t>> TensorDescData::*field, const char* count_name,
                    const char* what, const char* api) {
  if (handle == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'desc' is NULL", api);
  if (count > max_count)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: %s %zu is larger than %zu, the most ranges a description takes", api,
                count_name, count, max_count);
  if (count > 0 && ranges == nullptr)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: argument '%s' is NULL with a count of %zu", api, what, count);
  std::vector<std::pair<int64_t, int64_t>> values;
  try {
    values.reserve(count);
    for (size_t i = 0; i < count; ++i) values.emplace_back(ranges[i][0], ranges[i][1]);
  } catch (const std::bad_alloc&) {
    return fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory for %zu ranges", api, count);
  }
  if (!with_desc(handle, api, [&](TensorDescData& d) { d.*field = std::move(values); })) return ACL_ERROR_INVALID_PARAM;
  return ACL_SUCCESS;
}

}  // namespace

aclTensorDesc* aclCreateTensorDesc(aclDataType dataType, int numDims, const int64_t* dims, aclFormat format) {
  if (numDims < 0) {
    fail(ACL_ERROR_INVALID_PARAM, "%s: numDims %d is negative", __func__, numDims);
    return nullptr;
  }
  if (numDims > 0 && dims == nullptr) {
    fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'dims' is NULL with numDims %d", __func__, numDims);
    return nullptr;
  }
  TensorDescData data;
  data.dtype = enum_int(dataType);  // any int, stored as given (core/enum_value.h)
  data.format = enum_int(format);
  try {
    data.dims.assign(dims, dims + numDims);
  } catch (const std::bad_alloc&) {
    fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory for %d dims", __func__, numDims);
    return nullptr;
  }
  return new_tensor_desc(std::move(data), false, __func__).get();
}

void aclDestroyTensorDesc(const aclTensorDesc* desc) {
  if (desc == nullptr) return;  // as delete of NULL
  const auto live = find_tensor_desc(desc, __func__, "desc");
  if (!live) return;
  if (live->dataset_owned) {
    fail(ACL_ERROR_INVALID_PARAM, "%s: desc %p belongs to a dataset (aclmdlGetDatasetTensorDesc); it is destroyed "
         "with the dataset", __func__, static_cast<const void*>(desc));
    return;
  }
  retire_tensor_desc(desc);
}

aclError aclSetTensorShapeRange(aclTensorDesc* desc, size_t dimsCount, int64_t dimsRange[][ACL_TENSOR_SHAPE_RANGE_NUM]) {
  return set_ranges(desc, dimsCount, dimsRange, kMaxShapeRanges, &TensorDescData::shape_range, "dimsCount",
                    "dimsRange", __func__);
}

aclError aclSetTensorValueRange(aclTensorDesc* desc, size_t valueCount,
                                int64_t valueRange[][ACL_TENSOR_VALUE_RANGE_NUM]) {
  return set_ranges(desc, valueCount, valueRange, kMaxValueRanges, &TensorDescData::value_range, "valueCount",
                    "valueRange", __func__);
}

aclDataType aclGetTensorDescType(const aclTensorDesc* desc) {
  int32_t type = ACL_DT_UNDEFINED;
  with_desc(desc, __func__, [&](const TensorDescData& d) { type = d.dtype; });
  return enum_from_int<aclDataType>(type);  // as given, even a value the enum does not have (CANN)
}

aclFormat aclGetTensorDescFormat(const aclTensorDesc* desc) {
  int32_t format = ACL_FORMAT_UNDEFINED;
  with_desc(desc, __func__, [&](const TensorDescData& d) { format = d.format; });
  return enum_from_int<aclFormat>(format);
}

size_t aclGetTensorDescElementCount(const aclTensorDesc* desc) {
  const char* const api = __func__;
  size_t count = 0;
  with_desc(desc, api, [&](const TensorDescData& d) {
    if (!element_count(d.dims, &count))
      fail(ACL_ERROR_INVALID_PARAM, "%s: dims %s have no element count (a dim is dynamic or too large)", api,
           dims_text(d.dims).c_str());
  });
  return count;
}

size_t aclGetTensorDescSize(const aclTensorDesc* desc) {
  const char* const api = __func__;
  size_t size = 0;
  with_desc(desc, api, [&](const TensorDescData& d) {
    size_t count = 0;
    const size_t item = data_type_size(d.dtype);
    if (!element_count(d.dims, &count))
      fail(ACL_ERROR_INVALID_PARAM, "%s: dims %s have no size (a dim is dynamic or too large)", api,
           dims_text(d.dims).c_str());
    else if (item == 0)
      fail(ACL_ERROR_INVALID_PARAM, "%s: data type %d has no element size", api, d.dtype);
    else if (__builtin_mul_overflow(count, item, &size))
      fail(ACL_ERROR_INVALID_PARAM, "%s: %zu elements of %zu bytes overflow size_t", api, count, item);
  });
  return size;
}

size_t aclGetTensorDescNumDims(const aclTensorDesc* desc) {
  size_t count = 0;
  with_desc(desc, __func__, [&](const TensorDescData& d) {
    count = !d.dims.empty() && d.dims[0] == kUnknownRank ? static_cast<size_t>(ACL_UNKNOWN_RANK) : d.dims.size();
  });
  return count;
}

int64_t aclGetTensorDescDim(const aclTensorDesc* desc, size_t index) {
  const char* const api = __func__;
  int64_t dim = -1;
  with_desc(desc, api, [&](const TensorDescData& d) {
    if (index < d.dims.size())
      dim = d.dims[index];
    else
      fail(ACL_ERROR_INVALID_PARAM, "%s: index %zu is out of range: the description has %zu dims", api, index,
           d.dims.size());
  });
  return dim;
}

aclError aclGetTensorDescDimV2(const aclTensorDesc* desc, size_t index, int64_t* dimSize) {
  const char* const api = __func__;
  ASCENDSIM_CHECK_NOT_NULL(desc);
  ASCENDSIM_CHECK_NOT_NULL(dimSize);
  aclError ret = ACL_ERROR_INVALID_PARAM;
  with_desc(desc, api, [&](const TensorDescData& d) {
    if (index < d.dims.size()) {
      *dimSize = d.dims[index];
      ret = ACL_SUCCESS;
    } else {
      fail(ret, "%s: index %zu is out of range: the description has %zu dims", api, index, d.dims.size());
    }
  });
  return ret;
}

aclError aclGetTensorDescDimRange(const aclTensorDesc* desc, size_t index, size_t dimRangeNum, int64_t* dimRange) {
  const char* const api = __func__;
  ASCENDSIM_CHECK_NOT_NULL(desc);
  ASCENDSIM_CHECK_NOT_NULL(dimRange);
  aclError ret = ACL_ERROR_INVALID_PARAM;
  with_desc(desc, api, [&](const TensorDescData& d) {
    if (index >= d.shape_range.size()) {
      fail(ret, "%s: index %zu is out of range: the description has %zu dim ranges (aclSetTensorShapeRange)",
           api, index, d.shape_range.size());
    } else if (dimRangeNum < ACL_TENSOR_SHAPE_RANGE_NUM) {
      fail(ret, "%s: dimRangeNum %zu is smaller than %d", api, dimRangeNum, ACL_TENSOR_SHAPE_RANGE_NUM);
    } else {
      dimRange[0] = d.shape_range[index].first;
      dimRange[1] = d.shape_range[index].second;
      ret = ACL_SUCCESS;
    }
  });
  return ret;
}

void aclSetTensorDescName(aclTensorDesc* desc, const char* name) {
  std::string value = name != nullptr ? name : "";  // NULL clears the name (CANN)
  with_desc(desc, __func__, [&](TensorDescData& d) { d.name = std::move(value); });
}

const char* aclGetTensorDescName(aclTensorDesc* desc) {
  const char* name = "";
  // The text stays valid until the name changes or the description is destroyed, as in CANN.
  with_desc(desc, __func__, [&](const TensorDescData& d) { name = d.name.c_str(); });
  return name;
}

aclError aclTransTensorDescFormat(const aclTensorDesc* srcDesc, aclFormat dstFormat, aclTensorDesc** dstDesc) {
  ASCENDSIM_CHECK_NOT_NULL(srcDesc);
  ASCENDSIM_CHECK_NOT_NULL(dstDesc);
  const auto src = find_tensor_desc(srcDesc, __func__, "srcDesc");
  if (!src) return ACL_ERROR_INVALID_PARAM;
  TensorDescData result;
  std::vector<int64_t> dims;
  {
    std::lock_guard<std::mutex> lock(src->mutex);
    result.dtype = src->data.dtype;
    result.format = src->data.format;  // CANN keeps the source format on the new description
    dims = src->data.dims;
  }
  if (aclError ret = trans_shape(result.format, dims, result.dtype, enum_int(dstFormat), __func__, &result.dims))
    return ret;
  const auto created = new_tensor_desc(std::move(result), false, __func__);
  if (!created) return ACL_ERROR_BAD_ALLOC;
  *dstDesc = created.get();
  return ACL_SUCCESS;
}

aclError aclSetTensorStorageFormat(aclTensorDesc* desc, aclFormat format) {
  return set_format(desc, format, &TensorDescData::storage_format, __func__);
}

aclError aclSetTensorStorageShape(aclTensorDesc* desc, int numDims, const int64_t* dims) {
  return set_dims(desc, numDims, dims, &TensorDescData::storage_dims, __func__);
}

aclError aclSetTensorFormat(aclTensorDesc* desc, aclFormat format) {
  return set_format(desc, format, &TensorDescData::storage_format, __func__);
}

aclError aclSetTensorShape(aclTensorDesc* desc, int numDims, const int64_t* dims) {
  return set_dims(desc, numDims, dims, &TensorDescData::storage_dims, __func__);
}

aclError aclSetTensorOriginFormat(aclTensorDesc* desc, aclFormat format) {
  return set_format(desc, format, &TensorDescData::format, __func__);
}

aclError aclSetTensorOriginShape(aclTensorDesc* desc, int numDims, const int64_t* dims) {
  return set_dims(desc, numDims, dims, &TensorDescData::dims, __func__);
}

// Arrays of descriptions exist only in CANN's aclmdlCreateAndGetOpDesc (not supported): every description
// here is an array of one.
aclTensorDesc* aclGetTensorDescByIndex(aclTensorDesc* desc, size_t index) {
  if (!find_tensor_desc(desc, __func__, "desc")) return nullptr;
  if (index == 0) return desc;
  fail(ACL_ERROR_INVALID_PARAM, "%s: index %zu is out of range: desc %p is a single description", __func__, index,
       static_cast<const void*>(desc));
  return nullptr;
}

// Only descriptions made by aclmdlCreateAndGetOpDesc (not supported) carry a device address.
void* aclGetTensorDescAddress(const aclTensorDesc* desc) {
  find_tensor_desc(desc, __func__, "desc");
  return nullptr;
}

aclError aclSetTensorDynamicInput(aclTensorDesc* desc, const char* dynamicInputName) {
  ASCENDSIM_CHECK_NOT_NULL(desc);
  ASCENDSIM_CHECK_NOT_NULL(dynamicInputName);
  std::string value = dynamicInputName;
  if (!with_desc(desc, __func__, [&](TensorDescData& d) { d.dynamic_input_name = std::move(value); }))
    return ACL_ERROR_INVALID_PARAM;
  return ACL_SUCCESS;
}

aclError aclSetTensorConst(aclTensorDesc* desc, void* dataBuffer, size_t length) {
  ASCENDSIM_CHECK_NOT_NULL(desc);
  ASCENDSIM_CHECK_NOT_NULL(dataBuffer);
  if (length == 0) return fail(ACL_ERROR_INVALID_PARAM, "%s: length is 0", __func__);
  std::shared_ptr<const std::vector<uint8_t>> values;
  try {
    const auto* bytes = static_cast<const uint8_t*>(dataBuffer);
    values = std::make_shared<const std::vector<uint8_t>>(bytes, bytes + length);
  } catch (const std::bad_alloc&) {
    return fail(ACL_ERROR_BAD_ALLOC, "%s: length %zu: out of host memory for the copy of the const data", __func__,
                length);
  } catch (const std::length_error&) {  // a length no vector can hold (SIZE_MAX): must not leave the C API
    return fail(ACL_ERROR_BAD_ALLOC, "%s: length %zu: more than the host can allocate for the const data", __func__,
                length);
  }
  if (!with_desc(desc, __func__, [&](TensorDescData& d) { d.const_data = std::move(values); }))
    return ACL_ERROR_INVALID_PARAM;
  return ACL_SUCCESS;
}

aclError aclSetTensorPlaceMent(aclTensorDesc* desc, aclMemType memType) {
  ASCENDSIM_CHECK_NOT_NULL(desc);
  const int32_t placement = enum_int(memType);  // any int, stored as given (checked where it is used)
  if (!with_desc(desc, __func__, [&](TensorDescData& d) { d.placement = placement; })) return ACL_ERROR_INVALID_PARAM;
  return ACL_SUCCESS;
}
