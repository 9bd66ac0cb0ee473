// Follows hicann/runtime's BinaryLoader::ParseLoadOptions: a non-null options struct must point at its array
// (even when numOpt is 0), every entry's type must be known and its value valid, all with RT_ERROR_INVALID_VALUE
// (ACL_ERROR_RT_PARAM_INVALID) otherwise.
#include "ascendc/load_options.h"

#include <cstring>

#include "acl/error_codes/rt_error_codes.h"
#include "core/error.h"

namespace ascendsim::ascendc {
namespace {

bool known_magic(uint32_t magic) {
  return magic == ACL_RT_BINARY_MAGIC_ELF_AICORE || magic == ACL_RT_BINARY_MAGIC_ELF_VECTOR_CORE ||
         magic == ACL_RT_BINARY_MAGIC_ELF_CUBE_CORE;
}

aclError check_option(const char* api, size_t index, const aclrtBinaryLoadOption& option, bool from_file) {
  // The type is read as the int the caller stored: a C caller may store any value in the enum.
  int32_t type;
  static_assert(sizeof type == sizeof option.type, "aclrtBinaryLoadOptionType is int-sized");
  std::memcpy(&type, &option.type, sizeof type);
  switch (type) {
    case ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD:
      if (option.value.isLazyLoad > 1)
        return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: options[%zu] (ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD): isLazyLoad %u "
                    "is invalid, the valid values are 0 and 1", api, index, option.value.isLazyLoad);
      return ACL_SUCCESS;
    case ACL_RT_BINARY_LOAD_OPT_MAGIC:
      if (from_file)
        return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: options[%zu]: ACL_RT_BINARY_LOAD_OPT_MAGIC is not supported when "
                    "loading from a file (only by aclrtBinaryLoadFromData)", api, index);
      if (!known_magic(option.value.magic))
        return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: options[%zu] (ACL_RT_BINARY_LOAD_OPT_MAGIC): magic %#x is invalid, "
                    "the valid values are %#x, %#x and %#x (ACL_RT_BINARY_MAGIC_ELF_AICORE, _VECTOR_CORE, _CUBE_CORE)",
                    api, index, option.value.magic, ACL_RT_BINARY_MAGIC_ELF_AICORE,
                    ACL_RT_BINARY_MAGIC_ELF_VECTOR_CORE, ACL_RT_BINARY_MAGIC_ELF_CUBE_CORE);
      return ACL_SUCCESS;
    case ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE: {
      const int32_t mode = option.value.cpuKernelMode;
      if (from_file ? (mode != 0 && mode != 1) : mode != 2)
        return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: options[%zu] (ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE): "
                    "cpuKernelMode %d is invalid, the valid %s", api, index, mode,
                    from_file ? "values are 0 and 1 when loading from a file" : "value is 2 when loading from data");
      return fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "%s: options[%zu]: AI CPU kernels "
                  "(ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE %d) are not emulated; ascendsim loads Ascend C kernel "
                  "binaries built by its bisheng", api, index, mode);
    }
    default:
      return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: options[%zu]: option type %d is invalid, the valid range is [%d, %d]",
                  api, index, type, ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD, ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE);
  }
}

}  // namespace

aclError check_load_options(const char* api, const aclrtBinaryLoadOptions* options, bool from_file) {
  if (options == nullptr) return ACL_SUCCESS;
  if (options->options == nullptr)
    return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: options is not NULL but options->options is NULL (numOpt %zu)", api,
                options->numOpt);
  for (size_t i = 0; i < options->numOpt; ++i)
    if (aclError ret = check_option(api, i, options->options[i], from_file)) return ret;
  return ACL_SUCCESS;
}

}  // namespace ascendsim::ascendc
