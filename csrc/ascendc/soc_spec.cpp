// The SoC table. Sizes are CANN's platform_config/<soc>.ini values as restated in the Ascend C fact sheet
// (/work/shared/spec/ascendc-api.md, sections 1.3 and 1.5): Ascend910B1/B2 192 KiB UB, 512 KiB L1, 64 KiB L0A/B,
// 128 KiB L0C, 24 AIC + 48 AIV; 910B3/B4 20 + 40; 910A 256 KiB UB, 1 MiB L1, 256 KiB L0C, 32 AI Cores; 310B1 248 KiB
// UB. A fault of a vector kernel on the separated (A2/A3) SoCs is the vector-core exception 507035 (what the
// runtime's failure-mode sample reports for a trapping kernel); on coupled SoCs the AI Core exception 507015.
#include "ascendc/soc_spec.h"

#include <cstring>

#include "acl/error_codes/rt_error_codes.h"
#include "runtime/runtime.h"

namespace ascendsim::ascendc {
namespace {

constexpr size_t KiB = 1024;
constexpr SocSpec kTable[] = {
    {"Ascend910B1", 192 * KiB, 512 * KiB, 64 * KiB, 64 * KiB, 128 * KiB, 24, 48, ACL_ERROR_RT_VECTOR_CORE_EXCEPTION},
    {"Ascend910B2", 192 * KiB, 512 * KiB, 64 * KiB, 64 * KiB, 128 * KiB, 24, 48, ACL_ERROR_RT_VECTOR_CORE_EXCEPTION},
    {"Ascend910B3", 192 * KiB, 512 * KiB, 64 * KiB, 64 * KiB, 128 * KiB, 20, 40, ACL_ERROR_RT_VECTOR_CORE_EXCEPTION},
    {"Ascend910B4", 192 * KiB, 512 * KiB, 64 * KiB, 64 * KiB, 128 * KiB, 20, 40, ACL_ERROR_RT_VECTOR_CORE_EXCEPTION},
    {"Ascend910A", 256 * KiB, 1024 * KiB, 64 * KiB, 64 * KiB, 256 * KiB, 32, 32, ACL_ERROR_RT_AICORE_EXCEPTION},
    {"Ascend910ProB", 256 * KiB, 1024 * KiB, 64 * KiB, 64 * KiB, 256 * KiB, 32, 32, ACL_ERROR_RT_AICORE_EXCEPTION},
    {"Ascend310B1", 248 * KiB, 1024 * KiB, 64 * KiB, 64 * KiB, 128 * KiB, 1, 1, ACL_ERROR_RT_AICORE_EXCEPTION},
};

const SocSpec& lookup(const std::string& name) {
  for (const SocSpec& row : kTable)
    if (name == row.name) return row;
  return kTable[0];
}

}  // namespace

const SocSpec& current_soc() {
  static const SocSpec& spec = lookup(Runtime::instance().soc_name());
  return spec;
}

}  // namespace ascendsim::ascendc
