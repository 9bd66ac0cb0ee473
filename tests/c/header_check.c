/*
 * Compile-and-run check of the public headers from C: struct layouts (LP64), enum and error-code values,
 * macros and a few function types. Calls no library function, so it needs no libascendcl to link.
 * Builds with -std=c99 (static checks through array sizes) and -std=c11 (_Static_assert, plus function
 * types through _Generic), both with -Wall -Wextra -Wpedantic -Werror. Prints "ok" and exits 0 when every check passes.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_op_compiler.h"
#include "acl/acl_prof.h"
#include "acl/ops/acl_cblas.h"
#define ENABLE_DVPP_INTERFACE
#include "acl/ops/acl_dvpp.h"

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define HAVE_STATIC_ASSERT 1
#define STATIC_CHECK(cond) _Static_assert(cond, #cond)
#else
/* C99: a file-scope array type whose size is negative when the condition is false. */
#define HAVE_STATIC_ASSERT 0
#define STATIC_CHECK_NAME2(line) static_check_line_##line
#define STATIC_CHECK_NAME(line) STATIC_CHECK_NAME2(line)
#define STATIC_CHECK(cond) typedef char STATIC_CHECK_NAME(__LINE__)[(cond) ? 1 : -1]
#endif

static int failures = 0;

#define CHECK(cond)                                                      \
    do {                                                                 \
        if (!(cond)) {                                                   \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            ++failures;                                                  \
        }                                                                \
    } while (0)

#if SIZE_MAX == UINT64_MAX
/* ---- struct layouts of a 64-bit build ---- */
STATIC_CHECK(sizeof(aclmdlIODims) == 1160);
STATIC_CHECK(offsetof(aclmdlIODims, dimCount) == 128);
STATIC_CHECK(offsetof(aclmdlIODims, dims) == 136);
STATIC_CHECK(sizeof(aclmdlIODimsRange) == 2056);
STATIC_CHECK(sizeof(aclmdlBatch) == 1032);
STATIC_CHECK(sizeof(aclmdlHW) == 2056);
STATIC_CHECK(sizeof(aclAippDims) == 2336);
STATIC_CHECK(offsetof(aclAippDims, aippOutdims) == 1168);
STATIC_CHECK(sizeof(aclAippInfo) == 299216);
STATIC_CHECK(offsetof(aclAippInfo, cscSwitch) == 64);
STATIC_CHECK(offsetof(aclAippInfo, minChn0) == 144);
STATIC_CHECK(offsetof(aclAippInfo, outDims) == 200);
STATIC_CHECK(offsetof(aclAippInfo, aippExtend) == 299208);
STATIC_CHECK(sizeof(aclmdlExeOMDesc) == 128);
STATIC_CHECK(sizeof(aclrtStreamConfigHandle) == 32);
STATIC_CHECK(offsetof(aclrtStreamConfigHandle, priority) == 24);
STATIC_CHECK(sizeof(aclrtUtilizationInfo) == 24);
STATIC_CHECK(sizeof(aclrtMemLocation) == 8);
STATIC_CHECK(sizeof(aclrtPhysicalMemProp) == 32);
STATIC_CHECK(offsetof(aclrtPhysicalMemProp, location) == 12);
STATIC_CHECK(offsetof(aclrtPhysicalMemProp, reserve) == 24);
STATIC_CHECK(sizeof(aclrtMemUceInfo) == 128);
#endif

