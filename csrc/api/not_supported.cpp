// Definitions of the AscendCL functions that ascendsim declares but does not implement: each records
// "<function> is not supported by ascendsim" as the thread's recent error (aclGetRecentErrMsg) and
// returns ACL_ERROR_API_NOT_SUPPORT, NULL, 0, the enum's UNDEFINED value or nothing, by return type.
// The functions themselves are listed once, in not_supported_list.h (an X-macro list that tests and the
// README are generated from); this file only expands that list.
#include <type_traits>

#include "acl/acl.h"
#include "acl/acl_op_compiler.h"
#include "acl/acl_prof.h"
#include "api/dvpp_interface.h"
#include "core/error.h"

namespace ascendsim {
namespace {

// The value a stub returns after recording the error, chosen by the function's return type.
template <typename T>
struct UnsupportedResult {
  // Pointers and handles become NULL, counts and sizes 0. An enum would become its 0 enumerator,
  // which is a valid value: every enum return type needs its own specialization below.
  static_assert(std::is_pointer<T>::value || std::is_integral<T>::value,
                "add an UnsupportedResult specialization for this return type");
  static T value(aclError) { return T(); }
};
template <>
struct UnsupportedResult<aclError> {
  static aclError value(aclError code) { return code; }
};
template <>
struct UnsupportedResult<aclDataType> {
  static aclDataType value(aclError) { return ACL_DT_UNDEFINED; }
};
template <>
struct UnsupportedResult<aclFormat> {
  static aclFormat value(aclError) { return ACL_FORMAT_UNDEFINED; }
};
template <>
struct UnsupportedResult<aclprofSubscribeOpFlag> {
  static aclprofSubscribeOpFlag value(aclError) { return ACL_SUBSCRIBE_NONE; }
};
// acl_dvpp.h: the values its getters document as their default.
template <>
struct UnsupportedResult<acldvppPixelFormat> {
  static acldvppPixelFormat value(aclError) { return PIXEL_FORMAT_YUV_400; }
};
template <>
struct UnsupportedResult<acldvppStreamFormat> {
  static acldvppStreamFormat value(aclError) { return H265_MAIN_LEVEL; }
};
template <>
struct UnsupportedResult<acldvppBorderType> {
  static acldvppBorderType value(aclError) { return BORDER_CONSTANT; }
};
template <>
struct UnsupportedResult<double> {
  static double value(aclError) { return -1.0; }  // acldvppGetBorderConfigValue: "invalid value is < 0"
};
template <>
struct UnsupportedResult<void> {
  static void value(aclError) {}
};

template <typename T>
T not_supported(const char* function) {
  return UnsupportedResult<T>::value(
      fail(ACL_ERROR_API_NOT_SUPPORT, "%s is not supported by ascendsim", function));
}

}  // namespace
}  // namespace ascendsim

// The stubs ignore their arguments, and the list names them as the headers do (so it can be checked
// against the headers); some stubbed functions are deprecated, which only matters to their callers.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

// The static_assert rejects a list entry whose name or signature differs from the header declaration.
#define ACL_NOT_SUPPORTED(ret, name, params)                                                   \
  static_assert(std::is_same<decltype(&name), ret(*) params>::value,                           \
                #name ": not_supported_list.h entry differs from the declaration in acl/*.h"); \
  ret name params { return ::ascendsim::not_supported<ret>(__func__); }

extern "C" {
#include "api/not_supported_list.h"
}

#undef ACL_NOT_SUPPORTED
#pragma GCC diagnostic pop
