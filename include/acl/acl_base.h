/*
 * ascendsim: AscendCL base types, error codes, data buffers and tensor descriptions.
 * Written for ascendsim from the published names, values and signatures of the AscendCL C API
 * (ACL 1.10.0 set); not derived from CANN header text.
 */
#ifndef INC_EXTERNAL_ACL_ACL_BASE_H_
#define INC_EXTERNAL_ACL_ACL_BASE_H_

#include <stddef.h>
#include <stdint.h>

#include "error_codes/rt_error_codes.h"
#include "error_codes/ge_error_codes.h"

/* Exported symbols: the library is built with FUNC_VISIBILITY and -fvisibility=hidden. */
#ifdef FUNC_VISIBILITY
#if defined(_MSC_VER)
#define ACL_FUNC_VISIBILITY _declspec(dllexport)
#else
#define ACL_FUNC_VISIBILITY __attribute__((visibility("default")))
#endif
#else
#define ACL_FUNC_VISIBILITY
#endif

/*
 * Deprecation markers. They warn where a deprecated function is used, never where it is defined.
 * Code that must reference deprecated functions without warnings (bindings, tests) may define
 * ASCENDSIM_SUPPRESS_DEPRECATION before including any acl header.
 */
#if defined(ASCENDSIM_SUPPRESS_DEPRECATION)
#define ACL_DEPRECATED
#define ACL_DEPRECATED_MESSAGE(message)
#elif defined(__GNUC__) || defined(__clang__)
#define ACL_DEPRECATED __attribute__((deprecated))
#define ACL_DEPRECATED_MESSAGE(message) __attribute__((deprecated(message)))
#elif defined(_MSC_VER)
#define ACL_DEPRECATED __declspec(deprecated)
#define ACL_DEPRECATED_MESSAGE(message) __declspec(deprecated(message))
#else
#define ACL_DEPRECATED
#define ACL_DEPRECATED_MESSAGE(message)
#endif

#ifndef ASCENDSIM_UNUSED_CONSTANT
#if defined(__GNUC__) || defined(__clang__)
#define ASCENDSIM_UNUSED_CONSTANT __attribute__((unused))
#else
#define ASCENDSIM_UNUSED_CONSTANT
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- handles and basic types ------------------------------------------------------------------ */

typedef void *aclrtStream;  /* NULL means the default stream of the current context */
typedef void *aclrtEvent;
typedef void *aclrtContext;
typedef int aclError;       /* 0 (ACL_SUCCESS) on success */
typedef uint16_t aclFloat16; /* IEEE 754 binary16 bit pattern */
typedef struct aclDataBuffer aclDataBuffer;
typedef struct aclTensorDesc aclTensorDesc;

typedef void *aclrtAllocatorDesc;
typedef void *aclrtAllocator;
typedef void *aclrtAllocatorBlock;
typedef void *aclrtAllocatorAddr;

/* ---- error codes (aclError values) -------------------------------------------------------------
 * 100xxx and 148xxx: invalid argument or call order; 200xxx: resource or unsupported feature;
 * 300000: storage limit; 500xxx: internal failure. */

static const int ACL_ERROR_NONE ASCENDSIM_UNUSED_CONSTANT = 0;
static const int ACL_SUCCESS ASCENDSIM_UNUSED_CONSTANT = 0;

