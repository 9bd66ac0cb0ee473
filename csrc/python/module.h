// Registration helpers shared by the binding files of the `_core` extension module.
#pragma once
#include <Python.h>

#include "python/fastcall.h"

namespace ascendsim::python {

// Adds a METH_FASTCALL function `name` to `module`; its `self` is the name, used in error messages.
void add_function(PyObject* module, PyMethodDef* def);

using FastFunction = PyObject* (*)(PyObject*, PyObject* const*, Py_ssize_t);

// A METH_FASTCALL entry for a PyMethodDef table.
inline PyMethodDef fastcall_def(const char* name, FastFunction function) {
  return {name, reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(function)), METH_FASTCALL, nullptr};
}

template <auto Fn, Gil gil = Gil::Keep>
void bind(PyObject* module, const char* name) {
  static PyMethodDef def = fastcall_def(name, &Binding<Fn, gil>::call);
  add_function(module, &def);
}

// The binding files: each adds its functions to the module.
void bind_runtime_functions(PyObject* module);      // the implemented C API, generic rule
void bind_tensor_desc_functions(PyObject* module);  // acl_base.h tensor descriptions (+ pyACL's list forms)
void bind_not_supported_functions(PyObject* module);
void bind_mdl_functions(PyObject* module);          // acl_mdl.h with pyACL's dict shapes (after the stubs)
void bind_op_functions(PyObject* module);           // operator attributes and settings, pyACL's acl.op shapes
void bind_op_exec_functions(PyObject* module);      // single-operator execution (arrays of descs and buffers)
void bind_callbacks(PyObject* module);              // functions that take Python callables
void bind_pyacl_helpers(PyObject* module);          // pyACL-only conveniences (acl.util, acl.init, ...)
void bind_extensions(PyObject* module);             // ascendsim* statistics
void bind_prof_functions(PyObject* module);         // acl_prof.h (acl.prof)
void bind_ops_library_functions(PyObject* module);  // acl/ops: acl_cblas.h (acl.blas), acl_dvpp.h memory

}  // namespace ascendsim::python
