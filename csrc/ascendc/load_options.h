// The options of aclrtBinaryLoadFromFile / aclrtBinaryLoadFromData (an array of {type, value} pairs), checked as
// CANN's runtime checks them before it reads the binary. None changes how the emulator loads a kernel binary:
// lazy loading (no copy to the device until a function is looked up) and the core-type magic have no meaning
// when the "device" code is a host shared object, so valid values are accepted and ignored; AI CPU kernels
// (CPU_KERNEL_MODE) are not emulated.
#pragma once
#include "acl/acl_rt.h"

namespace ascendsim::ascendc {

// ACL_SUCCESS, or the error (with a message naming `api`, the option's index and value) for `options` (may be
// null: no options). `from_file` selects aclrtBinaryLoadFromFile's rules (no MAGIC option, CPU modes 0 and 1).
aclError check_load_options(const char* api, const aclrtBinaryLoadOptions* options, bool from_file);

}  // namespace ascendsim::ascendc
