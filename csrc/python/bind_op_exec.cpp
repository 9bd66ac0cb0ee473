// Single-operator execution in Python: the functions whose C signatures take arrays of tensor descriptions
// and data buffers, which the generic rule of fastcall.h cannot express. Arrays are Python lists of handles
// (None: a NULL array, for the error paths).
//   C names (ascendcl): the C argument order, counts included, e.g.
//     aclopExecuteV2(opType, numInputs, inputDesc, inputs, numOutputs, outputDesc, outputs, attr, stream) -> ret
//     aclopCreateHandle(opType, numInputs, inputDesc, numOutputs, outputDesc, attr) -> (handle, ret)
//   pyACL's acl.op shapes (python/pyACL/op/op.cpp): counts are the lists' lengths (the buffer lists' for
//     execute/execute_v2/infer_shape, as pyACL), e.g.
//     execute_v2(op_type, in_descs, in_bufs, out_descs, out_bufs, attr, stream) -> ret
//     create_handle(op_type, in_descs, out_descs, attr) -> (handle, ret)
//     execute_with_handle(handle, in_bufs, out_bufs, stream) -> ret
//     infer_shape(op_type, in_descs, in_bufs, num_outputs, out_descs, attr) -> ret
// aclopCast, aclopCreateHandleForCast and aclopDestroyHandle follow the generic rule.
#include <vector>

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // aclopExecute is deprecated, and bound
#include "acl/acl.h"
#include "acl/acl_op_compiler.h"
#include "ascendsim/ascendsim_ext.h"
#include "python/module.h"
#include "python/pyacl_args.h"

