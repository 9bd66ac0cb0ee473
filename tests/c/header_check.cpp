// Compile-and-run check of the public headers from C++: struct layouts (LP64), the C++ types and values of
// error codes and enums, macros and a few function signatures, all at compile time. Calls no library
// function, so it needs no libascendcl to link. Builds with -std=c++11 .. c++17 and
// -Wall -Wextra -Wpedantic -Werror; prints "ok" and exits 0.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include "acl/acl.h"
#include "acl/acl_op_compiler.h"
#include "acl/acl_prof.h"
#include "acl/ops/acl_cblas.h"
#define ENABLE_DVPP_INTERFACE
#include "acl/ops/acl_dvpp.h"

#define CHECK(cond) static_assert(cond, #cond)

// ---- struct layouts of a 64-bit build ----
#if SIZE_MAX == UINT64_MAX
CHECK(sizeof(aclmdlIODims) == 1160);
CHECK(offsetof(aclmdlIODims, name) == 0);
CHECK(offsetof(aclmdlIODims, dimCount) == 128);
CHECK(offsetof(aclmdlIODims, dims) == 136);
CHECK(sizeof(aclmdlIODimsRange) == 2056);
CHECK(offsetof(aclmdlIODimsRange, range) == 8);
CHECK(sizeof(aclmdlBatch) == 1032);
CHECK(sizeof(aclmdlHW) == 2056);
CHECK(sizeof(aclAippDims) == 2336);
CHECK(offsetof(aclAippDims, srcSize) == 1160);
CHECK(offsetof(aclAippDims, aippOutSize) == 2328);
CHECK(sizeof(aclAippInfo) == 299216);
CHECK(offsetof(aclAippInfo, cropSwitch) == 12);
CHECK(offsetof(aclAippInfo, matrixR0C0) == 68);
CHECK(offsetof(aclAippInfo, srcFormat) == 176);
CHECK(offsetof(aclAippInfo, srcDimNum) == 184);
CHECK(offsetof(aclAippInfo, outDims) == 200);
CHECK(offsetof(aclAippInfo, aippExtend) == 299208);
CHECK(sizeof(aclmdlExeOMDesc) == 128);
CHECK(offsetof(aclmdlExeOMDesc, reserved) == 56);
CHECK(sizeof(aclrtStreamConfigHandle) == 32);
CHECK(sizeof(aclrtUtilizationInfo) == 24);
CHECK(offsetof(aclrtUtilizationInfo, utilizationExtend) == 16);
CHECK(sizeof(aclrtMemLocation) == 8);
CHECK(sizeof(aclrtPhysicalMemProp) == 32);
CHECK(sizeof(aclrtMemUceInfo) == 128);
CHECK(offsetof(aclrtMemUceInfo, reserved) == 16);
#endif
CHECK(std::is_standard_layout<aclAippInfo>::value && std::is_trivial<aclmdlIODims>::value);

// ---- error codes: kinds and values ----
CHECK((std::is_same<decltype(ACL_SUCCESS), const int>::value));
CHECK((std::is_same<decltype(ACL_ERROR_GE_PARAM_INVALID), const uint32_t>::value));
CHECK((std::is_same<aclError, int>::value));
CHECK(ACL_SUCCESS == 0 && ACL_ERROR_NONE == 0);
CHECK(ACL_ERROR_INVALID_PARAM == 100000 && ACL_ERROR_UNINITIALIZE == 100001);
CHECK(ACL_ERROR_REPEAT_FINALIZE == 100037 && ACL_ERROR_PROF_REPEAT_SUBSCRIBE == 148046);
CHECK(ACL_ERROR_API_NOT_SUPPORT == 200001 && ACL_ERROR_FEATURE_UNSUPPORTED == 200006);
CHECK(ACL_ERROR_STORAGE_OVER_LIMIT == 300000 && ACL_ERROR_INTERNAL_ERROR == 500000);
CHECK(ACL_RT_SUCCESS == 0 && ACL_ERROR_RT_THREAD_SUBSCRIBE == 107012 && ACL_ERROR_RT_DEVICE_OOM == 207018);
CHECK(ACL_ERROR_RT_AICPU_INFO_LOAD_RSP_ERR == 507902);
CHECK(ACL_ERROR_RT_FEATURE_NOT_SUPPROT == 207000 && ACL_ERROR_RT_INTERNEL_ERROR == 507000);
CHECK(ACL_ERROR_RT_DRV_INTERNEL_ERROR == 507899);
CHECK(ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID == 145006u && ACL_ERROR_GE_SUBHEALTHY == 345102u);
CHECK(ACL_COMPILE_FLAG_BIN_SELECTOR == 1 && ACL_OP_DUMP_OP_AICORE_ARGS == 1u);

