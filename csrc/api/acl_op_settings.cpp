// Single-operator settings: aclSetCompileopt / aclGetCompileoptSize / aclGetCompileopt and
// aclopSetCompileFlag (acl_op_compiler.h), aclopSetMaxOpQueueNum (acl_op.h).
//
// Behaviour follows hicann/ge api/acl/acl_op_compiler/single_op/op_compiler.cpp and acl_op_executor op.cpp:
// - aclSetCompileopt: NULL value -> ACL_ERROR_INVALID_PARAM; ACL_AUTO_TUNE_MODE (discarded, replaced by
//   the AOE tool) -> ACL_ERROR_FEATURE_UNSUPPORTED; a value outside aclCompileOpt -> ACL_ERROR_INTERNAL_ERROR;
//   before aclInit (the operator compiler starts with it) -> ACL_ERROR_FAILURE. Values are stored as given:
//   ACL checks none of them (GE validates them when it compiles); ACL_OP_JIT_COMPILE stores "1" for
//   "enable" and "0" for anything else.
// - aclGetCompileoptSize: 256 for ACL_OP_JIT_COMPILE; otherwise the size of the value set, with its NUL,
//   or 0 when none was set or the option is unknown.
// - aclGetCompileopt reads back only two options: ACL_OP_JIT_COMPILE gives the SoC's default ("disable" on
//   Ascend910B1..B4 and Ascend910_93 parts, "enable" elsewhere), not the value set; ACL_OP_DEBUG_OPTION
//   gives the value set. Anything else, or ACL_OP_DEBUG_OPTION never set -> ACL_ERROR_API_NOT_SUPPORT; a
//   buffer shorter than the value and its NUL -> ACL_ERROR_FAILURE; NULL value -> ACL_ERROR_INVALID_PARAM.
// - aclopSetCompileFlag: before aclInit -> ACL_ERROR_FAILURE; the flag is stored unchecked, as GE does
//   (a value other than ACL_OP_COMPILE_FUZZ compiles exactly); such a value is logged as a warning here.
// - aclopSetMaxOpQueueNum: 0 -> ACL_ERROR_INVALID_PARAM.
#include <cstring>
#include <set>
#include <string>

#include "acl/acl_op_compiler.h"
#include "core/error.h"
#include "core/log.h"
#include "op/op_settings.h"
#include "runtime/runtime.h"

using namespace ascendsim;

namespace {

// aclCompileOpt names by value, for messages.
const char* const kOptionNames[] = {
    "ACL_PRECISION_MODE",         "ACL_AICORE_NUM",         "ACL_AUTO_TUNE_MODE",        "ACL_OP_SELECT_IMPL_MODE",
    "ACL_OPTYPELIST_FOR_IMPLMODE", "ACL_OP_DEBUG_LEVEL",    "ACL_DEBUG_DIR",             "ACL_OP_COMPILER_CACHE_MODE",
    "ACL_OP_COMPILER_CACHE_DIR",  "ACL_OP_PERFORMANCE_MODE", "ACL_OP_JIT_COMPILE",       "ACL_OP_DETERMINISTIC",
    "ACL_CUSTOMIZE_DTYPES",       "ACL_OP_PRECISION_MODE",  "ACL_ALLOW_HF32",            "ACL_PRECISION_MODE_V2",
    "ACL_OP_DEBUG_OPTION"};
constexpr int kOptionCount = static_cast<int>(sizeof(kOptionNames) / sizeof(kOptionNames[0]));
static_assert(kOptionCount == ACL_OP_DEBUG_OPTION + 1, "one name per aclCompileOpt value");

// aclGetCompileopt's answer for ACL_OP_JIT_COMPILE is fixed at 256 bytes by aclGetCompileoptSize.
constexpr size_t kJitCompileValueSize = 256;

bool is_option(aclCompileOpt opt) { return static_cast<int>(opt) >= 0 && static_cast<int>(opt) < kOptionCount; }

const char* option_name(aclCompileOpt opt) { return is_option(opt) ? kOptionNames[opt] : "an unknown option"; }

// The operator compiler is set up by aclInit; before it, CANN's option calls fail with ACL_ERROR_FAILURE.
aclError require_compiler(const char* api) {
  if (Runtime::instance().initialized()) return ACL_SUCCESS;
  return fail(ACL_ERROR_FAILURE, "%s: the operator compiler is not initialized: call aclInit first", api);
}

// GE's default of ACL_OP_JIT_COMPILE: binary kernels (no online compilation) on the 910B and 910_93 parts.
std::string default_jit_compile(const std::string& soc) {
  static const std::set<std::string> disabled = {"Ascend910B1",   "Ascend910B2",  "Ascend910B3",
                                                 "Ascend910B4",   "Ascend910B4-1", "Ascend910B2C"};
  return disabled.count(soc) != 0 || soc.rfind("Ascend910_9", 0) == 0 ? "disable" : "enable";
}

aclError copy_value(const std::string& text, aclCompileOpt opt, char* value, size_t length, const char* api) {
  if (length < text.size() + 1)
    return fail(ACL_ERROR_FAILURE, "%s: length %zu is too small: the value of %s needs %zu bytes with its NUL", api,
                length, option_name(opt), text.size() + 1);
  std::memcpy(value, text.c_str(), text.size() + 1);
  return ACL_SUCCESS;
}

}  // namespace