namespace ascendsim::python {

template <>
struct StructOut<ascendsimOpCacheStats> : std::true_type {
  static PyObject* to_python(const ascendsimOpCacheStats& s) {
    return Py_BuildValue("{s:K,s:K,s:K,s:K}", "hits", s.hits, "misses", s.misses, "entries", s.entries, "registered",
                         s.registered);
  }
};

namespace {

// A list of handles as a C array; None as a NULL array.
template <typename T>
struct Ptrs {
  std::vector<T*> items;
  bool null = false;
  T** data() { return null ? nullptr : items.data(); }
  int size() const { return static_cast<int>(items.size()); }
};

template <typename T>
bool parse_ptrs(PyObject* self, Py_ssize_t index, PyObject* arg, Ptrs<T>* out) {
  if (arg == Py_None) {
    out->null = true;
    return true;
  }
  return parse_list(self, index, arg, &out->items);
}

// opPath: a str, or None for NULL.
bool parse_path(PyObject* self, Py_ssize_t index, PyObject* arg, const char** out) {
  if (arg == Py_None) return true;
  return parse_input(self, index, arg, out);
}

using Descs = Ptrs<aclTensorDesc>;
using Bufs = Ptrs<aclDataBuffer>;

PyObject* ret(aclError code) { return PyLong_FromLong(code); }

// aclopExecute / aclopExecuteV2 with the C argument order; pyACL's execute / execute_v2 with its own.
template <bool V2>
PyObject* execute_c(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  const char* type = nullptr;
  int n_in = 0, n_out = 0;
  Descs in_d, out_d;
  Bufs in_b, out_b;
  aclopAttr* attr = nullptr;
  aclrtStream stream = nullptr;
  if (!check_count(self, nargs, 9) || !parse_input(self, 0, args[0], &type) || !parse_input(self, 1, args[1], &n_in) ||
      !parse_ptrs(self, 2, args[2], &in_d) || !parse_ptrs(self, 3, args[3], &in_b) ||
      !parse_input(self, 4, args[4], &n_out) || !parse_ptrs(self, 5, args[5], &out_d) ||
      !parse_ptrs(self, 6, args[6], &out_b) || !parse_input(self, 7, args[7], &attr) ||
      !parse_input(self, 8, args[8], &stream))
    return nullptr;
  if (V2) return ret(aclopExecuteV2(type, n_in, in_d.data(), in_b.data(), n_out, out_d.data(), out_b.data(), attr, stream));
  return ret(aclopExecute(type, n_in, in_d.data(), in_b.data(), n_out, out_d.data(), out_b.data(), attr, stream));
}

template <bool V2>
PyObject* execute_pyacl(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  const char* type = nullptr;
  Descs in_d, out_d;
  Bufs in_b, out_b;
  aclopAttr* attr = nullptr;
  aclrtStream stream = nullptr;
  if (!check_count(self, nargs, 7) || !parse_input(self, 0, args[0], &type) || !parse_list(self, 1, args[1], &in_d.items) ||
      !parse_list(self, 2, args[2], &in_b.items) || !parse_list(self, 3, args[3], &out_d.items) ||
      !parse_list(self, 4, args[4], &out_b.items) || !parse_input(self, 5, args[5], &attr) ||
      !parse_input(self, 6, args[6], &stream))
    return nullptr;
  in_d.items.resize(std::max(in_d.items.size(), in_b.items.size()) + 1);  // pyACL: count = len(bufs), NULL-padded
  out_d.items.resize(std::max(out_d.items.size(), out_b.items.size()) + 1);
  in_b.items.push_back(nullptr);
  out_b.items.push_back(nullptr);
  const int n_in = in_b.size() - 1, n_out = out_b.size() - 1;
  if (V2) return ret(aclopExecuteV2(type, n_in, in_d.data(), in_b.data(), n_out, out_d.data(), out_b.data(), attr, stream));
  return ret(aclopExecute(type, n_in, in_d.data(), in_b.data(), n_out, out_d.data(), out_b.data(), attr, stream));
}

// aclopCompileAndExecute(V2)(opType, numInputs, inputDesc, inputs, numOutputs, outputDesc, outputs, attr,
//                            engineType, compileFlag, opPath, stream) -> ret
template <bool V2>
PyObject* compile_and_execute(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  const char* type = nullptr;
  const char* path = nullptr;
  int n_in = 0, n_out = 0;
  Descs in_d, out_d;
  Bufs in_b, out_b;
  aclopAttr* attr = nullptr;
  int32_t engine = 0, flag = 0;  // an aclopEngineType and an aclopCompileType, as ints (fastcall.h: wire_t)
  aclrtStream stream = nullptr;
  if (!check_count(self, nargs, 12) || !parse_input(self, 0, args[0], &type) || !parse_input(self, 1, args[1], &n_in) ||
      !parse_ptrs(self, 2, args[2], &in_d) || !parse_ptrs(self, 3, args[3], &in_b) ||
      !parse_input(self, 4, args[4], &n_out) || !parse_ptrs(self, 5, args[5], &out_d) ||
      !parse_ptrs(self, 6, args[6], &out_b) || !parse_input(self, 7, args[7], &attr) ||
      !parse_input(self, 8, args[8], &engine) || !parse_input(self, 9, args[9], &flag) ||
      !parse_path(self, 10, args[10], &path) || !parse_input(self, 11, args[11], &stream))
    return nullptr;
  if (V2)
    return ret(wire_function(&aclopCompileAndExecuteV2)(type, n_in, in_d.data(), in_b.data(), n_out, out_d.data(), out_b.data(), attr,
                                        engine, flag, path, stream));
  return ret(wire_function(&aclopCompileAndExecute)(type, n_in, in_d.data(), in_b.data(), n_out, out_d.data(), out_b.data(), attr,
                                    engine, flag, path, stream));
}

// aclopCompile(opType, numInputs, inputDesc, numOutputs, outputDesc, attr, engineType, compileFlag, opPath) -> ret
PyObject* compile_c(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  const char* type = nullptr;
  const char* path = nullptr;
  int n_in = 0, n_out = 0;
  Descs in_d, out_d;
  aclopAttr* attr = nullptr;
  int32_t engine = 0, flag = 0;  // an aclopEngineType and an aclopCompileType, as ints (fastcall.h: wire_t)
  if (!check_count(self, nargs, 9) || !parse_input(self, 0, args[0], &type) || !parse_input(self, 1, args[1], &n_in) ||
      !parse_ptrs(self, 2, args[2], &in_d) || !parse_input(self, 3, args[3], &n_out) ||
      !parse_ptrs(self, 4, args[4], &out_d) || !parse_input(self, 5, args[5], &attr) ||
      !parse_input(self, 6, args[6], &engine) || !parse_input(self, 7, args[7], &flag) ||
      !parse_path(self, 8, args[8], &path))
    return nullptr;
  return ret(wire_function(&aclopCompile)(type, n_in, in_d.data(), n_out, out_d.data(), attr, engine, flag, path));
}

// The (opType, inputDesc, outputDesc, attr) family: aclopCreateHandle -> (handle, ret), aclopUpdateParams -> ret;
// with_counts: the C form (counts before each list), else pyACL's (counts are the lengths).
template <bool Handle, bool WithCounts>
PyObject* descs_only(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  const char* type = nullptr;
  int n_in = 0, n_out = 0;
  Descs in_d, out_d;
  aclopAttr* attr = nullptr;
  const Py_ssize_t k = WithCounts ? 1 : 0;
  if (!check_count(self, nargs, 4 + 2 * k) || !parse_input(self, 0, args[0], &type) ||
      (WithCounts && !parse_input(self, 1, args[1], &n_in)) || !parse_ptrs(self, 1 + k, args[1 + k], &in_d) ||
      (WithCounts && !parse_input(self, 2 + k, args[2 + k], &n_out)) ||
      !parse_ptrs(self, 2 + 2 * k, args[2 + 2 * k], &out_d) || !parse_input(self, 3 + 2 * k, args[3 + 2 * k], &attr))
    return nullptr;
  if (!WithCounts) {
    n_in = in_d.size();
    n_out = out_d.size();
  }
  if (!Handle) return ret(aclopUpdateParams(type, n_in, in_d.data(), n_out, out_d.data(), attr));
  aclopHandle* handle = nullptr;
  const aclError code = aclopCreateHandle(type, n_in, in_d.data(), n_out, out_d.data(), attr, &handle);
  return Py_BuildValue("(Ki)", static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(handle)), static_cast<int>(code));
}

// aclopExecWithHandle(handle, numInputs, inputs, numOutputs, outputs, stream) / pyACL's
// execute_with_handle(handle, in_bufs, out_bufs, stream) -> ret
template <bool WithCounts>
PyObject* exec_with_handle(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  aclopHandle* handle = nullptr;
  int n_in = 0, n_out = 0;
  Bufs in_b, out_b;
  aclrtStream stream = nullptr;
  const Py_ssize_t k = WithCounts ? 1 : 0;
  if (!check_count(self, nargs, 4 + 2 * k) || !parse_input(self, 0, args[0], &handle) ||
      (WithCounts && !parse_input(self, 1, args[1], &n_in)) || !parse_ptrs(self, 1 + k, args[1 + k], &in_b) ||
      (WithCounts && !parse_input(self, 2 + k, args[2 + k], &n_out)) ||
      !parse_ptrs(self, 2 + 2 * k, args[2 + 2 * k], &out_b) || !parse_input(self, 3 + 2 * k, args[3 + 2 * k], &stream))
    return nullptr;
  if (!WithCounts) {
    n_in = in_b.size();
    n_out = out_b.size();
  }
  return ret(aclopExecWithHandle(handle, n_in, in_b.data(), n_out, out_b.data(), stream));
}

// aclopInferShape(opType, numInputs, inputDesc, inputs, numOutputs, outputDesc, attr) -> ret, and pyACL's
// infer_shape(op_type, in_descs, in_bufs, num_outputs, out_descs, attr) (numInputs = len(in_bufs)).
template <bool WithCounts>
PyObject* infer_shape(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  const char* type = nullptr;
  int n_in = 0, n_out = 0;
  Descs in_d, out_d;
  Bufs in_b;
  aclopAttr* attr = nullptr;
  const Py_ssize_t k = WithCounts ? 1 : 0;
  if (!check_count(self, nargs, 6 + k) || !parse_input(self, 0, args[0], &type) ||
      (WithCounts && !parse_input(self, 1, args[1], &n_in)) || !parse_ptrs(self, 1 + k, args[1 + k], &in_d) ||
      !parse_ptrs(self, 2 + k, args[2 + k], &in_b) || !parse_input(self, 3 + k, args[3 + k], &n_out) ||
      !parse_ptrs(self, 4 + k, args[4 + k], &out_d) || !parse_input(self, 5 + k, args[5 + k], &attr))
    return nullptr;
  if (!WithCounts) n_in = in_b.size();
  return ret(aclopInferShape(type, n_in, in_d.data(), in_b.data(), n_out, out_d.data(), attr));
}

PyMethodDef exec_functions[] = {
    fastcall_def("aclopExecute", &execute_c<false>),
    fastcall_def("aclopExecuteV2", &execute_c<true>),
    fastcall_def("aclopCompile", &compile_c),
    fastcall_def("aclopCompileAndExecute", &compile_and_execute<false>),
    fastcall_def("aclopCompileAndExecuteV2", &compile_and_execute<true>),
    fastcall_def("aclopCreateHandle", &descs_only<true, true>),
    fastcall_def("aclopUpdateParams", &descs_only<false, true>),
    fastcall_def("aclopExecWithHandle", &exec_with_handle<true>),
    fastcall_def("aclopInferShape", &infer_shape<true>),
    fastcall_def("pyacl_op_execute", &execute_pyacl<false>),
    fastcall_def("pyacl_op_execute_v2", &execute_pyacl<true>),
    fastcall_def("pyacl_op_create_handle", &descs_only<true, false>),
    fastcall_def("pyacl_op_update_params", &descs_only<false, false>),
    fastcall_def("pyacl_op_execute_with_handle", &exec_with_handle<false>),
    fastcall_def("pyacl_op_infer_shape", &infer_shape<false>),
};

}  // namespace

void bind_op_exec_functions(PyObject* module) {
  for (PyMethodDef& def : exec_functions) add_function(module, &def);
  bind<&aclopCast>(module, "aclopCast");
  bind<&aclopCreateHandleForCast>(module, "aclopCreateHandleForCast");
  bind<&aclopDestroyHandle>(module, "aclopDestroyHandle");
  bind<&aclopSetModelDir>(module, "aclopSetModelDir");
  bind<&aclopLoad>(module, "aclopLoad");
  bind<&ascendsimGetOpCacheStats>(module, "ascendsimGetOpCacheStats");
  bind<&ascendsimCheckOpModel>(module, "ascendsimCheckOpModel");
}

}  // namespace ascendsim::python
