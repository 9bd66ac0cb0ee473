// Operator attributes and single-operator settings in Python. The C names follow the generic rule of
// fastcall.h, except two it cannot express: aclopSetAttrListString takes its `const char**` as an address
// (the rule would read a pointer-to-pointer as an out-parameter), and aclGetCompileopt(opt, length) returns
// (value: str, ret), filling a buffer of `length` bytes as the C function does.
// pyACL's acl.op shapes (python/pyACL/op/op.cpp): the list setters take Python lists (or, deprecated, with
// a warning, numpy arrays) instead of a count and a pointer, and set_attr_data_type /
// set_attr_list_data_type return (attr, ret).
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "acl/acl_op_compiler.h"
#include "python/module.h"
#include "python/pyacl_args.h"

namespace ascendsim::python {
namespace {

#define BIND(name) bind<&name>(module, #name)

// aclopSetAttrListString(attr, attrName, numValues, values: address of a const char* array) -> ret
PyObject* set_attr_list_string_c(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  aclopAttr* attr = nullptr;
  const char* name = nullptr;
  int count = 0;
  const void* values = nullptr;  // not `const char**`: that type is an out-parameter in the generic rule
  if (!check_count(self, nargs, 4) || !parse_input(self, 0, args[0], &attr) || !parse_input(self, 1, args[1], &name) ||
      !parse_input(self, 2, args[2], &count) || !parse_input(self, 3, args[3], &values))
    return nullptr;
  return PyLong_FromLong(aclopSetAttrListString(attr, name, count, static_cast<const char**>(const_cast<void*>(values))));
}

// aclGetCompileopt(opt, length) -> (value, ret); value is "" when ret != 0
PyObject* get_compile_opt(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  int32_t opt = 0;  // an aclCompileOpt, as an int (fastcall.h: wire_t)
  size_t length = 0;
  if (!check_count(self, nargs, 2) || !parse_input(self, 0, args[0], &opt) || !parse_input(self, 1, args[1], &length))
    return nullptr;
  std::unique_ptr<char[]> buffer(new (std::nothrow) char[length > 0 ? length : 1]());
  if (buffer == nullptr) return PyErr_NoMemory();
  const aclError ret = wire_function(&aclGetCompileopt)(opt, buffer.get(), length);
  return Py_BuildValue("(si)", ret == ACL_SUCCESS ? buffer.get() : "", static_cast<int>(ret));
}

// The (attr, name, values) arguments of pyACL's list setters; values parsed by `parse_values`.
template <typename Values, typename Parse>
bool parse_setter(PyObject* self, PyObject* const* args, Py_ssize_t nargs, aclopAttr** attr, const char** name,
                  Values* values, Parse parse_values) {
  return check_count(self, nargs, 3) && parse_input(self, 0, args[0], attr) && parse_input(self, 1, args[1], name) &&
         parse_values(self, 2, args[2], values);
}

// acl.op.set_attr_list_bool / _int / _float(attr, name, values: list) -> ret
template <typename T, aclError (*Set)(aclopAttr*, const char*, int, const T*)>
PyObject* set_attr_list(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  aclopAttr* attr = nullptr;
  const char* name = nullptr;
  std::vector<T> values;
  if (!parse_setter(self, args, nargs, &attr, &name, &values, &parse_list_or_array<T>)) return nullptr;
  return PyLong_FromLong(Set(attr, name, static_cast<int>(values.size()), values.data()));
}

// acl.op.set_attr_list_string(attr, name, values: list of str) -> ret
PyObject* set_attr_list_string(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  aclopAttr* attr = nullptr;
  const char* name = nullptr;
  std::vector<const char*> values;
  if (!parse_setter(self, args, nargs, &attr, &name, &values, &parse_list<const char*>)) return nullptr;
  return PyLong_FromLong(aclopSetAttrListString(attr, name, static_cast<int>(values.size()), values.data()));
}

// acl.op.set_attr_list_list_int(attr, name, values: list of lists (or numpy arrays)) -> ret.
// An empty inner list has no storage and goes down as NULL, which the C function refuses (as with pyACL).
bool parse_int_lists(PyObject* self, Py_ssize_t index, PyObject* arg, std::vector<std::vector<int64_t>>* lists) {
  if (!PyList_Check(arg)) return type_error(self, index, "list", arg);
  lists->resize(static_cast<size_t>(PyList_GET_SIZE(arg)));
  for (size_t i = 0; i < lists->size(); ++i)
    if (!parse_list_or_array(self, index, PyList_GET_ITEM(arg, static_cast<Py_ssize_t>(i)), &(*lists)[i]))
      return false;
  return true;
}

PyObject* set_attr_list_list_int(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  aclopAttr* attr = nullptr;
  const char* name = nullptr;
  std::vector<std::vector<int64_t>> lists;
  if (!parse_setter(self, args, nargs, &attr, &name, &lists, &parse_int_lists)) return nullptr;
  // One spare element, as pyACL allocates: an empty outer list still passes non-NULL arrays.
  std::vector<int> counts(lists.size() + 1);
  std::vector<const int64_t*> pointers(lists.size() + 1);
  for (size_t i = 0; i < lists.size(); ++i) {
    counts[i] = static_cast<int>(lists[i].size());
    pointers[i] = lists[i].empty() ? nullptr : lists[i].data();
  }
  return PyLong_FromLong(
      aclopSetAttrListListInt(attr, name, static_cast<int>(lists.size()), counts.data(), pointers.data()));
}

// acl.op.set_attr_data_type(attr, name, dtype) -> (attr, ret), pyACL's shape
PyObject* set_attr_data_type(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  aclopAttr* attr = nullptr;
  const char* name = nullptr;
  int32_t value = 0;  // an aclDataType, as an int (fastcall.h: wire_t)
  if (!parse_setter(self, args, nargs, &attr, &name, &value, &parse_input<int32_t>)) return nullptr;
  const aclError ret = wire_function(&aclopSetAttrDataType)(attr, name, value);
  return Py_BuildValue("(Ki)", static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(attr)), static_cast<int>(ret));
}

// acl.op.set_attr_list_data_type(attr, name, dtypes: list) -> (attr, ret), pyACL's shape
PyObject* set_attr_list_data_type(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  aclopAttr* attr = nullptr;
  const char* name = nullptr;
  std::vector<int32_t> values;  // aclDataTypes, as ints (fastcall.h: wire_t)
  if (!parse_setter(self, args, nargs, &attr, &name, &values, &parse_list<int32_t>)) return nullptr;
  const aclError ret = wire_function(&aclopSetAttrListDataType)(attr, name, static_cast<int>(values.size()), values.data());
  return Py_BuildValue("(Ki)", static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(attr)), static_cast<int>(ret));
}

