/*
 * The aclprof* collection API from C, as a CANN sample uses it: init -> create config -> start -> a
 * copy and an event on a stream -> stop -> destroy config -> finalize. Argument 1 is the output directory.
 * Prints "ok" when every call returns what CANN returns.
 */
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_prof.h"

#define CHECK(expr, expected)                                                              \
    do {                                                                                   \
        aclError ret_ = (expr);                                                            \
        if (ret_ != (expected)) {                                                          \
            printf("%s:%d: %s returned %d, expected %d: %s\n", __FILE__, __LINE__, #expr, \
                   (int)ret_, (int)(expected), aclGetRecentErrMsg());                      \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

int main(int argc, char **argv)
{
    uint32_t devices[1] = {0};
    aclprofConfig *config;
    aclrtStream stream = NULL;
    aclrtEvent event = NULL;
    void *host = NULL;
    void *dev = NULL;
    const size_t size = 1 << 16;
    if (argc < 2) return 2;
    CHECK(aclInit(NULL), ACL_SUCCESS);
    CHECK(aclrtSetDevice(0), ACL_SUCCESS);
    CHECK(aclprofStart(NULL), ACL_ERROR_PROF_NOT_RUN);
    CHECK(aclprofInit(argv[1], strlen(argv[1])), ACL_SUCCESS);
    config = aclprofCreateConfig(devices, 1, ACL_AICORE_ARITHMETIC_UTILIZATION, NULL,
                                 ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_AICORE_METRICS);
    if (config == NULL) {
        printf("aclprofCreateConfig: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    CHECK(aclprofStart(config), ACL_SUCCESS);
    CHECK(aclrtCreateStream(&stream), ACL_SUCCESS);
    CHECK(aclrtCreateEvent(&event), ACL_SUCCESS);
    CHECK(aclrtMallocHost(&host, size), ACL_SUCCESS);
    CHECK(aclrtMalloc(&dev, size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    memset(host, 7, size);
    CHECK(aclrtMemcpyAsync(dev, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE, stream), ACL_SUCCESS);
    CHECK(aclrtRecordEvent(event, stream), ACL_SUCCESS);
    CHECK(aclrtSynchronizeEvent(event), ACL_SUCCESS);
    CHECK(aclrtFree(dev), ACL_SUCCESS);
    CHECK(aclrtFreeHost(host), ACL_SUCCESS);
    CHECK(aclrtDestroyEvent(event), ACL_SUCCESS);
    CHECK(aclrtDestroyStream(stream), ACL_SUCCESS);
    CHECK(aclprofStop(config), ACL_SUCCESS);
    CHECK(aclprofDestroyConfig(config), ACL_SUCCESS);
    CHECK(aclprofFinalize(), ACL_SUCCESS);
    CHECK(aclrtResetDevice(0), ACL_SUCCESS);
    CHECK(aclFinalize(), ACL_SUCCESS);
    printf("ok\n");
    return 0;
}
