/*
 * The contract between Ascend C kernels compiled for the emulator (kernel_operator.h, tikicpulib.h) and
 * libascendcl.so. A kernel is compiled into the user's program or into a shared object (bisheng -shared);
 * for each kernel the headers make an ascendsimKernel: its name, the function, and an entry that unpacks the
 * packed arguments and runs one block. The library runs the blocks of a launch concurrently on its intra-op
 * thread pool, each with its own unified buffer, and turns a block's fault into the AI Core exception of the
 * task. docs/ascendc.md describes the whole path.
 *
 * Argument packing (aclrtLaunchKernel's argsData, and what ICPU_RUN_KF / <<<>>> build): the kernel's
 * parameters back to back in declaration order, each at an offset aligned to its own alignment (as the
 * members of a C struct with those types): a pointer (GM_ADDR) is 8 bytes, a tiling struct is copied whole.
 */
#ifndef ASCENDSIM_ASCENDC_ABI_H_
#define ASCENDSIM_ASCENDC_ABI_H_

#include <stddef.h>
#include <stdint.h>

#include "acl/acl_base.h"
#include "acl/acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ASCENDSIM_ASCENDC_ABI_VERSION 1

/* What one block of a launch sees: its index, the launch's block count, its unified buffer. */
typedef struct ascendsimBlock {
    uint32_t index;
    uint32_t count;
    uint8_t *ub;        /* the block's unified buffer (UB), ub_size bytes, 64-byte aligned */
    size_t ub_size;     /* the emulated SoC's UB size */
    const char *kernel; /* the kernel's name, for messages */
    int32_t tiling_key; /* ICPU_SET_TILING_KEY's value (0 when not set) */
    aclError fault_code; /* the code a fault of this block fails the task with */
    void *launch;        /* the library's record of the launch (its global-memory writes); NULL outside a launch */
} ascendsimBlock;

/* A parameter of a kernel: where it sits in the packed arguments and what it is (for packing from Python). */
typedef enum ascendsimParamKind {
    ASCENDSIM_PARAM_BYTES = 0,    /* a struct or other trivially copyable value (tiling data, bfloat16_t) */
    ASCENDSIM_PARAM_POINTER = 1,  /* a global-memory address (GM_ADDR, __gm__ T*) */
    ASCENDSIM_PARAM_INT = 2,      /* a signed integer */
    ASCENDSIM_PARAM_UINT = 3,     /* an unsigned integer or bool */
    ASCENDSIM_PARAM_FLOAT = 4     /* float, double, half */
} ascendsimParamKind;

typedef struct ascendsimParam {
    uint32_t offset;
    uint32_t size;
    uint32_t kind; /* ascendsimParamKind */
} ascendsimParam;

typedef struct ascendsimKernel ascendsimKernel;
/*
 * Runs one block of `kernel` on `args` (args_size bytes, packed as above). Returns ACL_SUCCESS, or the
 * block's fault code with a message (NUL-terminated) in message[0, message_size).
 */
typedef aclError (*ascendsimKernelEntry)(const ascendsimKernel *kernel, const void *args, const ascendsimBlock *block,
                                         char *message, size_t message_size);

struct ascendsimKernel {
    uint32_t abi_version;      /* ASCENDSIM_ASCENDC_ABI_VERSION */
    const char *name;          /* the kernel's source name */
    void (*function)(void);    /* the kernel, cast to a generic function pointer; the entry casts it back */
    ascendsimKernelEntry entry;
    size_t args_size;          /* bytes of the packed arguments */
    uint32_t param_count;
    const ascendsimParam *params; /* param_count entries, in declaration order */
};

/*
 * The table of kernels of a kernel shared object made by ascendsim's bisheng (-shared): what
 * aclrtBinaryLoad / aclrtBinaryGetFunction read. `count` receives the number of kernels.
 */