// ---- enums: 4 bytes, values, tag names ----
CHECK(sizeof(aclDataType) == 4 && sizeof(aclFormat) == 4 && sizeof(aclrtMemMallocPolicy) == 4);
CHECK(ACL_DT_UNDEFINED == -1 && ACL_FLOAT16 == 1 && ACL_INT16 == 6 && ACL_BF16 == 27 && ACL_COMPLEX32 == 33);
CHECK(ACL_FORMAT_NC1HWC0_C04 == 12 && ACL_FRACTAL_Z_3D == 33 && ACL_FORMAT_NCL == 47);
CHECK(ACL_MEM_MALLOC_NORMAL_ONLY_P2P == 5 && ACL_MEM_TYPE_LOW_BAND_WIDTH == 0x100);
CHECK(ACL_HBM_MEM_P2P_NORMAL == 9 && ACL_GROUP_GROUPID_INT == 5 && ACL_RT_DEVICE_STATUS_END == 0xffff);
CHECK(ACL_AIPP_RESERVED == 0xffff && ACL_MDL_WORKSPACE_MEM_OPTIMIZE == 13 && ACL_MDL_MEC_TIMETHR_SIZET == 7);
CHECK(ACL_OP_COMPILER_CACHE_DIR == 8 && ACL_ENGINE_AICORE == 1 && ACL_OP_COMPILE_FUZZ == 1);
CHECK((std::is_same<enum aclrtMemcpyKind, aclrtMemcpyKind>::value));
CHECK((std::is_same<enum aclEngineType, aclopEngineType>::value));
CHECK((std::is_same<enum aclCompileType, aclopCompileType>::value));
CHECK((std::is_same<enum aclCompileFlag, aclOpCompileFlag>::value));

// ---- macros ----
CHECK(ACL_MAJOR_VERSION == 1 && ACL_MINOR_VERSION == 10 && ACL_PATCH_VERSION == 0);
CHECK(ACL_MAX_DIM_CNT == 128 && ACL_DIM_ENDPOINTS == 2 && ACL_MAX_SHAPE_COUNT == 128);
CHECK(ACL_TENSOR_SHAPE_RANGE_NUM == 2 && ACL_UNKNOWN_RANK == 0xFFFFFFFFFFFFFFFEull);
CHECK(ACL_MDL_LOAD_FROM_MEM_WITH_Q == 6 && ACL_WORKSPACE_MEM_OPTIMIZE_INPUTOUTPUT == 1);
CHECK(ACL_EVENT_SYNC == 1u && ACL_EVENT_CAPTURE_STREAM_PROGRESS == 2u && ACL_STREAM_FAST_SYNC == 2u);
CHECK(MAX_MEM_UCE_INFO_ARRAY_SIZE == 128 && UCE_INFO_RESERVED_SIZE == 14);

// ---- a few signatures (decltype is unevaluated: nothing is linked) ----
CHECK((std::is_same<decltype(aclFinalize), aclError()>::value));
CHECK((std::is_same<decltype(aclGetRecentErrMsg), const char*()>::value));
CHECK((std::is_same<decltype(aclrtMalloc), aclError(void**, size_t, aclrtMemMallocPolicy)>::value));
CHECK((std::is_same<decltype(aclrtCreateStreamConfigHandle), aclrtStreamConfigHandle*()>::value));
CHECK((std::is_same<decltype(aclmdlGetInputDims), aclError(const aclmdlDesc*, size_t, aclmdlIODims*)>::value));
CHECK((std::is_same<decltype(aclSetTensorShapeRange), aclError(aclTensorDesc*, size_t, int64_t (*)[2])>::value));
CHECK((std::is_same<decltype(aclopExecuteV2),
                    aclError(const char*, int, aclTensorDesc**, aclDataBuffer**, int, aclTensorDesc**,
                             aclDataBuffer**, aclopAttr*, aclrtStream)>::value));
CHECK((std::is_same<decltype(aclGetCompileoptSize), size_t(aclCompileOpt)>::value));
CHECK((std::is_same<decltype(aclprofFinalize), aclError()>::value));
CHECK((std::is_same<decltype(aclprofStop), aclError(const aclprofConfig*)>::value));
CHECK((std::is_same<decltype(aclprofGetOpFlag), aclprofSubscribeOpFlag(const void*, size_t, uint32_t)>::value));
CHECK((std::is_same<decltype(ACL_PROF_TASK_TIME), unsigned long long>::value));

int main() {
  // Values that are not constant expressions.
  if (std::strcmp(ACL_DYNAMIC_TENSOR_NAME, "ascend_mbatch_shape_data") != 0 ||
      std::strcmp(ACL_DYNAMIC_AIPP_NAME, "ascend_dynamic_aipp_data") != 0 ||
      std::strcmp(ACL_ATTR_NAME_DATA_DUMP_ORIGIN_OP_NAMES, "_datadump_original_op_names") != 0) {
    std::fprintf(stderr, "model name macros differ\n");
    return 1;
  }
  std::printf("ok\n");
  return 0;
}