static const int ACL_ERROR_INVALID_PARAM ASCENDSIM_UNUSED_CONSTANT = 100000;
static const int ACL_ERROR_UNINITIALIZE ASCENDSIM_UNUSED_CONSTANT = 100001;
static const int ACL_ERROR_REPEAT_INITIALIZE ASCENDSIM_UNUSED_CONSTANT = 100002;
static const int ACL_ERROR_INVALID_FILE ASCENDSIM_UNUSED_CONSTANT = 100003;
static const int ACL_ERROR_WRITE_FILE ASCENDSIM_UNUSED_CONSTANT = 100004;
static const int ACL_ERROR_INVALID_FILE_SIZE ASCENDSIM_UNUSED_CONSTANT = 100005;
static const int ACL_ERROR_PARSE_FILE ASCENDSIM_UNUSED_CONSTANT = 100006;
static const int ACL_ERROR_FILE_MISSING_ATTR ASCENDSIM_UNUSED_CONSTANT = 100007;
static const int ACL_ERROR_FILE_ATTR_INVALID ASCENDSIM_UNUSED_CONSTANT = 100008;
static const int ACL_ERROR_INVALID_DUMP_CONFIG ASCENDSIM_UNUSED_CONSTANT = 100009;
static const int ACL_ERROR_INVALID_PROFILING_CONFIG ASCENDSIM_UNUSED_CONSTANT = 100010;
static const int ACL_ERROR_INVALID_MODEL_ID ASCENDSIM_UNUSED_CONSTANT = 100011;
static const int ACL_ERROR_DESERIALIZE_MODEL ASCENDSIM_UNUSED_CONSTANT = 100012;
static const int ACL_ERROR_PARSE_MODEL ASCENDSIM_UNUSED_CONSTANT = 100013;
static const int ACL_ERROR_READ_MODEL_FAILURE ASCENDSIM_UNUSED_CONSTANT = 100014;
static const int ACL_ERROR_MODEL_SIZE_INVALID ASCENDSIM_UNUSED_CONSTANT = 100015;
static const int ACL_ERROR_MODEL_MISSING_ATTR ASCENDSIM_UNUSED_CONSTANT = 100016;
static const int ACL_ERROR_MODEL_INPUT_NOT_MATCH ASCENDSIM_UNUSED_CONSTANT = 100017;
static const int ACL_ERROR_MODEL_OUTPUT_NOT_MATCH ASCENDSIM_UNUSED_CONSTANT = 100018;
static const int ACL_ERROR_MODEL_NOT_DYNAMIC ASCENDSIM_UNUSED_CONSTANT = 100019;
static const int ACL_ERROR_OP_TYPE_NOT_MATCH ASCENDSIM_UNUSED_CONSTANT = 100020;
static const int ACL_ERROR_OP_INPUT_NOT_MATCH ASCENDSIM_UNUSED_CONSTANT = 100021;
static const int ACL_ERROR_OP_OUTPUT_NOT_MATCH ASCENDSIM_UNUSED_CONSTANT = 100022;
static const int ACL_ERROR_OP_ATTR_NOT_MATCH ASCENDSIM_UNUSED_CONSTANT = 100023;
static const int ACL_ERROR_OP_NOT_FOUND ASCENDSIM_UNUSED_CONSTANT = 100024;
static const int ACL_ERROR_OP_LOAD_FAILED ASCENDSIM_UNUSED_CONSTANT = 100025;
static const int ACL_ERROR_UNSUPPORTED_DATA_TYPE ASCENDSIM_UNUSED_CONSTANT = 100026;
static const int ACL_ERROR_FORMAT_NOT_MATCH ASCENDSIM_UNUSED_CONSTANT = 100027;
static const int ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED ASCENDSIM_UNUSED_CONSTANT = 100028;
static const int ACL_ERROR_KERNEL_NOT_FOUND ASCENDSIM_UNUSED_CONSTANT = 100029;
static const int ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED ASCENDSIM_UNUSED_CONSTANT = 100030;
static const int ACL_ERROR_KERNEL_ALREADY_REGISTERED ASCENDSIM_UNUSED_CONSTANT = 100031;
static const int ACL_ERROR_INVALID_QUEUE_ID ASCENDSIM_UNUSED_CONSTANT = 100032;
static const int ACL_ERROR_REPEAT_SUBSCRIBE ASCENDSIM_UNUSED_CONSTANT = 100033;
static const int ACL_ERROR_STREAM_NOT_SUBSCRIBE ASCENDSIM_UNUSED_CONSTANT = 100034;
static const int ACL_ERROR_THREAD_NOT_SUBSCRIBE ASCENDSIM_UNUSED_CONSTANT = 100035;
static const int ACL_ERROR_WAIT_CALLBACK_TIMEOUT ASCENDSIM_UNUSED_CONSTANT = 100036;
static const int ACL_ERROR_REPEAT_FINALIZE ASCENDSIM_UNUSED_CONSTANT = 100037;
static const int ACL_ERROR_NOT_STATIC_AIPP ASCENDSIM_UNUSED_CONSTANT = 100038;
static const int ACL_ERROR_COMPILING_STUB_MODE ASCENDSIM_UNUSED_CONSTANT = 100039;
static const int ACL_ERROR_GROUP_NOT_SET ASCENDSIM_UNUSED_CONSTANT = 100040;
static const int ACL_ERROR_GROUP_NOT_CREATE ASCENDSIM_UNUSED_CONSTANT = 100041;
static const int ACL_ERROR_PROF_ALREADY_RUN ASCENDSIM_UNUSED_CONSTANT = 100042;
static const int ACL_ERROR_PROF_NOT_RUN ASCENDSIM_UNUSED_CONSTANT = 100043;
static const int ACL_ERROR_DUMP_ALREADY_RUN ASCENDSIM_UNUSED_CONSTANT = 100044;
static const int ACL_ERROR_DUMP_NOT_RUN ASCENDSIM_UNUSED_CONSTANT = 100045;
static const int ACL_ERROR_PROF_REPEAT_SUBSCRIBE ASCENDSIM_UNUSED_CONSTANT = 148046;
static const int ACL_ERROR_PROF_API_CONFLICT ASCENDSIM_UNUSED_CONSTANT = 148047;
static const int ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG ASCENDSIM_UNUSED_CONSTANT = 148048;
static const int ACL_ERROR_INVALID_OPP_PATH ASCENDSIM_UNUSED_CONSTANT = 148049;
static const int ACL_ERROR_OP_UNSUPPORTED_DYNAMIC ASCENDSIM_UNUSED_CONSTANT = 148050;
static const int ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED ASCENDSIM_UNUSED_CONSTANT = 148051;
static const int ACL_ERROR_UNSUPPORTED_JPEG ASCENDSIM_UNUSED_CONSTANT = 148052;
static const int ACL_ERROR_INVALID_BUNDLE_MODEL_ID ASCENDSIM_UNUSED_CONSTANT = 148053;

