// Ascend C kernels on the emulated device: the kernel-binary functions of acl_rt.h (aclrtCreateBinary ...
// aclrtLaunchKernel) and the ascendsim* functions the kernel headers call (include/ascendsim/ascendc_abi.h):
// <<<>>> launches, ICPU_RUN_KF, the global-memory check, GmAlloc. A launch is one task on the stream that runs the
// kernel's blocks (ascendc/block_runner.h); its fault is reported by the next synchronize. docs/ascendc.md.
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "ascendc/block_runner.h"
#include "ascendc/global_memory.h"
#include "ascendc/kernel_binary.h"
#include "ascendc/load_options.h"
#include "ascendc/soc_spec.h"
#include "ascendc/write_log.h"
#include "ascendsim/ascendc_abi.h"
#include "core/error.h"
#include "core/handle_registry.h"
#include "prof/profiler.h"
#include "runtime/allocation_check.h"
#include "runtime/runtime.h"
#include "runtime/stream.h"

using namespace ascendsim;
using ascendc::BinaryImage;
using ascendc::KernelRef;
using ascendc::LoadedBinary;

namespace {

// A function handle: the kernel and the loaded binary that holds its code.
struct KernelFunction {
  explicit KernelFunction(KernelRef k) : ref(std::move(k)) {}
  KernelRef ref;
};

// A loaded binary and the function handles given out for it (dropped at unload).
struct BinaryHandle {
  std::shared_ptr<LoadedBinary> binary;
  std::mutex mutex;
  std::vector<void*> functions;
};

HandleRegistry<BinaryImage>& images() {
  static auto* registry = new HandleRegistry<BinaryImage>("kernel binary");  // outlives late destructors at exit
  return *registry;
}
HandleRegistry<BinaryHandle>& loaded() {
  static auto* registry = new HandleRegistry<BinaryHandle>("loaded kernel binary");
  return *registry;
}
HandleRegistry<KernelFunction>& functions() {
  static auto* registry = new HandleRegistry<KernelFunction>("kernel function");
  return *registry;
}

// Queues the launch. Arguments in device memory are read when the task runs (a copy queued before the launch
// on the same stream has filled them by then); host arguments are copied now.
aclError enqueue_launch(const char* api, KernelRef kernel, uint32_t block_dim, const void* args, size_t args_size,
                        aclrtStream stream_handle) {
  if (aclError ret = ascendc::check_launch(api, kernel.kernel, block_dim, args, args_size)) return ret;
  std::shared_ptr<Stream> stream;
  if (aclError ret = resolve_stream(stream_handle, api, &stream)) return ret;
  // Device or pinned host arguments must lie inside their live allocation (check_region's rule); other host
  // memory is the caller's own.
  MemoryRegion region;
  if (args != nullptr && args_size != 0)
    if (aclError ret = check_region(args, args_size, ACL_ERROR_RT_PARAM_INVALID, api, "argsData", &region)) return ret;
  const bool on_device = args != nullptr && region.is_device();
  try {
    std::vector<uint8_t> copied;
    if (!on_device && args_size != 0) copied.assign(static_cast<const uint8_t*>(args), static_cast<const uint8_t*>(args) + args_size);
    const prof::TaskLabel label{"LaunchKernel", {"blockDim", block_dim}, {"argsSize", args_size}};
    return stream->enqueue(
        [kernel = std::move(kernel), block_dim, copied = std::move(copied), device_args = on_device ? args : nullptr] {
          return ascendc::run_blocks(kernel, block_dim, device_args != nullptr ? device_args : copied.data(), 0);
        },
        nullptr, label);
  } catch (const std::bad_alloc&) {
    return fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: out of host memory", api);
  }
}

// A binary image's bytes inside a device or pinned host allocation must lie inside it (check_region's rule: RC mode
// hands the image over in device memory); other host memory is the caller's.
aclError binary_image_problem(const char* api, const void* data, size_t length) {
  MemoryRegion region;
  return check_region(data, length, ACL_ERROR_RT_PARAM_INVALID, api, "data", &region);
}

// The load every aclrtBinaryLoad* form shares: into the current context, through `load` (which reads the image
// from where that form has it; called with `api`), then registered as a binHandle.
template <typename Load>
aclError load_binary(const char* api, aclrtBinHandle* binHandle, const Load& load) {
  std::shared_ptr<Context> context;
  if (aclError ret = require_current_context(api, &context)) return ret;
  auto handle = std::make_shared<BinaryHandle>();
  if (aclError ret = load(api, &handle->binary)) return ret;
  *binHandle = loaded().add(std::move(handle), api);
  return ACL_SUCCESS;
}

}  // namespace

