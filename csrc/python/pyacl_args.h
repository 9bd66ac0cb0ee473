// Argument parsing shared by the hand-written bindings (those the generic rule of fastcall.h cannot express):
// the argument count, and Python lists as C arrays, as pyACL takes dims and attribute values.
#pragma once
#include <vector>

#include "python/fastcall.h"

namespace ascendsim::python {

inline bool check_count(PyObject* self, Py_ssize_t nargs, Py_ssize_t expected) {
  if (nargs == expected) return true;
  PyErr_Format(PyExc_TypeError, "%U() takes %zd argument%s (%zd given)", self, expected, expected == 1 ? "" : "s",
               nargs);
  return false;
}

// A Python list (pyACL requires a list, not any sequence) whose items parse as T by parse_input's rules.
// Strings (T = const char*) stay owned by the list.
template <typename T>
bool parse_list(PyObject* self, Py_ssize_t index, PyObject* arg, std::vector<T>* values) {
  if (!PyList_Check(arg)) return type_error(self, index, "list", arg);
  const Py_ssize_t count = PyList_GET_SIZE(arg);
  values->resize(static_cast<size_t>(count));
  for (Py_ssize_t i = 0; i < count; ++i)
    if (!parse_input(self, index, PyList_GET_ITEM(arg, i), &(*values)[static_cast<size_t>(i)])) return false;
  return true;
}

// A list, or (deprecated in pyACL, with its warning) a numpy array, read by value through tolist().
template <typename T>
bool parse_list_or_array(PyObject* self, Py_ssize_t index, PyObject* arg, std::vector<T>* values) {
  static_assert(!is_string_param<T>(), "strings would be owned by the temporary list");
  if (PyList_Check(arg)) return parse_list(self, index, arg, values);
  if (PyErr_WarnFormat(PyExc_Warning, 1, "argument %zd only support the format of list in the future.", index + 1) < 0)
    return false;
  PyObject* list = PyObject_CheckBuffer(arg) ? PyObject_CallMethod(arg, "tolist", nullptr) : nullptr;
  if (list == nullptr || !PyList_Check(list)) {
    Py_XDECREF(list);
    PyErr_Clear();
    return type_error(self, index, "list or numpy array", arg);
  }
  const bool ok = parse_list(self, index, list, values);
  Py_DECREF(list);
  return ok;
}

}  // namespace ascendsim::python
