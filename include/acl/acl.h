/*
 * ascendsim: AscendCL umbrella header (runtime, single-operator and model APIs) plus initialization.
 * Written for ascendsim from the published names, values and signatures of the AscendCL C API
 * (ACL 1.10.0 set); not derived from CANN header text.
 */
#ifndef INC_EXTERNAL_ACL_ACL_H_
#define INC_EXTERNAL_ACL_ACL_H_

#include "acl_rt.h"
#include "acl_op.h"
#include "acl_mdl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the AscendCL API these headers describe (also reported by aclrtGetVersion). */
#define ACL_MAJOR_VERSION 1
#define ACL_MINOR_VERSION 10
#define ACL_PATCH_VERSION 0

/* Starts AscendCL; configPath names a JSON file and may be NULL or empty. Once per process. */
ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);
ACL_FUNC_VISIBILITY aclError aclFinalize();
ACL_FUNC_VISIBILITY aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion);
/* Description of this thread's most recent failure; never NULL, empty when there is none. */
ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg();

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_H_ */
