// ascendsim's own functions (not part of AscendCL): the device memory statistics, for Python.
#include "ascendsim/ascendsim_ext.h"
#include "python/module.h"

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

namespace {

// Runtime-internal host waits (an out-of-memory retry waiting for the device) release the GIL if this
// thread holds it, so Python callbacks the device waits for can run.
void* release_gil_if_held() { return PyGILState_Check() ? PyEval_SaveThread() : nullptr; }
void restore_gil(void* state) {
  if (state != nullptr) PyEval_RestoreThread(static_cast<PyThreadState*>(state));
}

}  // namespace

void bind_extensions(PyObject* module) {
  ascendsimSetHostWaitHooks(&release_gil_if_held, &restore_gil);
  bind<&ascendsimGetMemoryStats>(module, "ascendsimGetMemoryStats");
  bind<&ascendsimResetPeakMemoryStats>(module, "ascendsimResetPeakMemoryStats");
  bind<&ascendsimEmptyCache, Gil::Release>(module, "ascendsimEmptyCache");
}

}  // namespace ascendsim::python
