// The profiling functions (acl_prof.h). aclprofCreateConfig takes its device ids as a Python list, as
// pyACL's acl.prof.create_config does (the generic rule would read `uint32_t*` as an out-parameter); the
// others follow the generic rule of fastcall.h.
#include <vector>

#include "acl/acl_prof.h"
#include "python/module.h"
#include "python/pyacl_args.h"

namespace ascendsim::python {
namespace {

// aclprofCreateConfig(device_list: list, aicore_metrics, aicore_events, data_type_config) -> config (0 on failure)
PyObject* create_config(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  std::vector<uint32_t> devices;
  int32_t metrics = 0;  // an aclprofAicoreMetrics, as an int (fastcall.h: wire_t)
  const aclprofAicoreEvents* events = nullptr;
  uint64_t data_types = 0;
  if (!check_count(self, nargs, 4) || !parse_list(self, 0, args[0], &devices) ||
      !parse_input(self, 1, args[1], &metrics) || !parse_input(self, 2, args[2], &events) ||
      !parse_input(self, 3, args[3], &data_types))
    return nullptr;
  uint32_t none = 0;  // an empty list still passes a valid pointer; the count 0 is what gets refused
  return PyLong_FromVoidPtr(wire_function(&aclprofCreateConfig)(devices.empty() ? &none : devices.data(),
                                                static_cast<uint32_t>(devices.size()), metrics, events, data_types));
}

}  // namespace

void bind_prof_functions(PyObject* module) {
  static PyMethodDef functions[] = {fastcall_def("aclprofCreateConfig", &create_config)};
  for (PyMethodDef& def : functions) add_function(module, &def);
  bind<&aclprofInit>(module, "aclprofInit");
  bind<&aclprofDestroyConfig>(module, "aclprofDestroyConfig");
  bind<&aclprofStart>(module, "aclprofStart");
  bind<&aclprofStop>(module, "aclprofStop");
  bind<&aclprofFinalize, Gil::Release>(module, "aclprofFinalize");
  bind<&aclprofCreateStamp>(module, "aclprofCreateStamp");
  bind<&aclprofDestroyStamp>(module, "aclprofDestroyStamp");
  bind<&aclprofSetStampTraceMessage>(module, "aclprofSetStampTraceMessage");
  bind<&aclprofMark>(module, "aclprofMark");
  bind<&aclprofPush>(module, "aclprofPush");
  bind<&aclprofPop>(module, "aclprofPop");
  bind<&aclprofRangeStart>(module, "aclprofRangeStart");
  bind<&aclprofRangeStop>(module, "aclprofRangeStop");
}

}  // namespace ascendsim::python
