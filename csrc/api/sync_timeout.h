// The timeout rule shared by aclrtSynchronizeStreamWithTimeout and aclrtSynchronizeEventWithTimeout:
// -1 waits forever, a positive value is a limit in ms; 0 and anything below -1 are refused (107000), as
// the real runtime does.
#pragma once
#include <cstdint>

#include "core/error.h"

namespace ascendsim {

inline aclError check_sync_timeout(int32_t timeout, const char* api) {
  if (timeout < -1 || timeout == 0)
    return fail(ACL_ERROR_RT_PARAM_INVALID,
                "%s: timeout %d is invalid: -1 waits forever, a positive value is a limit in ms", api, timeout);
  return ACL_SUCCESS;
}

}  // namespace ascendsim
