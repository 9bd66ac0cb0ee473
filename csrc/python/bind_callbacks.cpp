// Functions whose C signature takes a function pointer: from Python they take a callable, which a C
// trampoline calls with the GIL held. aclAppLog's printf format is taken as the message itself.
#include <string>

#include "python/module.h"

namespace ascendsim::python {
namespace {

// A Python callback in flight: owns references to the callable and its argument until it has run.
struct PendingCallback {
  PyObject* function;
  PyObject* user_data;
};

void run_python_callback(void* user_data) {
  auto* pending = static_cast<PendingCallback*>(user_data);
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject* result = PyObject_CallOneArg(pending->function, pending->user_data);
  if (result == nullptr) PyErr_WriteUnraisable(pending->function);  // nowhere to raise: print it
  Py_XDECREF(result);
  Py_DECREF(pending->function);
  Py_DECREF(pending->user_data);
  PyGILState_Release(gil);
  delete pending;
}

bool parse_address(PyObject* name, Py_ssize_t index, PyObject* arg, uintptr_t* out) {
  void* pointer = nullptr;
  if (!parse_input(name, index, arg, &pointer)) return false;
  *out = reinterpret_cast<uintptr_t>(pointer);
  return true;
}

// aclrtLaunchCallback(fn, user_data, block_type, stream) -> ret; fn(user_data) runs on the thread that
// subscribed the stream, inside aclrtProcessReport.
PyObject* launch_callback(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 4) {
    PyErr_Format(PyExc_TypeError, "%U() takes 4 arguments (%zd given)", self, nargs);
    return nullptr;
  }
  if (!PyCallable_Check(args[0])) return type_error(self, 0, "callable", args[0]), nullptr;
  int32_t block_type = 0;  // an aclrtCallbackBlockType, as an int (fastcall.h: wire_t)
  uintptr_t stream = 0;
  if (!parse_input(self, 2, args[2], &block_type) || !parse_address(self, 3, args[3], &stream)) return nullptr;
  auto* pending = new PendingCallback{args[0], args[1]};
  Py_INCREF(pending->function);
  Py_INCREF(pending->user_data);
  const aclError ret =
      wire_function(&aclrtLaunchCallback)(&run_python_callback, pending, block_type, reinterpret_cast<aclrtStream>(stream));
  if (ret != ACL_SUCCESS) {
    Py_DECREF(pending->function);
    Py_DECREF(pending->user_data);
    delete pending;
  }
  return PyLong_FromLong(ret);
}

PyObject* exception_callback = nullptr;  // the callable given to aclrtSetExceptionInfoCallback

void run_exception_callback(aclrtExceptionInfo* info) {
  PyGILState_STATE gil = PyGILState_Ensure();
  if (exception_callback != nullptr) {
    PyObject* address = PyLong_FromVoidPtr(info);
    PyObject* result = PyObject_CallOneArg(exception_callback, address);
    if (result == nullptr) PyErr_WriteUnraisable(exception_callback);
    Py_XDECREF(result);
    Py_XDECREF(address);
  }
  PyGILState_Release(gil);
}

// aclrtSetExceptionInfoCallback([fn]) -> ret; fn(info_address) is called when a task fails; no argument
// or None clears it.
PyObject* set_exception_info_callback(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs > 1) {
    PyErr_Format(PyExc_TypeError, "%U() takes at most 1 argument (%zd given)", self, nargs);
    return nullptr;
  }
  PyObject* function = nargs == 1 && args[0] != Py_None ? args[0] : nullptr;
  if (function != nullptr && !PyCallable_Check(function)) return type_error(self, 0, "callable", function), nullptr;
  const aclError ret = aclrtSetExceptionInfoCallback(function != nullptr ? &run_exception_callback : nullptr);
  if (ret == ACL_SUCCESS) {
    Py_XINCREF(function);
    Py_XSETREF(exception_callback, function);
  }
  return PyLong_FromLong(ret);
}

// aclAppLog(level, func, file, line, message) -> None
PyObject* app_log(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 5) {
    PyErr_Format(PyExc_TypeError, "%U() takes 5 arguments (%zd given)", self, nargs);
    return nullptr;
  }
  int32_t level = 0;  // an aclLogLevel, as an int (fastcall.h: wire_t)
  const char* func = nullptr;
  const char* file = nullptr;
  uint32_t line = 0;
  const char* message = nullptr;
  if (!parse_input(self, 0, args[0], &level) || !parse_input(self, 1, args[1], &func) ||
      !parse_input(self, 2, args[2], &file) || !parse_input(self, 3, args[3], &line) ||
      !parse_input(self, 4, args[4], &message))
    return nullptr;
  wire_function(&aclAppLog)(level, func, file, line, "%s", message);
  Py_RETURN_NONE;
}

// aclGetCannAttributeList() -> ([attr, ...], ret)
PyObject* get_cann_attribute_list(PyObject*, PyObject* const*, Py_ssize_t) {
  const aclCannAttr* attributes = nullptr;
  size_t count = 0;
  const aclError ret = aclGetCannAttributeList(&attributes, &count);
  PyObject* list = PyList_New(0);
  for (size_t i = 0; ret == ACL_SUCCESS && list != nullptr && i < count; ++i) {
    PyObject* item = PyLong_FromLong(attributes[i]);
    PyList_Append(list, item);
    Py_XDECREF(item);
  }
  return list != nullptr ? Py_BuildValue("(Ni)", list, ret) : nullptr;
}

PyMethodDef callback_functions[] = {
    fastcall_def("aclrtLaunchCallback", &launch_callback),
    fastcall_def("aclrtSetExceptionInfoCallback", &set_exception_info_callback),
    fastcall_def("aclAppLog", &app_log),
    fastcall_def("aclGetCannAttributeList", &get_cann_attribute_list),
};

}  // namespace

void bind_callbacks(PyObject* module) {
  for (PyMethodDef& def : callback_functions) add_function(module, &def);
}

}  // namespace ascendsim::python