/* ---- enums are 4 bytes; macro constants ---- */
STATIC_CHECK(sizeof(aclDataType) == 4);
STATIC_CHECK(sizeof(aclrtMemcpyKind) == 4);
STATIC_CHECK(sizeof(aclmdlConfigAttr) == 4);
STATIC_CHECK(ACL_DT_UNDEFINED == -1 && ACL_BF16 == 27 && ACL_COMPLEX32 == 33);
STATIC_CHECK(ACL_FORMAT_UNDEFINED == -1 && ACL_FORMAT_NCL == 47);
STATIC_CHECK(ACL_ERROR_RT_PARAM_INVALID == 107000 && ACL_ERROR_RT_REPORT_TIMEOUT == 507012);
STATIC_CHECK(ACL_ERROR_RT_FEATURE_NOT_SUPPROT == ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
STATIC_CHECK(ACL_MAX_DIM_CNT == 128 && ACL_MAX_TENSOR_NAME_LEN == 128);
STATIC_CHECK(sizeof(aclprofAicoreMetrics) == 4 && ACL_AICORE_MEMORY_UB == 5 && ACL_AICORE_NONE == 0xFF);
STATIC_CHECK(ACL_PROF_ACL_API == 0x1 && ACL_PROF_TASK_TIME == 0x2 && ACL_PROF_RUNTIME_API == 0x100);
STATIC_CHECK(ACL_SUBSCRIBE_NONE == 0xFF && ACL_SUBSCRIBE_ATTRI_NONE == 1 && ACL_STEP_END == 1);
STATIC_CHECK(ACL_PROF_MAX_OP_NAME_LEN == 257 && ACL_PROF_MAX_OP_TYPE_LEN == 65);
/* acl/ops: the BLAS and DVPP enums (usable from C: their typedefs name them) */
STATIC_CHECK(ACL_TRANS_N == 0 && ACL_TRANS_NZ_T == 3 && ACL_COMPUTE_LOW_PRECISION == 1);
STATIC_CHECK(PIXEL_FORMAT_RGB_444 == 23 && PIXEL_FORMAT_BGRA_8565 == 40 && PIXEL_FORMAT_S64C1 == 84);
STATIC_CHECK(PIXEL_FORMAT_BUTT == 1003 && PIXEL_FORMAT_UNKNOWN == 10000 && H264_HIGH_LEVEL == 3);
STATIC_CHECK(DVPP_CHNMODE_PNGD == 8 && ACL_JPEG_CSS_UNKNOWN == 1000 && ACL_VENC_MAX_IP_PROP_UINT32 == 12);
STATIC_CHECK(ACL_VDEC_BIT_DEPTH_UINT32 == 10 && ACL_DVPP_CSC_MATRIX_BT2020_NARROW == 5);

#if HAVE_STATIC_ASSERT
/* ---- a few function types (unevaluated: nothing is linked) ---- */
#define HAS_TYPE(fn, type) _Generic(&(fn), type: 1, default: 0)
STATIC_CHECK(HAS_TYPE(aclInit, aclError (*)(const char *)));
STATIC_CHECK(HAS_TYPE(aclrtMemcpy, aclError (*)(void *, size_t, const void *, size_t, aclrtMemcpyKind)));
STATIC_CHECK(HAS_TYPE(aclmdlLoadFromFile, aclError (*)(const char *, uint32_t *)));
STATIC_CHECK(HAS_TYPE(aclGetDataBufferSizeV2, size_t (*)(const aclDataBuffer *)));
STATIC_CHECK(HAS_TYPE(aclopCompile, aclError (*)(const char *, int, const aclTensorDesc *const *, int,
                                                 const aclTensorDesc *const *, const aclopAttr *, aclopEngineType,
                                                 aclopCompileType, const char *)));
STATIC_CHECK(HAS_TYPE(aclprofCreateConfig, aclprofConfig *(*)(uint32_t *, uint32_t, aclprofAicoreMetrics,
                                                               const aclprofAicoreEvents *, uint64_t)));
STATIC_CHECK(HAS_TYPE(aclprofInit, aclError (*)(const char *, size_t)));
#endif

int main(void)
{
    /* tag names usable from C */
    enum aclrtMemcpyKind kind = ACL_MEMCPY_DEVICE_TO_HOST;
    enum aclEngineType engine = ACL_ENGINE_VECTOR;
    aclmdlIODims dims;

#if SIZE_MAX == UINT64_MAX
    CHECK(sizeof(aclmdlIODims) == 1160 && offsetof(aclmdlIODims, dims) == 136);
    CHECK(sizeof(aclmdlIODimsRange) == 2056 && sizeof(aclmdlBatch) == 1032 && sizeof(aclmdlHW) == 2056);
    CHECK(sizeof(aclAippDims) == 2336 && sizeof(aclAippInfo) == 299216 && sizeof(aclmdlExeOMDesc) == 128);
    CHECK(sizeof(aclrtStreamConfigHandle) == 32 && sizeof(aclrtUtilizationInfo) == 24);
    CHECK(sizeof(aclrtMemLocation) == 8 && sizeof(aclrtPhysicalMemProp) == 32 && sizeof(aclrtMemUceInfo) == 128);
#endif
    CHECK(sizeof(dims.dims) / sizeof(dims.dims[0]) == ACL_MAX_DIM_CNT);

    /* error codes: static const int / static const uint32_t / macros */
    CHECK(ACL_SUCCESS == 0 && ACL_ERROR_NONE == 0);
    CHECK(ACL_ERROR_INVALID_PARAM == 100000);
    CHECK(ACL_ERROR_REPEAT_INITIALIZE == 100002 && ACL_ERROR_REPEAT_FINALIZE == 100037);
    CHECK(ACL_ERROR_INVALID_BUNDLE_MODEL_ID == 148053);
    CHECK(ACL_ERROR_API_NOT_SUPPORT == 200001);
    CHECK(ACL_ERROR_PROFILING_FAILURE == 500005);
    CHECK(ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID == 145006U);
    CHECK(ACL_ERROR_GE_REDEPLOYING == 545602U);
    CHECK(ACL_ERROR_RT_INTERNEL_ERROR == 507000 && ACL_ERROR_RT_DRV_INTERNEL_ERROR == 507899);
    CHECK(ACL_COMPILE_FLAG_BIN_SELECTOR == 1);

    /* enum values */
    CHECK(kind == 2 && engine == 2 && ACL_MEMCPY_DEFAULT == 4);
    CHECK(ACL_MEM_TYPE_HIGH_BAND_WIDTH == 0x1000 && ACL_EVENT_WAIT_STATUS_RESERVED == 0xffff);
    CHECK(ACL_HOST == 1 && ACL_MDL_DYNAMIC_TASK_SIZET == 24 && ACL_OP_DEBUG_OPTION == 16);
    CHECK(ACL_COMPILE_UNREGISTERED == 1 && ACL_OP_COMPILE_FUZZ == 1 && ACL_DEVICE_INFO_L2_SIZE == 2);

    /* other macros */
    CHECK(ACL_MAJOR_VERSION == 1 && ACL_MINOR_VERSION == 10 && ACL_PATCH_VERSION == 0);
    CHECK(ACL_UNKNOWN_RANK == (size_t)-2);
    CHECK(ACL_EVENT_TIME_LINE == 0x8u && ACL_STOP_ON_FAILURE == 1u);
    CHECK(strcmp(ACL_DYNAMIC_TENSOR_NAME, "ascend_mbatch_shape_data") == 0);
    CHECK(ACL_INVALID_NODE_INDEX == 0xFFFFFFFFu);

    if (failures != 0) {
        fprintf(stderr, "%d header checks failed\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
