// Host synchronisation shared by the API files. The timeout rule of aclrtSynchronizeStreamWithTimeout and
// aclrtSynchronizeEventWithTimeout: -1 waits forever, a positive value is a limit in ms; 0 and anything
// below -1 are refused (107000), as the real runtime does.
#pragma once
#include <cstdint>

#include "acl/acl_rt.h"
#include "core/error.h"

namespace ascendsim {

// Waits for `handle`'s tasks (timeout as above, unchecked); a failed task is reported as
// aclrtSynchronizeStream reports it (its code, and its message in aclGetRecentErrMsg), a timeout as 507046.
aclError synchronize_stream(aclrtStream handle, int32_t timeout, const char* api);

inline aclError check_sync_timeout(int32_t timeout, const char* api) {
  if (timeout < -1 || timeout == 0)
    return fail(ACL_ERROR_RT_PARAM_INVALID,
                "%s: timeout %d is invalid: -1 waits forever, a positive value is a limit in ms", api, timeout);
  return ACL_SUCCESS;
}

}  // namespace ascendsim
