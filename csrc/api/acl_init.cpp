// aclInit / aclFinalize / version / recent error message.
#include "acl/acl.h"
#include "core/error.h"
#include "runtime/runtime.h"

using namespace ascendsim;

aclError aclInit(const char* configPath) { return Runtime::instance().init(configPath); }

aclError aclFinalize() { return Runtime::instance().finalize(); }

aclError aclrtGetVersion(int32_t* majorVersion, int32_t* minorVersion, int32_t* patchVersion) {
  ASCENDSIM_CHECK_NOT_NULL(majorVersion);
  ASCENDSIM_CHECK_NOT_NULL(minorVersion);
  ASCENDSIM_CHECK_NOT_NULL(patchVersion);
  *majorVersion = ACL_MAJOR_VERSION;
  *minorVersion = ACL_MINOR_VERSION;
  *patchVersion = ACL_PATCH_VERSION;
  return ACL_SUCCESS;
}

const char* aclGetRecentErrMsg() { return take_recent_error(); }
