// platform_ascendc on ascendsim: what host tiling code asks of the SoC (core counts, on-chip memory sizes), answered
// from the emulator's SoC table (csrc/ascendc/soc_spec.cpp, with its sources) through ascendsimGetSocInfo. Link with
// libascendcl (the toolkit's libplatform.so and libtiling_api.so are names for it). GetInstance() is the emulated
// SoC (ASCENDSIM_SOC_NAME); GetInstance("Ascend910B2") another one of the table (the first call's SoC wins, as in
// CANN). An unknown SoC answers 0 everywhere and GetSocVersion() RESERVED_VERSION.
#ifndef ASCENDSIM_PLATFORM_ASCENDC_H_
#define ASCENDSIM_PLATFORM_ASCENDC_H_

#include <cstdint>
#include <cstring>

#include "ascendsim/ascendc_abi.h"

namespace platform_ascendc {

enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, FB = 7, BT = 8, RESERVED };
enum class SocVersion { ASCEND910 = 0, ASCEND910B, ASCEND310P, ASCEND310B, RESERVED_VERSION = 99999 };

class PlatformAscendC {
 public:
  explicit PlatformAscendC(const char* soc) { known_ = ascendsimGetSocInfo(soc, &info_) == ACL_SUCCESS; }

  // Separated SoCs (Atlas A2/A3): the AIC count, as CANN answers for them; coupled ones: the AI Cores.
  uint32_t GetCoreNum() const { return known_ ? info_.cube_cores : 0; }
  uint32_t GetCoreNumAic() const { return known_ ? info_.cube_cores : 0; }
  uint32_t GetCoreNumAiv() const { return known_ ? info_.vector_cores : 0; }
  uint32_t GetCoreNumVector() const { return 0; }  // separate vector cores exist on 310P only, not in the table
  SocVersion GetSocVersion() const {
    if (!known_) return SocVersion::RESERVED_VERSION;
    if (std::strncmp(info_.name, "Ascend910B", 10) == 0) return SocVersion::ASCEND910B;
    if (std::strncmp(info_.name, "Ascend310B", 10) == 0) return SocVersion::ASCEND310B;
    return SocVersion::ASCEND910;
  }
  void GetCoreMemSize(const CoreMemType& type, uint64_t& size) const {
    size = 0;
    if (!known_) return;
    switch (type) {
      case CoreMemType::L0_A: size = info_.l0a_size; break;
      case CoreMemType::L0_B: size = info_.l0b_size; break;
      case CoreMemType::L0_C: size = info_.l0c_size; break;
      case CoreMemType::L1: size = info_.l1_size; break;
      case CoreMemType::L2: size = info_.l2_size; break;
      case CoreMemType::UB: size = info_.ub_size; break;
      case CoreMemType::HBM: size = info_.hbm_size; break;
      default: break;
    }
  }
  // The system workspace the library APIs (Matmul ...) need: none on the emulator, which has no such API.
  uint32_t GetLibApiWorkSpaceSize() const { return 0; }

 private:
  ascendsimSocInfo info_{};
  bool known_ = false;
};

class PlatformAscendCManager {
 public:
  static PlatformAscendC* GetInstance() { return GetInstance(nullptr); }
  static PlatformAscendC* GetInstance(const char* customSocVersion) {
    static PlatformAscendC instance(customSocVersion);
    return &instance;
  }
};

}  // namespace platform_ascendc

#endif  // ASCENDSIM_PLATFORM_ASCENDC_H_
