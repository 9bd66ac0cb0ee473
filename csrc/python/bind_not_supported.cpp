// The declared-but-unimplemented functions are callable from Python too (they return
// ACL_ERROR_API_NOT_SUPPORT with a message), bound from the same list that defines them.
#include "acl/acl_op_compiler.h"
#include "acl/acl_prof.h"
#include "api/dvpp_interface.h"
#include "python/module.h"

// Deprecated functions are bound on purpose: old samples still call them.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace ascendsim::python {

void bind_not_supported_functions(PyObject* module) {
#define ACL_NOT_SUPPORTED(ret, name, params) bind<&name>(module, #name);
#include "api/not_supported_list.h"
#undef ACL_NOT_SUPPORTED
}

}  // namespace ascendsim::python