aclError aclSetCompileopt(aclCompileOpt opt, const char* value) {
  ASCENDSIM_CHECK_NOT_NULL(value);
  if (opt == ACL_AUTO_TUNE_MODE)
    return fail(ACL_ERROR_FEATURE_UNSUPPORTED,
                "%s: ACL_AUTO_TUNE_MODE is discarded by CANN: tune operators with the AOE tool", __func__);
  if (!is_option(opt))
    return fail(ACL_ERROR_INTERNAL_ERROR, "%s: option %d is not an aclCompileOpt (0..%d)", __func__,
                static_cast<int>(opt), kOptionCount - 1);
  if (aclError ret = require_compiler(__func__)) return ret;
  OpSettings::instance().set_option(opt, opt == ACL_OP_JIT_COMPILE ? (std::strcmp(value, "enable") == 0 ? "1" : "0")
                                                                  : std::string(value));
  return ACL_SUCCESS;
}

size_t aclGetCompileoptSize(aclCompileOpt opt) {
  if (opt == ACL_OP_JIT_COMPILE) return kJitCompileValueSize;
  std::string value;
  if (!is_option(opt) || !OpSettings::instance().option(opt, &value) || value.empty()) return 0;
  return value.size() + 1;
}

aclError aclGetCompileopt(aclCompileOpt opt, char* value, size_t length) {
  ASCENDSIM_CHECK_NOT_NULL(value);
  if (opt == ACL_OP_JIT_COMPILE)
    return copy_value(default_jit_compile(Runtime::instance().soc_name()), opt, value, length, __func__);
  std::string text;
  if (opt == ACL_OP_DEBUG_OPTION) {
    if (OpSettings::instance().option(opt, &text)) return copy_value(text, opt, value, length, __func__);
    return fail(ACL_ERROR_API_NOT_SUPPORT, "%s: ACL_OP_DEBUG_OPTION has not been set", __func__);
  }
  return fail(ACL_ERROR_API_NOT_SUPPORT,
              "%s: %s (%d) cannot be read back: CANN returns only ACL_OP_JIT_COMPILE's default and "
              "ACL_OP_DEBUG_OPTION",
              __func__, option_name(opt), static_cast<int>(opt));
}

aclError aclopSetCompileFlag(aclOpCompileFlag flag) {
  if (aclError ret = require_compiler(__func__)) return ret;
  if (flag != ACL_OP_COMPILE_DEFAULT && flag != ACL_OP_COMPILE_FUZZ)
    log(kLogWarning, "ASCENDCL", "%s: flag %d is not an aclOpCompileFlag: operators compile exactly (as with "
        "ACL_OP_COMPILE_DEFAULT)", __func__, static_cast<int>(flag));
  OpSettings::instance().set_compile_flag(flag);
  return ACL_SUCCESS;
}

aclError aclopSetMaxOpQueueNum(uint64_t maxOpNum) {
  if (maxOpNum == 0) return fail(ACL_ERROR_INVALID_PARAM, "%s: maxOpNum must be positive, it is 0", __func__);
  OpSettings::instance().set_max_op_queue_num(maxOpNum);
  return ACL_SUCCESS;
}
