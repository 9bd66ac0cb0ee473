/*
 * ascendsim extensions: functions of the emulator that are not part of AscendCL, exported by
 * libascendcl.so with the prefix `ascendsim`. They return aclError codes like the AscendCL functions and
 * record a message for aclGetRecentErrMsg() on failure.
 */
#ifndef ASCENDSIM_ASCENDSIM_EXT_H_
#define ASCENDSIM_ASCENDSIM_EXT_H_

#include <stddef.h>
#include <stdint.h>

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Memory statistics of one emulated device's caching allocator (after PyTorch's torch.cuda.memory_stats).
 * Byte counts are block sizes: a request is rounded up to a multiple of 512 bytes (after aclrtMalloc's own
 * rounding to 32 bytes plus 32 bytes of padding).
 */
typedef struct ascendsimMemoryStats {
    uint64_t capacity_bytes;       /* the device memory (ASCENDSIM_DEVICE_MEMORY, default 32 GiB) */
    uint64_t allocated_bytes;      /* held by live allocations */
    uint64_t requested_bytes;      /* the sizes callers asked for, of live allocations */
    uint64_t reserved_bytes;       /* held by segments: allocated + cached */
    uint64_t peak_allocated_bytes; /* since the device was first used or the last reset of the peaks */
    uint64_t peak_reserved_bytes;
    uint64_t largest_free_block;   /* largest free piece: a cached block or never-reserved memory */
    uint64_t allocation_count;     /* allocations served so far */
    uint64_t free_count;           /* frees so far */
    uint64_t segment_count;        /* segments currently reserved */
    uint64_t cache_hits;           /* allocations served from cached blocks */
    uint64_t alloc_retries;        /* times the cache was released to satisfy a request */
    uint64_t oom_count;            /* failed allocations */
} ascendsimMemoryStats;

/* Fills *stats for device `deviceId`. Invalid id: ACL_ERROR_RT_INVALID_DEVICEID; stats NULL: ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError ascendsimGetMemoryStats(int32_t deviceId, ascendsimMemoryStats *stats);

/* Restarts the peak figures from the current values. */
ACL_FUNC_VISIBILITY aclError ascendsimResetPeakMemoryStats(int32_t deviceId);

/* Waits for the device's queued work, then releases every cached segment that holds no allocation. */
ACL_FUNC_VISIBILITY aclError ascendsimEmptyCache(int32_t deviceId);

/*
 * The instruction-set variant of the kernels this process runs (docs/kernels.md), e.g. "avx2": the best one the
 * CPU runs, or the one ASCENDSIM_ISA names; chosen at the first call or kernel build. And the variants this CPU
 * runs, lowest first, separated by spaces ("baseline avx2 avx512"). Static strings, never NULL.
 */
ACL_FUNC_VISIBILITY const char *ascendsimGetKernelVariant(void);
ACL_FUNC_VISIBILITY const char *ascendsimGetKernelVariants(void);

/*
 * The kernels of loaded model `modelId` as JSON text (the convention of ascendsimGetLeakReport below):
 * {"model", "variant", "plans": [{"nodes": [{"name", "op", "path"}]}]}, one plan per gear; "path" says which path
 * a node's kernel runs where its op has several (e.g. "Winograd F(2x2, 3x3), products on packed tiles ..."), ""
 * otherwise, "view" for a node that computes nothing. A model that is not loaded: ACL_ERROR_GE_EXEC_MODEL_ID_INVALID.
 */
ACL_FUNC_VISIBILITY aclError ascendsimGetModelKernels(uint32_t modelId, char *json, size_t capacity, size_t *length);

/*
 * Feature-map memory of loaded model `modelId` (docs/runtime.md, "Dynamic shapes: the v2 runtime").
 * v1 (static or gear) model: runtime 1, planned_bytes the static planner's feature-map arena of the plan the latest
 * execution ran (plan 0 before one); the peaks are planned_bytes. v2 (dynamic-shape) model: runtime 2,
 * planned_bytes 0; last_peak_bytes the most feature-map bytes live at once in the latest successful execution,
 * max_peak_bytes the largest since load (0 before one), each feature map rounded up to 512 bytes as the static
 * planner counts it, so that the peak of a shape compares with the arena of a model compiled for that shape.
 * A model that is not loaded: ACL_ERROR_GE_EXEC_MODEL_ID_INVALID.
 */
