// ascendsim's fault-injection functions (include/ascendsim/ascendsim_ext.h); the registry and its grammar are
// core/fault_injection.cpp, the sites are in the API and runtime files that ask it.
#include "ascendsim/ascendsim_ext.h"
#include "core/error.h"
#include "core/fault_injection.h"

using namespace ascendsim;

extern "C" {

aclError ascendsimInjectFaults(const char* spec) {
  ASCENDSIM_CHECK_NOT_NULL(spec);
  return fault::add_rules(spec, __func__);
}

aclError ascendsimClearFaults(void) {
  fault::clear();
  return ACL_SUCCESS;
}

}  // extern "C"
