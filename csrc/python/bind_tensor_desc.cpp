// The acl_base.h tensor-description functions in Python. Under their C names they follow the generic
// rule of fastcall.h (dims and ranges are addresses of int64 arrays), except aclGetTensorDescDimRange,
// whose out-parameter is an array: it returns pyACL's (list of dimRangeNum ints, ret), (None, ret) on
// failure. pyACL's own face takes Python lists for dims and ranges (pyacl_* below; pyacl-api.md §2.1):
// create_tensor_desc(dtype, dims, format), set_tensor_shape/origin_shape/storage_shape(desc, dims),
// set_tensor_shape_range/value_range(desc, [[min, max], ...]); anything but a list is a TypeError.
#include <vector>

#include "python/module.h"
#include "python/pyacl_args.h"

// Deprecated functions are bound on purpose: old samples still call them.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace ascendsim::python {
namespace {

// A list of lists of `width` ints (pyACL's ranges, [[min, max], ...]), flattened.
bool parse_list_of_lists(PyObject* self, Py_ssize_t index, PyObject* arg, size_t width, std::vector<int64_t>* out) {
  if (!PyList_Check(arg)) return type_error(self, index, "list", arg);
  const Py_ssize_t count = PyList_GET_SIZE(arg);
  out->assign(static_cast<size_t>(count) * width, 0);
  for (Py_ssize_t i = 0; i < count; ++i) {
    PyObject* item = PyList_GET_ITEM(arg, i);
    if (!PyList_Check(item) || PyList_GET_SIZE(item) != static_cast<Py_ssize_t>(width)) {
      PyErr_Format(PyExc_TypeError, "%U() argument %zd: item %zd must be a list of %zu ints", self, index + 1, i,
                   width);
      return false;
    }
    for (size_t k = 0; k < width; ++k)
      if (!parse_input(self, index, PyList_GET_ITEM(item, static_cast<Py_ssize_t>(k)),
                       &(*out)[static_cast<size_t>(i) * width + k]))
        return false;
  }
  return true;
}

// Never NULL, as pyACL passes it: the C shape setters refuse NULL dims even for an empty shape.
const int64_t* array_of(const std::vector<int64_t>& values) {
  static const int64_t kNone = 0;
  return values.empty() ? &kNone : values.data();
}

// acl.create_tensor_desc(dtype, dims: list, format) -> tensor_desc (0 on failure)
PyObject* pyacl_create_tensor_desc(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  int32_t data_type = 0, format = 0;  // an aclDataType and an aclFormat, as ints (fastcall.h: wire_t)
  std::vector<int64_t> dims;
  if (!check_count(self, nargs, 3) || !parse_input(self, 0, args[0], &data_type) ||
      !parse_list(self, 1, args[1], &dims) || !parse_input(self, 2, args[2], &format))
    return nullptr;
  return PyLong_FromVoidPtr(wire_function(&aclCreateTensorDesc)(data_type, static_cast<int>(dims.size()), array_of(dims), format));
}

// acl.set_tensor_shape / set_tensor_origin_shape / set_tensor_storage_shape(desc, dims: list) -> ret
template <aclError (*Set)(aclTensorDesc*, int, const int64_t*)>
PyObject* pyacl_set_shape(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  aclTensorDesc* desc = nullptr;
  std::vector<int64_t> dims;
  if (!check_count(self, nargs, 2) || !parse_input(self, 0, args[0], &desc) || !parse_list(self, 1, args[1], &dims))
    return nullptr;
  return PyLong_FromLong(Set(desc, static_cast<int>(dims.size()), array_of(dims)));
}

// acl.set_tensor_shape_range / set_tensor_value_range(desc, [[min, max], ...]) -> ret
template <aclError (*Set)(aclTensorDesc*, size_t, int64_t (*)[2])>
PyObject* pyacl_set_ranges(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  aclTensorDesc* desc = nullptr;
  std::vector<int64_t> ranges;
  if (!check_count(self, nargs, 2) || !parse_input(self, 0, args[0], &desc) ||
      !parse_list_of_lists(self, 1, args[1], 2, &ranges))
    return nullptr;
  return PyLong_FromLong(Set(desc, ranges.size() / 2, reinterpret_cast<int64_t(*)[2]>(ranges.data())));
}

// aclGetTensorDescDimRange(desc, index, dimRangeNum) -> ([min, max, 0, ...] (dimRangeNum ints), ret), as
// pyACL's get_tensor_desc_dim_range; (None, ret) on failure, (None, ACL_ERROR_INVALID_PARAM) above 4096.
PyObject* get_dim_range(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  const aclTensorDesc* desc = nullptr;
  size_t index = 0, count = 0;
  if (!check_count(self, nargs, 3) || !parse_input(self, 0, args[0], &desc) || !parse_input(self, 1, args[1], &index) ||
      !parse_input(self, 2, args[2], &count))
    return nullptr;
  constexpr size_t kLimit = 4096;  // pyACL's bound on the list it allocates
  if (count > kLimit) return Py_BuildValue("(Oi)", Py_None, static_cast<int>(ACL_ERROR_INVALID_PARAM));
  std::vector<int64_t> range(count + 1, 0);
  const aclError ret = aclGetTensorDescDimRange(desc, index, count, range.data());
  if (ret != ACL_SUCCESS) return Py_BuildValue("(Oi)", Py_None, ret);
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(count));
  if (list == nullptr) return nullptr;
  for (size_t i = 0; i < count; ++i) PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), PyLong_FromLongLong(range[i]));
  return Py_BuildValue("(Ni)", list, ret);
}

