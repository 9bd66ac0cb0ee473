// The registry of live tensor descriptions and the element count of a shape (see tensor_desc.h).
#include "runtime/tensor_desc.h"

#include <new>

#include "core/error.h"
#include "core/handle_registry.h"

namespace ascendsim {
namespace {

HandleRegistry<aclTensorDesc>& tensor_descs() {
  static auto* registry = new HandleRegistry<aclTensorDesc>("tensor desc");  // outlives late destructors at exit
  return *registry;
}

}  // namespace

bool element_count(const std::vector<int64_t>& dims, size_t* count) {
  size_t product = 1;
  for (const int64_t dim : dims) {
    if (dim < 0 || __builtin_mul_overflow(product, static_cast<size_t>(dim), &product)) return false;
  }
  *count = product;
  return true;
}

size_t data_type_size(int32_t dtype) {
  switch (dtype) {
    case ACL_STRING: case ACL_DT_UNDEFINED: return 0;
    case ACL_BOOL: case ACL_INT8: case ACL_UINT8: case ACL_INT4: case ACL_UINT1: return 1;
    case ACL_FLOAT16: case ACL_INT16: case ACL_UINT16: case ACL_BF16: return 2;
    case ACL_FLOAT: case ACL_INT32: case ACL_UINT32: case ACL_COMPLEX32: return 4;
    case ACL_COMPLEX128: return 16;
    default: return 8;  // INT64, UINT64, DOUBLE, COMPLEX64 and unknown values, as the real runtime
  }
}

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? "," : "") + std::to_string(dims[i]);
  return text + "]";
}

std::shared_ptr<aclTensorDesc> new_tensor_desc(TensorDescData data, bool dataset_owned, const char* api) {
  try {
    auto desc = std::make_shared<aclTensorDesc>();
    desc->data = std::move(data);
    desc->dataset_owned = dataset_owned;
    tensor_descs().add(desc, api, dataset_owned ? Owner::kRuntime : Owner::kUser);
    return desc;
  } catch (const std::bad_alloc&) {
    fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory for a tensor description", api);
    return nullptr;
  }
}

std::shared_ptr<aclTensorDesc> find_tensor_desc(const aclTensorDesc* handle, const char* api, const char* arg) {
  if (handle == nullptr) {
    fail(ACL_ERROR_INVALID_PARAM, "%s: argument '%s' is NULL", api, arg);
    return nullptr;
  }
  auto desc = tensor_descs().find(handle);
  if (!desc)
    fail(ACL_ERROR_INVALID_PARAM, "%s: %s %p is not a live tensor description (destroyed or never created)", api,
         arg, static_cast<const void*>(handle));
  return desc;
}

void retire_tensor_desc(const aclTensorDesc* handle) { tensor_descs().remove(handle); }

}  // namespace ascendsim