static const int ACL_ERROR_BAD_ALLOC ASCENDSIM_UNUSED_CONSTANT = 200000;
static const int ACL_ERROR_API_NOT_SUPPORT ASCENDSIM_UNUSED_CONSTANT = 200001;
static const int ACL_ERROR_INVALID_DEVICE ASCENDSIM_UNUSED_CONSTANT = 200002;
static const int ACL_ERROR_MEMORY_ADDRESS_UNALIGNED ASCENDSIM_UNUSED_CONSTANT = 200003;
static const int ACL_ERROR_RESOURCE_NOT_MATCH ASCENDSIM_UNUSED_CONSTANT = 200004;
static const int ACL_ERROR_INVALID_RESOURCE_HANDLE ASCENDSIM_UNUSED_CONSTANT = 200005;
static const int ACL_ERROR_FEATURE_UNSUPPORTED ASCENDSIM_UNUSED_CONSTANT = 200006;
static const int ACL_ERROR_PROF_MODULES_UNSUPPORTED ASCENDSIM_UNUSED_CONSTANT = 200007;

static const int ACL_ERROR_STORAGE_OVER_LIMIT ASCENDSIM_UNUSED_CONSTANT = 300000;

static const int ACL_ERROR_INTERNAL_ERROR ASCENDSIM_UNUSED_CONSTANT = 500000;
static const int ACL_ERROR_FAILURE ASCENDSIM_UNUSED_CONSTANT = 500001;
static const int ACL_ERROR_GE_FAILURE ASCENDSIM_UNUSED_CONSTANT = 500002;
static const int ACL_ERROR_RT_FAILURE ASCENDSIM_UNUSED_CONSTANT = 500003;
static const int ACL_ERROR_DRV_FAILURE ASCENDSIM_UNUSED_CONSTANT = 500004;
static const int ACL_ERROR_PROFILING_FAILURE ASCENDSIM_UNUSED_CONSTANT = 500005;

/* ---- tensor constants and logging macro -------------------------------------------------------- */

#define ACL_TENSOR_SHAPE_RANGE_NUM 2  /* [min, max] per dimension */
#define ACL_TENSOR_VALUE_RANGE_NUM 2  /* [min, max] per value */
#define ACL_UNKNOWN_RANK 0xFFFFFFFFFFFFFFFE  /* aclGetTensorDescNumDims result for an unknown rank */

/* ACL_APP_LOG(level, fmt, ...): logs through aclAppLog with the caller's function, file and line.
 * The format is taken as part of the variable arguments so that a call without arguments after the
 * format is valid ISO C99 / C++11. Strict C89 / C++98 have no variadic macros: no ACL_APP_LOG there. */
#if (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L) || \
    (defined(__cplusplus) && __cplusplus >= 201103L)
#define ACL_APP_LOG(level, ...) aclAppLog(level, __func__, __FILE__, __LINE__, __VA_ARGS__)
#elif !defined(__STRICT_ANSI__)
#define ACL_APP_LOG(level, ...) aclAppLog(level, __FUNCTION__, __FILE__, __LINE__, __VA_ARGS__)
#endif

/* ---- enums -------------------------------------------------------------------------------------- */