PyMethodDef functions[] = {
    fastcall_def("aclGetTensorDescDimRange", &get_dim_range),
    fastcall_def("pyacl_create_tensor_desc", &pyacl_create_tensor_desc),
    fastcall_def("pyacl_set_tensor_shape", &pyacl_set_shape<&aclSetTensorShape>),
    fastcall_def("pyacl_set_tensor_origin_shape", &pyacl_set_shape<&aclSetTensorOriginShape>),
    fastcall_def("pyacl_set_tensor_storage_shape", &pyacl_set_shape<&aclSetTensorStorageShape>),
    fastcall_def("pyacl_set_tensor_shape_range", &pyacl_set_ranges<&aclSetTensorShapeRange>),
    fastcall_def("pyacl_set_tensor_value_range", &pyacl_set_ranges<&aclSetTensorValueRange>),
};

}  // namespace

#define BIND(name) bind<&name>(module, #name)

void bind_tensor_desc_functions(PyObject* module) {
  BIND(aclCreateTensorDesc);
  BIND(aclDestroyTensorDesc);
  BIND(aclSetTensorShapeRange);
  BIND(aclSetTensorValueRange);
  BIND(aclGetTensorDescType);
  BIND(aclGetTensorDescFormat);
  BIND(aclGetTensorDescSize);
  BIND(aclGetTensorDescElementCount);
  BIND(aclGetTensorDescNumDims);
  BIND(aclGetTensorDescDim);
  BIND(aclGetTensorDescDimV2);
  BIND(aclSetTensorDescName);
  BIND(aclGetTensorDescName);
  BIND(aclTransTensorDescFormat);
  BIND(aclSetTensorStorageFormat);
  BIND(aclSetTensorStorageShape);
  BIND(aclSetTensorFormat);
  BIND(aclSetTensorShape);
  BIND(aclSetTensorOriginFormat);
  BIND(aclSetTensorOriginShape);
  BIND(aclGetTensorDescByIndex);
  BIND(aclGetTensorDescAddress);
  BIND(aclSetTensorDynamicInput);
  BIND(aclSetTensorConst);
  BIND(aclSetTensorPlaceMent);
  for (PyMethodDef& def : functions) add_function(module, &def);
}

}  // namespace ascendsim::python
