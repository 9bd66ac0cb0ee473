// ascendsim's own functions (not part of AscendCL): device memory statistics, leak reports, memory snapshots,
// the kernel variant, fault injection and the emulated SoC's figures (ascendsimGetSocInfo), for Python.
#include <string>

#include "ascendsim/ascendc_abi.h"
#include "ascendsim/ascendsim_ext.h"

#include "python/module.h"
#include "python/pyacl_args.h"

namespace ascendsim::python {

template <>
struct StructOut<ascendsimMemoryStats> : std::true_type {
  static PyObject* to_python(const ascendsimMemoryStats& s) {
    return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K}",  //
                         "capacity_bytes", s.capacity_bytes, "allocated_bytes", s.allocated_bytes,
                         "requested_bytes", s.requested_bytes, "reserved_bytes", s.reserved_bytes,
                         "peak_allocated_bytes", s.peak_allocated_bytes, "peak_reserved_bytes",
                         s.peak_reserved_bytes, "largest_free_block", s.largest_free_block, "allocation_count",
                         s.allocation_count, "free_count", s.free_count, "segment_count", s.segment_count,
                         "cache_hits", s.cache_hits, "alloc_retries", s.alloc_retries, "oom_count", s.oom_count);
  }
};

template <>
struct StructOut<ascendsimSocInfo> : std::true_type {
  static PyObject* to_python(const ascendsimSocInfo& s) {
    return Py_BuildValue("{s:s,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:I,s:I,s:O}", "name", s.name, "ub_size", s.ub_size,
                         "l1_size", s.l1_size, "l0a_size", s.l0a_size, "l0b_size", s.l0b_size, "l0c_size",
                         s.l0c_size, "l2_size", s.l2_size, "hbm_size", s.hbm_size, "cube_cores", s.cube_cores,
                         "vector_cores", s.vector_cores, "separated", s.separated != 0 ? Py_True : Py_False);
  }
};

template <>
struct StructOut<ascendsimModelMemory> : std::true_type {
  static PyObject* to_python(const ascendsimModelMemory& m) {
    return Py_BuildValue("{s:I,s:K,s:K,s:K,s:K}", "runtime", m.runtime, "planned_bytes", m.planned_bytes,
                         "last_peak_bytes", m.last_peak_bytes, "max_peak_bytes", m.max_peak_bytes, "executions",
                         m.executions);
  }
};

namespace {

// Runtime-internal host waits (an out-of-memory retry waiting for the device) release the GIL if this
// thread holds it, so Python callbacks the device waits for can run.
void* release_gil_if_held() { return PyGILState_Check() ? PyEval_SaveThread() : nullptr; }
void restore_gil(void* state) {
  if (state != nullptr) PyEval_RestoreThread(static_cast<PyThreadState*>(state));
}

// The JSON-text functions (ascendsimGetLeakReport, ascendsimGetMemorySnapshot, ascendsimGetModelKernels):
// (text, ret) from one int argument. The size query and the fill are retried while the text grows between them.
template <class Arg, aclError (*Fn)(Arg, char*, size_t, size_t*)>
PyObject* json_text(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  Arg arg = 0;
  if (!check_count(self, nargs, 1) || !parse_input(self, 0, args[0], &arg)) return nullptr;
  std::string text;
  size_t length = 0;
  aclError ret = Fn(arg, nullptr, 0, &length);
  while (ret == ACL_SUCCESS) {
    text.resize(length + 1);
    size_t needed = 0;
    ret = Fn(arg, text.data(), text.size(), &needed);
    if (ret == ACL_SUCCESS) {
      text.resize(needed);
      break;
    }
    if (needed <= length) break;  // a real failure, not growth
    length = needed;
    ret = ACL_SUCCESS;
  }
  if (ret != ACL_SUCCESS) text.clear();
  PyObject* str = PyUnicode_FromStringAndSize(text.data(), static_cast<Py_ssize_t>(text.size()));
  return str == nullptr ? nullptr : Py_BuildValue("(Ni)", str, static_cast<int>(ret));
}

PyMethodDef json_functions[] = {
    fastcall_def("ascendsimGetLeakReport", &json_text<int32_t, &ascendsimGetLeakReport>),
    fastcall_def("ascendsimGetMemorySnapshot", &json_text<int32_t, &ascendsimGetMemorySnapshot>),
    fastcall_def("ascendsimGetModelKernels", &json_text<uint32_t, &ascendsimGetModelKernels>),
    fastcall_def("ascendsimGetKernelParams", &json_text<aclrtFuncHandle, &ascendsimGetKernelParams>),
};

}  // namespace

void bind_extensions(PyObject* module) {
  for (PyMethodDef& def : json_functions) add_function(module, &def);
  ascendsimSetHostWaitHooks(&release_gil_if_held, &restore_gil);
  bind<&ascendsimGetMemoryStats>(module, "ascendsimGetMemoryStats");
  bind<&ascendsimResetPeakMemoryStats>(module, "ascendsimResetPeakMemoryStats");
  bind<&ascendsimEmptyCache, Gil::Release>(module, "ascendsimEmptyCache");
  bind<&ascendsimGetKernelVariant>(module, "ascendsimGetKernelVariant");
  bind<&ascendsimGetKernelVariants>(module, "ascendsimGetKernelVariants");
  bind<&ascendsimInjectFaults>(module, "ascendsimInjectFaults");
  bind<&ascendsimGetSocInfo>(module, "ascendsimGetSocInfo");
  bind<&ascendsimGetModelMemory>(module, "ascendsimGetModelMemory");
  bind<&ascendsimClearFaults>(module, "ascendsimClearFaults");
}

}  // namespace ascendsim::python