typedef const ascendsimKernel *const *(*ascendsimKernelTableFn)(size_t *count);
#define ASCENDSIM_KERNEL_TABLE_SYMBOL "ascendsimKernelTable"

/*
 * Runs a launch of blockDim blocks now, on the calling thread and the pool (the CPU-debug mode,
 * ICPU_RUN_KF). Returns ACL_SUCCESS or the first faulting block's code, with its message recorded for
 * aclGetRecentErrMsg().
 */
ACL_FUNC_VISIBILITY aclError ascendsimKernelRun(const ascendsimKernel *kernel, uint32_t blockDim, const void *args,
                                                size_t argsSize, int32_t tilingKey);

/*
 * Queues a launch as one task on `stream` (NULL: the default stream): the <<<>>> launch. The arguments are
 * copied now. A fault is reported by the next synchronize of the stream, as aclrtLaunchKernel's.
 */
ACL_FUNC_VISIBILITY aclError ascendsimKernelLaunch(const ascendsimKernel *kernel, uint32_t blockDim, const void *args,
                                                   size_t argsSize, aclrtStream stream);

/*
 * Whether [addr, addr + size) lies inside one live global-memory allocation: a device allocation
 * (aclrtMalloc) or an AscendC::GmAlloc buffer. Returns 1 if so; else 0, with a description of where the
 * bytes are in what[0, whatSize). A write (write != 0) by `block` (NULL: outside a launch) through `api` is
 * recorded, so that bytes two blocks of one launch write fail the launch.
 */
ACL_FUNC_VISIBILITY int ascendsimGlobalMemoryCheck(const ascendsimBlock *block, const char *api, const void *addr,
                                                   size_t size, int write, char *what, size_t whatSize);

/* AscendC::GmAlloc / GmFree: host memory that kernels may use as global memory (64-byte aligned). */
ACL_FUNC_VISIBILITY void *ascendsimGmAlloc(size_t size);
/* Returns ACL_SUCCESS, or ACL_ERROR_INVALID_PARAM (with a message) for a pointer GmAlloc did not return. */
ACL_FUNC_VISIBILITY aclError ascendsimGmFree(void *ptr);

/* What platform_ascendc asks of a SoC: on-chip memory sizes (bytes; 0 where unknown) and core counts. */
typedef struct ascendsimSocInfo {
    char name[32];
    uint64_t ub_size, l1_size, l0a_size, l0b_size, l0c_size, l2_size, hbm_size;
    uint32_t cube_cores;   /* AIC (coupled SoCs: AI Cores) */
    uint32_t vector_cores; /* AIV (coupled SoCs: AI Cores) */
    uint32_t separated;    /* 1: AIC and AIV are separate cores (Atlas A2/A3) */
} ascendsimSocInfo;

/*
 * Fills *info for SoC `socName` (NULL or "": the emulated one, ASCENDSIM_SOC_NAME). hbm_size is the emulated
 * device memory (ASCENDSIM_DEVICE_MEMORY). An unknown name: ACL_ERROR_INVALID_PARAM with the known names.
 */
ACL_FUNC_VISIBILITY aclError ascendsimGetSocInfo(const char *socName, ascendsimSocInfo *info);

/*
 * A kernel function's name and parameters as JSON text, {"name": ..., "args_size": n, "params": [{"offset": o,
 * "size": s, "kind": k}, ...]}, in text[0, size) (NUL-terminated); *length receives the text's length. text
 * NULL: only the length; a size too small: ACL_ERROR_INVALID_PARAM with *length set.
 */
ACL_FUNC_VISIBILITY aclError ascendsimGetKernelParams(aclrtFuncHandle funcHandle, char *text, size_t size,
                                                      size_t *length);

/* Serialises AscendC::printf / DumpTensor lines of concurrent blocks. */
ACL_FUNC_VISIBILITY void ascendsimKernelPrintLock(int lock);

#ifdef __cplusplus
}
#endif

#endif /* ASCENDSIM_ASCENDC_ABI_H_ */