extern "C" {

aclrtBinary aclrtCreateBinary(const void* data, size_t dataLen) {
  if (data == nullptr) {
    fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateBinary: argument 'data' is NULL");
    return nullptr;
  }
  if (dataLen == 0) {
    fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateBinary: dataLen is 0");
    return nullptr;
  }
  if (binary_image_problem(__func__, data, dataLen) != ACL_SUCCESS) return nullptr;
  try {
    return images().add(std::make_shared<BinaryImage>(BinaryImage{data, dataLen}), __func__);
  } catch (const std::bad_alloc&) {
    fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "aclrtCreateBinary: out of host memory");
    return nullptr;
  }
}

aclError aclrtDestroyBinary(aclrtBinary binary) {
  ASCENDSIM_CHECK_NOT_NULL(binary);
  if (images().remove(binary) == nullptr)
    return fail(ACL_ERROR_RT_INVALID_HANDLE, "%s: binary %p is not a live binary (destroyed or never created)",
                __func__, binary);
  return ACL_SUCCESS;
}

aclError aclrtBinaryLoad(const aclrtBinary binary, aclrtBinHandle* binHandle) {
  ASCENDSIM_CHECK_NOT_NULL(binary);
  ASCENDSIM_CHECK_NOT_NULL(binHandle);
  std::shared_ptr<BinaryImage> image = images().find(binary);
  if (!image)
    return fail(ACL_ERROR_RT_INVALID_HANDLE, "%s: binary %p is not a live binary (destroyed or never created)",
                __func__, binary);
  return load_binary(__func__, binHandle, [&](const char* api, std::shared_ptr<LoadedBinary>* out) {
    return LoadedBinary::load(api, *image, out);
  });
}

aclError aclrtBinaryLoadFromFile(const char* binPath, aclrtBinaryLoadOptions* options, aclrtBinHandle* binHandle) {
  ASCENDSIM_CHECK_NOT_NULL(binPath);
  ASCENDSIM_CHECK_NOT_NULL(binHandle);
  if (aclError ret = ascendc::check_load_options(__func__, options, true)) return ret;
  return load_binary(__func__, binHandle, [&](const char* api, std::shared_ptr<LoadedBinary>* out) {
    return LoadedBinary::load_file(api, binPath, out);
  });
}

aclError aclrtBinaryLoadFromData(const void* data, size_t length, const aclrtBinaryLoadOptions* options,
                                 aclrtBinHandle* binHandle) {
  ASCENDSIM_CHECK_NOT_NULL(data);
  ASCENDSIM_CHECK_NOT_NULL(binHandle);
  if (length == 0) return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: length is 0 (it must be greater than 0)", __func__);
  if (aclError ret = binary_image_problem(__func__, data, length)) return ret;
  if (aclError ret = ascendc::check_load_options(__func__, options, false)) return ret;
  return load_binary(__func__, binHandle, [&](const char* api, std::shared_ptr<LoadedBinary>* out) {
    return LoadedBinary::load(api, BinaryImage{data, length}, out);
  });
}

aclError aclrtBinaryUnLoad(aclrtBinHandle binHandle) {
  ASCENDSIM_CHECK_NOT_NULL(binHandle);
  std::shared_ptr<BinaryHandle> handle = loaded().remove(binHandle);
  if (!handle)
    return fail(ACL_ERROR_RT_INVALID_HANDLE, "%s: binHandle %p is not a loaded binary (unloaded or never loaded)",
                __func__, binHandle);
  std::lock_guard<std::mutex> lock(handle->mutex);
  for (void* f : handle->functions) functions().remove(f);  // queued launches keep the code loaded themselves
  return ACL_SUCCESS;
}

aclError aclrtBinaryGetFunction(const aclrtBinHandle binHandle, const char* kernelName, aclrtFuncHandle* funcHandle) {
  ASCENDSIM_CHECK_NOT_NULL(binHandle);
  ASCENDSIM_CHECK_NOT_NULL(kernelName);
  ASCENDSIM_CHECK_NOT_NULL(funcHandle);
  std::shared_ptr<BinaryHandle> handle = loaded().find(binHandle);
  if (!handle)
    return fail(ACL_ERROR_RT_INVALID_HANDLE, "%s: binHandle %p is not a loaded binary (unloaded or never loaded)",
                __func__, binHandle);
  const ascendsimKernel* kernel = handle->binary->find(kernelName);
  if (kernel == nullptr)
    return fail(ACL_ERROR_RT_KERNEL_LOOKUP, "%s: the binary has no kernel named \"%s\" (it has: %s)", __func__,
                kernelName, handle->binary->names().c_str());
  std::lock_guard<std::mutex> lock(handle->mutex);
  void* f = functions().add(std::make_shared<KernelFunction>(KernelRef(*kernel, handle->binary)), __func__,
                            Owner::kRuntime);  // released by aclrtBinaryUnLoad, not a leak of its own
  handle->functions.push_back(f);
  *funcHandle = f;
  return ACL_SUCCESS;
}

