// The `_core` extension module: every AscendCL C function of libascendcl.so under its C name (see
// fastcall.h for the out-parameter rule), plus the few helpers pyACL has that C does not. Both Python
// faces (`ascendcl` with the C names, `acl` with pyACL's names) re-export these same function objects.
#include <pybind11/pybind11.h>

#include "python/module.h"

namespace ascendsim::python {

void add_function(PyObject* module, PyMethodDef* def) {
  PyObject* self = PyUnicode_InternFromString(def->ml_name);
  PyObject* module_name = PyModule_GetNameObject(module);
  PyObject* function = PyCFunction_NewEx(def, self, module_name);
  Py_XDECREF(self);
  Py_XDECREF(module_name);
  if (function == nullptr || PyModule_AddObject(module, def->ml_name, function) < 0) {
    Py_XDECREF(function);
    throw pybind11::error_already_set();
  }
}

}  // namespace ascendsim::python

PYBIND11_MODULE(_core, m) {
  using namespace ascendsim::python;
  m.doc() = "ascendsim runtime: the AscendCL C API under its C names (out-parameters returned before ret)";
  PyObject* module = m.ptr();
  bind_runtime_functions(module);
  bind_tensor_desc_functions(module);
  bind_not_supported_functions(module);
  bind_mdl_functions(module);
  bind_op_functions(module);
  bind_op_exec_functions(module);
  bind_callbacks(module);
  bind_pyacl_helpers(module);
  bind_extensions(module);
  bind_prof_functions(module);
  bind_ops_library_functions(module);
}