/* Element types. */
typedef enum {
    ACL_DT_UNDEFINED = -1,
    ACL_FLOAT = 0,
    ACL_FLOAT16 = 1,
    ACL_INT8 = 2,
    ACL_INT32 = 3,
    ACL_UINT8 = 4,
    ACL_INT16 = 6,
    ACL_UINT16 = 7,
    ACL_UINT32 = 8,
    ACL_INT64 = 9,
    ACL_UINT64 = 10,
    ACL_DOUBLE = 11,
    ACL_BOOL = 12,
    ACL_STRING = 13,
    ACL_COMPLEX64 = 16,
    ACL_COMPLEX128 = 17,
    ACL_BF16 = 27,
    ACL_INT4 = 29,
    ACL_UINT1 = 30,
    ACL_COMPLEX32 = 33
} aclDataType;

/* Memory layouts of a tensor. */
typedef enum {
    ACL_FORMAT_UNDEFINED = -1,
    ACL_FORMAT_NCHW = 0,
    ACL_FORMAT_NHWC = 1,
    ACL_FORMAT_ND = 2,
    ACL_FORMAT_NC1HWC0 = 3,
    ACL_FORMAT_FRACTAL_Z = 4,
    ACL_FORMAT_NC1HWC0_C04 = 12,
    ACL_FORMAT_HWCN = 16,
    ACL_FORMAT_NDHWC = 27,
    ACL_FORMAT_FRACTAL_NZ = 29,
    ACL_FORMAT_NCDHW = 30,
    ACL_FORMAT_NDC1HWC0 = 32,
    ACL_FRACTAL_Z_3D = 33,
    ACL_FORMAT_NC = 35,
    ACL_FORMAT_NCL = 47
} aclFormat;

/* Severity for aclAppLog. */
typedef enum {
    ACL_DEBUG = 0,
    ACL_INFO = 1,
    ACL_WARNING = 2,
    ACL_ERROR = 3
} aclLogLevel;

/* Where a tensor's data lives (aclSetTensorPlaceMent). */
typedef enum {
    ACL_MEMTYPE_DEVICE = 0,
    ACL_MEMTYPE_HOST = 1,
    ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT = 2
} aclMemType;

/* Per-context system options (aclrtCtxSetSysParamOpt / aclrtCtxGetSysParamOpt). */
typedef enum {
    ACL_OPT_DETERMINISTIC = 0,
    ACL_OPT_ENABLE_DEBUG_KERNEL = 1
} aclSysParamOpt;

/* Capabilities of the installed software stack (aclGetCannAttribute). */
typedef enum {
    ACL_CANN_ATTR_UNDEFINED = -1,
    ACL_CANN_ATTR_INF_NAN = 0,
    ACL_CANN_ATTR_BF16 = 1,
    ACL_CANN_ATTR_JIT_COMPILE = 2
} aclCannAttr;

/* Device properties (aclGetDeviceCapability). */
typedef enum {
    ACL_DEVICE_INFO_UNDEFINED = -1,
    ACL_DEVICE_INFO_AI_CORE_NUM = 0,
    ACL_DEVICE_INFO_VECTOR_CORE_NUM = 1,
    ACL_DEVICE_INFO_L2_SIZE = 2
} aclDeviceInfo;

/* ---- functions ------------------------------------------------------------------------------------ */

/* fp16 <-> fp32 conversion. */
ACL_FUNC_VISIBILITY float aclFloat16ToFloat(aclFloat16 value);
ACL_FUNC_VISIBILITY aclFloat16 aclFloatToFloat16(float value);

/* Data buffers: a (pointer, size) pair that does not own the memory it describes. */
ACL_FUNC_VISIBILITY aclDataBuffer *aclCreateDataBuffer(void *data, size_t size);
ACL_FUNC_VISIBILITY aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer);
ACL_FUNC_VISIBILITY aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size);
ACL_FUNC_VISIBILITY void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer);
ACL_DEPRECATED_MESSAGE("aclGetDataBufferSize is deprecated: use aclGetDataBufferSizeV2")
ACL_FUNC_VISIBILITY uint32_t aclGetDataBufferSize(const aclDataBuffer *dataBuffer);
ACL_FUNC_VISIBILITY size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer);

/* Bytes per element of a data type (0 for strings and undefined). */
ACL_FUNC_VISIBILITY size_t aclDataTypeSize(aclDataType dataType);

/* Tensor descriptions: data type, shape, format and optional name / ranges / constant value. */
ACL_FUNC_VISIBILITY aclTensorDesc *aclCreateTensorDesc(aclDataType dataType, int numDims, const int64_t *dims,
                                                       aclFormat format);