PyMethodDef op_functions[] = {
    fastcall_def("aclopSetAttrListString", &set_attr_list_string_c),
    fastcall_def("aclGetCompileopt", &get_compile_opt),
    fastcall_def("pyacl_op_set_attr_list_bool", &set_attr_list<uint8_t, &aclopSetAttrListBool>),
    fastcall_def("pyacl_op_set_attr_list_int", &set_attr_list<int64_t, &aclopSetAttrListInt>),
    fastcall_def("pyacl_op_set_attr_list_float", &set_attr_list<float, &aclopSetAttrListFloat>),
    fastcall_def("pyacl_op_set_attr_list_string", &set_attr_list_string),
    fastcall_def("pyacl_op_set_attr_list_list_int", &set_attr_list_list_int),
    fastcall_def("pyacl_op_set_attr_data_type", &set_attr_data_type),
    fastcall_def("pyacl_op_set_attr_list_data_type", &set_attr_list_data_type),
};

}  // namespace

void bind_op_functions(PyObject* module) {
  BIND(aclopCreateAttr);
  BIND(aclopDestroyAttr);
  BIND(aclopSetAttrBool);
  BIND(aclopSetAttrInt);
  BIND(aclopSetAttrFloat);
  BIND(aclopSetAttrString);
  BIND(aclopSetAttrDataType);
  BIND(aclopSetAttrListBool);
  BIND(aclopSetAttrListInt);
  BIND(aclopSetAttrListFloat);
  BIND(aclopSetAttrListDataType);
  BIND(aclopSetAttrListListInt);
  BIND(aclopSetMaxOpQueueNum);
  BIND(aclSetCompileopt);
  BIND(aclGetCompileoptSize);
  BIND(aclopSetCompileFlag);
  for (PyMethodDef& def : op_functions) add_function(module, &def);
}

}  // namespace ascendsim::python
