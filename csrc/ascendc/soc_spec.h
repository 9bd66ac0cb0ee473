// What Ascend C kernels and their host code ask of the emulated SoC (ASCENDSIM_SOC_NAME): on-chip memory sizes,
// core counts and the error code an AI Core fault fails a task with. The table and its sources are in
// soc_spec.cpp; an unknown SoC name gets the Ascend910B1 row.
#pragma once
#include <cstddef>
#include <cstdint>

#include "acl/acl_base.h"

namespace ascendsim::ascendc {

struct SocSpec {
  const char* name;
  size_t ub_size;  // unified buffer, bytes
  size_t l1_size;
  size_t l0a_size, l0b_size, l0c_size;
  size_t l2_size;  // 0: not known
  uint32_t cube_cores;    // AIC (coupled SoCs: AI Cores)
  uint32_t vector_cores;  // AIV (coupled SoCs: AI Cores, plus vector cores on 310P)
  aclError fault_code;    // ACL_ERROR_RT_VECTOR_CORE_EXCEPTION (separated SoCs) or ACL_ERROR_RT_AICORE_EXCEPTION
  bool separated() const;
};

// The row of the runtime's SoC (read once).
const SocSpec& current_soc();
// The row named `name`, or null; known_socs() lists the names for messages.
const SocSpec* find_soc(const char* name);
const char* known_socs();

}  // namespace ascendsim::ascendc