ACL_FUNC_VISIBILITY void aclDestroyTensorDesc(const aclTensorDesc *desc);
ACL_FUNC_VISIBILITY aclError aclSetTensorShapeRange(aclTensorDesc *desc, size_t dimsCount,
                                                    int64_t dimsRange[][ACL_TENSOR_SHAPE_RANGE_NUM]);
ACL_FUNC_VISIBILITY aclError aclSetTensorValueRange(aclTensorDesc *desc, size_t valueCount,
                                                    int64_t valueRange[][ACL_TENSOR_VALUE_RANGE_NUM]);
ACL_FUNC_VISIBILITY aclDataType aclGetTensorDescType(const aclTensorDesc *desc);
ACL_FUNC_VISIBILITY aclFormat aclGetTensorDescFormat(const aclTensorDesc *desc);
ACL_FUNC_VISIBILITY size_t aclGetTensorDescSize(const aclTensorDesc *desc);
ACL_FUNC_VISIBILITY size_t aclGetTensorDescElementCount(const aclTensorDesc *desc);
ACL_FUNC_VISIBILITY size_t aclGetTensorDescNumDims(const aclTensorDesc *desc);
ACL_DEPRECATED_MESSAGE("aclGetTensorDescDim is deprecated: use aclGetTensorDescDimV2")
ACL_FUNC_VISIBILITY int64_t aclGetTensorDescDim(const aclTensorDesc *desc, size_t index);
ACL_FUNC_VISIBILITY aclError aclGetTensorDescDimV2(const aclTensorDesc *desc, size_t index, int64_t *dimSize);
ACL_FUNC_VISIBILITY aclError aclGetTensorDescDimRange(const aclTensorDesc *desc, size_t index, size_t dimRangeNum,
                                                      int64_t *dimRange);
ACL_FUNC_VISIBILITY void aclSetTensorDescName(aclTensorDesc *desc, const char *name);
ACL_FUNC_VISIBILITY const char *aclGetTensorDescName(aclTensorDesc *desc);
ACL_FUNC_VISIBILITY aclError aclTransTensorDescFormat(const aclTensorDesc *srcDesc, aclFormat dstFormat,
                                                      aclTensorDesc **dstDesc);
ACL_DEPRECATED_MESSAGE("aclSetTensorStorageFormat is deprecated: use aclSetTensorFormat")
ACL_FUNC_VISIBILITY aclError aclSetTensorStorageFormat(aclTensorDesc *desc, aclFormat format);
ACL_DEPRECATED_MESSAGE("aclSetTensorStorageShape is deprecated: use aclSetTensorShape")
ACL_FUNC_VISIBILITY aclError aclSetTensorStorageShape(aclTensorDesc *desc, int numDims, const int64_t *dims);
ACL_FUNC_VISIBILITY aclError aclSetTensorFormat(aclTensorDesc *desc, aclFormat format);
ACL_FUNC_VISIBILITY aclError aclSetTensorShape(aclTensorDesc *desc, int numDims, const int64_t *dims);
ACL_FUNC_VISIBILITY aclError aclSetTensorOriginFormat(aclTensorDesc *desc, aclFormat format);
ACL_FUNC_VISIBILITY aclError aclSetTensorOriginShape(aclTensorDesc *desc, int numDims, const int64_t *dims);
ACL_FUNC_VISIBILITY aclTensorDesc *aclGetTensorDescByIndex(aclTensorDesc *desc, size_t index);
ACL_FUNC_VISIBILITY void *aclGetTensorDescAddress(const aclTensorDesc *desc);
ACL_FUNC_VISIBILITY aclError aclSetTensorDynamicInput(aclTensorDesc *desc, const char *dynamicInputName);
ACL_FUNC_VISIBILITY aclError aclSetTensorConst(aclTensorDesc *desc, void *dataBuffer, size_t length);
ACL_FUNC_VISIBILITY aclError aclSetTensorPlaceMent(aclTensorDesc *desc, aclMemType memType);

/* Application log (printf-style); prefer the ACL_APP_LOG macro. */
ACL_FUNC_VISIBILITY void aclAppLog(aclLogLevel logLevel, const char *func, const char *file, uint32_t line,
                                   const char *fmt, ...);

/* Name of the emulated SoC; NULL on failure. */
ACL_FUNC_VISIBILITY const char *aclrtGetSocName();

/* Software-stack attributes and device capabilities. */
ACL_FUNC_VISIBILITY aclError aclGetCannAttributeList(const aclCannAttr **cannAttrList, size_t *num);
ACL_FUNC_VISIBILITY aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t *value);
ACL_FUNC_VISIBILITY aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t *value);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_BASE_H_ */