aclError aclrtLaunchKernel(aclrtFuncHandle funcHandle, uint32_t blockDim, const void* argsData, size_t argsSize,
                           aclrtStream stream) {
  ASCENDSIM_CHECK_NOT_NULL(funcHandle);
  std::shared_ptr<KernelFunction> function = functions().find(funcHandle);
  if (!function)
    return fail(ACL_ERROR_RT_INVALID_HANDLE, "%s: funcHandle %p is not a live kernel function (its binary was "
                "unloaded, or it never came from aclrtBinaryGetFunction)", __func__, funcHandle);
  return enqueue_launch(__func__, function->ref, blockDim, argsData, argsSize, stream);
}

aclError ascendsimKernelLaunch(const ascendsimKernel* kernel, uint32_t blockDim, const void* args, size_t argsSize,
                               aclrtStream stream) {
  ASCENDSIM_CHECK_NOT_NULL(kernel);
  return enqueue_launch("<<<>>>", KernelRef(*kernel, nullptr), blockDim, args, argsSize, stream);
}

aclError ascendsimKernelRun(const ascendsimKernel* kernel, uint32_t blockDim, const void* args, size_t argsSize,
                            int32_t tilingKey) {
  ASCENDSIM_CHECK_NOT_NULL(kernel);
  const KernelRef ref(*kernel, nullptr);
  if (aclError ret = ascendc::check_launch("ICPU_RUN_KF", ref.kernel, blockDim, args, argsSize)) return ret;
  return ascendc::run_blocks(ref, blockDim, args, tilingKey);
}

int ascendsimGlobalMemoryCheck(const ascendsimBlock* block, const char* api, const void* addr, size_t size, int write,
                               char* what, size_t whatSize) {
  if (!ascendc::gm_check(addr, size, what, whatSize)) return 0;
  if (write != 0 && block != nullptr && block->launch != nullptr)
    static_cast<ascendc::WriteLog*>(block->launch)->add(block->index, addr, size, api);
  return 1;
}

aclError ascendsimGetKernelParams(aclrtFuncHandle funcHandle, char* text, size_t size, size_t* length) {
  ASCENDSIM_CHECK_NOT_NULL(funcHandle);
  ASCENDSIM_CHECK_NOT_NULL(length);
  std::shared_ptr<KernelFunction> function = functions().find(funcHandle);
  if (!function)
    return fail(ACL_ERROR_RT_INVALID_HANDLE, "%s: funcHandle %p is not a live kernel function", __func__, funcHandle);
  const ascendsimKernel& k = function->ref.kernel;
  std::string json = "{\"name\": \"" + function->ref.name + "\", \"args_size\": " + std::to_string(k.args_size) +
                     ", \"params\": [";
  for (uint32_t i = 0; i < k.param_count; ++i)
    json += std::string(i == 0 ? "" : ", ") + "{\"offset\": " + std::to_string(k.params[i].offset) +
            ", \"size\": " + std::to_string(k.params[i].size) + ", \"kind\": " + std::to_string(k.params[i].kind) + "}";
  json += "]}";
  *length = json.size();
  if (text == nullptr) return ACL_SUCCESS;  // the size query
  if (size <= json.size())
    return fail(ACL_ERROR_INVALID_PARAM, "%s: the text needs %zu bytes, the buffer has %zu", __func__, json.size() + 1,
                size);
  std::memcpy(text, json.c_str(), json.size() + 1);
  return ACL_SUCCESS;
}

void* ascendsimGmAlloc(size_t size) { return ascendc::gm_alloc(size); }

aclError ascendsimGmFree(void* ptr) { return ascendc::gm_free(ptr); }

aclError ascendsimGetSocInfo(const char* socName, ascendsimSocInfo* info) {
  ASCENDSIM_CHECK_NOT_NULL(info);
  const ascendc::SocSpec* soc = socName == nullptr || socName[0] == '\0' ? &ascendc::current_soc()
                                                                         : ascendc::find_soc(socName);
  if (soc == nullptr)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: SoC \"%s\" is not in the emulator's table (%s)", __func__, socName,
                ascendc::known_socs());
  *info = ascendsimSocInfo{};
  std::snprintf(info->name, sizeof info->name, "%s", soc->name);
  info->ub_size = soc->ub_size;
  info->l1_size = soc->l1_size;
  info->l0a_size = soc->l0a_size;
  info->l0b_size = soc->l0b_size;
  info->l0c_size = soc->l0c_size;
  info->l2_size = soc->l2_size;
  info->hbm_size = Runtime::instance().device_capacity();
  info->cube_cores = soc->cube_cores;
  info->vector_cores = soc->vector_cores;
  info->separated = soc->separated() ? 1 : 0;
  return ACL_SUCCESS;
}

void ascendsimKernelPrintLock(int lock) {
  static std::recursive_mutex mutex;
  if (lock != 0)
    mutex.lock();
  else
    mutex.unlock();
}

}  // extern "C"