typedef struct ascendsimModelMemory {
    uint32_t runtime;
    uint64_t planned_bytes;
    uint64_t last_peak_bytes;
    uint64_t max_peak_bytes;
    uint64_t executions; /* v2: successful executions since load; v1: 0 */
} ascendsimModelMemory;

ACL_FUNC_VISIBILITY aclError ascendsimGetModelMemory(uint32_t modelId, ascendsimModelMemory *memory);

/*
 * Observability (docs/observability.md). Both write JSON text into `json` (capacity bytes, NUL included) and
 * the text's length (without the NUL) into *length; capacity 0 only sets *length. A too small buffer:
 * ACL_ERROR_INVALID_PARAM.
 *
 * ascendsimGetLeakReport: live == 0: the report of the latest aclFinalize or last aclrtResetDevice of a device
 * ({"trigger", "device", "objects": [{"kind", "handle", "id", "device", "size", "api", "seq"}]}, trigger null
 * before the first); live != 0: the objects live now that aclFinalize would report.
 * ascendsimGetMemorySnapshot: the caching allocator's segments of device `deviceId` with their blocks
 * ({"device", "segments": [{"address", "size", "pool", "stream", "blocks": [{"address", "size", "requested",
 * "state", "api", "seq"}]}]}).
 */
ACL_FUNC_VISIBILITY aclError ascendsimGetLeakReport(int32_t live, char *json, size_t capacity, size_t *length);
ACL_FUNC_VISIBILITY aclError ascendsimGetMemorySnapshot(int32_t deviceId, char *json, size_t capacity,
                                                        size_t *length);

/*
 * Hooks around host waits the runtime makes on its own (the allocator waiting for the device before it
 * releases cached memory on an out-of-memory retry). An embedding interpreter uses them to let its other
 * threads run meanwhile: begin() returns a token that end() receives. NULL hooks remove them.
 */
ACL_FUNC_VISIBILITY void ascendsimSetHostWaitHooks(void *(*begin)(void), void (*end)(void *token));

/* The single-operator cache (aclopCompile*, aclopExecute*): compiled-kernel lookups that found a kernel
 * (hits) or built one (misses), the kernels cached now, and the operator signatures registered by loaded
 * single-op models and online compilations. Process-wide; never reset. */
typedef struct ascendsimOpCacheStats {
    uint64_t hits;
    uint64_t misses;
    uint64_t entries;
    uint64_t registered;
} ascendsimOpCacheStats;

ACL_FUNC_VISIBILITY aclError ascendsimGetOpCacheStats(ascendsimOpCacheStats *stats);

/*
 * Whether the single-operator model image `model` (an .om of `atc --singleop`) would run: parsed as aclopLoad
 * parses it (any SoC) and its signature built as an execution builds it, registering nothing. ACL_SUCCESS, or the
 * code and message the runtime would give (e.g. ACL_ERROR_FORMAT_NOT_MATCH for a layout no kernel runs,
 * ACL_ERROR_OP_OUTPUT_NOT_MATCH for an output description the operator does not produce). atc --singleop calls it
 * for every model it writes (docs/single-op.md). NULL or size 0: ACL_ERROR_INVALID_PARAM.
 */
ACL_FUNC_VISIBILITY aclError ascendsimCheckOpModel(const void *model, size_t modelSize);

/*
 * Fault injection (docs/fault-injection.md): make chosen calls fail with chosen codes, to test a program's error
 * paths. `spec` is rules separated by ';', each "site[:key=value,...]" with the sites aclrtMalloc, stream_task,
 * stream_sync, event_sync, model_execute (keys nth, count, code) and memory_cap (keys nth, bytes, device), the
 * grammar of the ASCENDSIM_FAULTS environment variable that aclInit reads. The rules are added to those already
 * installed; a malformed spec installs nothing and returns ACL_ERROR_INVALID_PARAM with a message naming the
 * rule. ascendsimClearFaults removes every rule and device memory cap. Each injected failure records an
 * aclGetRecentErrMsg() text that quotes its rule.
 */
ACL_FUNC_VISIBILITY aclError ascendsimInjectFaults(const char *spec);
ACL_FUNC_VISIBILITY aclError ascendsimClearFaults(void);

#ifdef __cplusplus
}
#endif

#endif /* ASCENDSIM_ASCENDSIM_EXT_H_ */
