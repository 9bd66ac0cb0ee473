// What pyACL offers beyond the C API's shape: acl.init's optional argument, get_recent_err_msg's None,
// and the acl.util functions that need C:
// bytes_to_ptr (no copy), ptr_to_bytes (one copy) and start_thread / stop_thread (a real pthread,
// whose id is what aclrtSubscribeReport expects, running a Python callable).
#include <pthread.h>

#include <map>
#include <string>

#include "python/module.h"
#include "python/pyacl_args.h"

namespace ascendsim::python {
namespace {

// acl.init([config_path]) -> ret
PyObject* pyacl_init(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs > 1) {
    PyErr_Format(PyExc_TypeError, "%U() takes at most 1 argument (%zd given)", self, nargs);
    return nullptr;
  }
  const char* path = "";
  if (nargs == 1 && !parse_input(self, 0, args[0], &path)) return nullptr;
  return PyLong_FromLong(aclInit(path));
}

// acl.get_recent_err_msg() -> str, or None when nothing failed since the last read
PyObject* pyacl_get_recent_err_msg(PyObject*, PyObject* const*, Py_ssize_t) {
  const char* message = aclGetRecentErrMsg();
  if (message == nullptr || message[0] == '\0') Py_RETURN_NONE;
  return PyUnicode_DecodeUTF8(message, static_cast<Py_ssize_t>(std::char_traits<char>::length(message)), "replace");
}

// acl.util.bytes_to_ptr(b) -> address of the bytes object's own buffer (no copy; keep b alive)
PyObject* bytes_to_ptr(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 1) {
    PyErr_Format(PyExc_TypeError, "%U() takes 1 argument (%zd given)", self, nargs);
    return nullptr;
  }
  if (!PyBytes_Check(args[0])) {
    PyErr_Format(PyExc_ValueError, "%U() needs a bytes object, not %.100s", self, Py_TYPE(args[0])->tp_name);
    return nullptr;
  }
  return PyLong_FromVoidPtr(PyBytes_AS_STRING(args[0]));
}

// acl.util.ptr_to_bytes(ptr, size) -> a bytes object holding a copy of the size bytes at ptr
PyObject* ptr_to_bytes(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2) {
    PyErr_Format(PyExc_TypeError, "%U() takes 2 arguments (%zd given)", self, nargs);
    return nullptr;
  }
  const void* address = nullptr;  // not `const char*`: that would parse a str
  size_t size = 0;
  if (!parse_input(self, 0, args[0], &address) || !parse_input(self, 1, args[1], &size)) return nullptr;
  if (size > static_cast<size_t>(PY_SSIZE_T_MAX) || (address == nullptr && size != 0)) {
    // pyACL would hand back uninitialised bytes for address 0; refusing is kinder than garbage.
    PyErr_Format(PyExc_ValueError, "%U(): cannot read %zu bytes at address %llu", self, size,
                 static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(address)));
    return nullptr;
  }
  return PyBytes_FromStringAndSize(size != 0 ? static_cast<const char*>(address) : "",
                                   static_cast<Py_ssize_t>(size));
}

// A thread started by start_thread; reachable by its id until stop_thread joins it. Guarded by the GIL.
// The thread drops its callable and argument as soon as the callable returns (as pyACL does), so a
// thread that is never joined does not keep them, and whatever they reference, alive.
struct PythonThread {
  PyObject* function;
  PyObject* argument;  // null: call function()
  std::string error;   // what the function raised, if it did
};
std::map<uint64_t, PythonThread*> python_threads;

// Prints the pending exception's traceback (as pyACL does) and returns its repr, clearing it.
std::string take_exception() {
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  PyErr_NormalizeException(&type, &value, &traceback);
  if (value != nullptr && traceback != nullptr) PyException_SetTraceback(value, traceback);
#if PY_VERSION_HEX >= 0x030C0000
  if (value != nullptr) PyErr_DisplayException(value);
#else
  if (type != nullptr) PyErr_Display(type, value, traceback);
#endif
  PyObject* text = value != nullptr ? PyObject_Repr(value) : nullptr;
  const char* utf8 = text != nullptr ? PyUnicode_AsUTF8(text) : nullptr;
  std::string error = utf8 != nullptr ? utf8 : "unknown error";
  PyErr_Clear();
  Py_XDECREF(text);
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(traceback);
  return error;
}

void* run_python_thread(void* raw) {
  auto* thread = static_cast<PythonThread*>(raw);
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject* result = thread->argument != nullptr ? PyObject_CallOneArg(thread->function, thread->argument)
                                                 : PyObject_CallNoArgs(thread->function);
  if (result == nullptr) thread->error = take_exception();
  Py_XDECREF(result);
  Py_CLEAR(thread->function);
  Py_CLEAR(thread->argument);
  PyGILState_Release(gil);
  return nullptr;
}

// acl.util.start_thread(fn, args) -> (thread_id, ret)
PyObject* start_thread(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2) {
    PyErr_Format(PyExc_TypeError, "%U() takes 2 arguments (%zd given)", self, nargs);
    return nullptr;
  }
  if (!PyCallable_Check(args[0])) return type_error(self, 0, "callable", args[0]), nullptr;
  auto* thread = new PythonThread{args[0], args[1] == Py_None ? nullptr : args[1], {}};
  Py_INCREF(thread->function);
  Py_XINCREF(thread->argument);
  pthread_t id{};
  if (pthread_create(&id, nullptr, &run_python_thread, thread) != 0) {
    Py_DECREF(thread->function);
    Py_XDECREF(thread->argument);
    delete thread;
    return Py_BuildValue("(Ki)", 0ULL, static_cast<int>(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL));
  }
  const auto key = static_cast<uint64_t>(id);
  python_threads[key] = thread;
  return Py_BuildValue("(Ki)", static_cast<unsigned long long>(key), static_cast<int>(ACL_SUCCESS));
}

// acl.util.stop_thread(thread_id) -> ret; joins the thread, raising RuntimeError if its function raised
PyObject* stop_thread(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 1) {
    PyErr_Format(PyExc_TypeError, "%U() takes 1 argument (%zd given)", self, nargs);
    return nullptr;
  }
  uint64_t key = 0;
  if (!parse_input(self, 0, args[0], &key)) return nullptr;
  auto found = python_threads.find(key);
  if (found == python_threads.end()) return PyLong_FromLong(ACL_ERROR_INVALID_PARAM);
  PythonThread* thread = found->second;
  python_threads.erase(found);
  Py_BEGIN_ALLOW_THREADS pthread_join(static_cast<pthread_t>(key), nullptr);
  Py_END_ALLOW_THREADS
  const std::string error = thread->error;
  delete thread;
  if (!error.empty()) {
    PyErr_Format(PyExc_RuntimeError, "the thread's function raised %s", error.c_str());
    return nullptr;
  }
  return PyLong_FromLong(ACL_SUCCESS);
}

PyMethodDef pyacl_functions[] = {
    fastcall_def("pyacl_init", &pyacl_init),
    fastcall_def("pyacl_get_recent_err_msg", &pyacl_get_recent_err_msg),
    fastcall_def("bytes_to_ptr", &bytes_to_ptr),
    fastcall_def("ptr_to_bytes", &ptr_to_bytes),
    fastcall_def("start_thread", &start_thread),
    fastcall_def("stop_thread", &stop_thread),
};

}  // namespace

void bind_pyacl_helpers(PyObject* module) {
  for (PyMethodDef& def : pyacl_functions) add_function(module, &def);
}

}  // namespace ascendsim::python
