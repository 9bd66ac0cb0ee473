// The SoC table. Sizes are CANN's platform_config/<soc>.ini values as restated in the Ascend C fact sheet
// (/work/shared/spec/ascendc-api.md, sections 1.3 and 1.5): Ascend910B1/B2 192 KiB UB, 512 KiB L1, 64 KiB L0A/B,
// 128 KiB L0C, 24 AIC + 48 AIV; 910B3/B4 20 + 40; 910A 256 KiB UB, 1 MiB L1, 256 KiB L0C, 32 AI Cores; 310B1 248 KiB
// UB; L2 192 MiB on 910B2 and 96 MiB on 910B4 (the only L2 sizes the sources give; the others are 0, unknown). The
// 310B1's core count is not confirmed by the sources. A fault of a vector kernel on the separated (A2/A3) SoCs is
// the vector-core exception 507035 (what the runtime's failure-mode sample reports for a trapping kernel); on coupled
// SoCs the AI Core exception 507015.
#include "ascendc/soc_spec.h"

#include <cstring>

#include "acl/error_codes/rt_error_codes.h"
#include "runtime/runtime.h"

namespace ascendsim::ascendc {
namespace {

constexpr size_t KiB = 1024;
constexpr size_t MiB = 1024 * KiB;
constexpr aclError kAiv = ACL_ERROR_RT_VECTOR_CORE_EXCEPTION;
constexpr aclError kAic = ACL_ERROR_RT_AICORE_EXCEPTION;
constexpr SocSpec kTable[] = {
    {"Ascend910B1", 192 * KiB, 512 * KiB, 64 * KiB, 64 * KiB, 128 * KiB, 0, 24, 48, kAiv},
    {"Ascend910B2", 192 * KiB, 512 * KiB, 64 * KiB, 64 * KiB, 128 * KiB, 192 * MiB, 24, 48, kAiv},
    {"Ascend910B3", 192 * KiB, 512 * KiB, 64 * KiB, 64 * KiB, 128 * KiB, 0, 20, 40, kAiv},
    {"Ascend910B4", 192 * KiB, 512 * KiB, 64 * KiB, 64 * KiB, 128 * KiB, 96 * MiB, 20, 40, kAiv},
    {"Ascend910A", 256 * KiB, 1024 * KiB, 64 * KiB, 64 * KiB, 256 * KiB, 0, 32, 32, kAic},
    {"Ascend910ProB", 256 * KiB, 1024 * KiB, 64 * KiB, 64 * KiB, 256 * KiB, 0, 32, 32, kAic},
    {"Ascend310B1", 248 * KiB, 1024 * KiB, 64 * KiB, 64 * KiB, 128 * KiB, 0, 1, 1, kAic},
};

}  // namespace

bool SocSpec::separated() const { return fault_code == kAiv; }

const SocSpec* find_soc(const char* name) {
  for (const SocSpec& row : kTable)
    if (std::strcmp(name, row.name) == 0) return &row;
  return nullptr;
}

const char* known_socs() {
  return "Ascend910B1, Ascend910B2, Ascend910B3, Ascend910B4, Ascend910A, Ascend910ProB, Ascend310B1";
}

const SocSpec& current_soc() {
  static const SocSpec* spec = find_soc(Runtime::instance().soc_name().c_str());
  return spec != nullptr ? *spec : kTable[0];
}

}  // namespace ascendsim::ascendc
