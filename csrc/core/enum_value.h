// The ints behind the C API's enum parameters. C enums are ints, and a C caller may pass any int for one
// (aclrtMemcpy(..., 3072)); in C++ the headers' enums (no fixed underlying type) hold only the values of the
// smallest bit-field that fits their enumerators, and loading any other value from an enum-typed object is
// undefined behaviour (UBSan: "load of value 3072, which is not a valid value for type"). So an API function
// reads such a parameter's bytes as an int, checks or switches on the int, and stores it as an int where
// CANN keeps whatever it is given (tensor descriptions); enum_from_int hands a stored value back unchanged.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "acl/acl_base.h"

namespace ascendsim {

template <typename E>
int32_t enum_int(const E& value) {
  static_assert(std::is_enum_v<E> && sizeof(E) == sizeof(int32_t), "a C enum of the AscendCL headers");
  int32_t raw;
  std::memcpy(&raw, &value, sizeof raw);  // the bytes, not an enum load
  return raw;
}

// A stored int handed back to the C caller as given (aclGetTensorDescType of a description made with 9999,
// as CANN does). The one conversion the API cannot avoid, made only in a getter's return, where no C++ code
// here loads or switches on the value (a copy through memory would be the load UBSan reports).
template <typename E>
E enum_from_int(int32_t raw) {
  static_assert(std::is_enum_v<E> && sizeof(E) == sizeof(int32_t), "a C enum of the AscendCL headers");
  return static_cast<E>(raw);
}

// Whether `raw` is a value of a C++ enum whose enumerators span [lo, hi] ([dcl.enum]/8: the values of the
// smallest bit-field, two's complement when lo < 0, that holds them all), i.e. safe to static_cast.
constexpr bool in_enum_range(int32_t raw, int32_t lo, int32_t hi) {
  int64_t max = 0;  // 2^bits - 1 covering hi and (for a signed range) -lo - 1
  while (max < hi || (lo < 0 && max < -int64_t{lo} - 1)) max = max * 2 + 1;
  return raw <= max && raw >= (lo < 0 ? -max - 1 : 0);
}

// Whether a stored dtype / format / placement is a value of its C++ enum, so that it may be converted to it
// (the lowest and highest enumerators of acl_base.h).
inline bool data_type_in_range(int32_t v) { return in_enum_range(v, ACL_DT_UNDEFINED, ACL_COMPLEX32); }
inline bool format_in_range(int32_t v) { return in_enum_range(v, ACL_FORMAT_UNDEFINED, ACL_FORMAT_NCL); }
inline bool mem_type_in_range(int32_t v) {
  return in_enum_range(v, ACL_MEMTYPE_DEVICE, ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT);
}

// An attribute's int64 (an operator's "to", "dst_type", "src_format") as the enum, or the enum's UNDEFINED
// when the enum cannot hold it, for the caller's own check to refuse, naming the int.
inline aclDataType data_type_or_undefined(int64_t v) {
  return v >= INT32_MIN && v <= INT32_MAX && data_type_in_range(static_cast<int32_t>(v)) ? static_cast<aclDataType>(v)
                                                                                         : ACL_DT_UNDEFINED;
}
inline aclFormat format_or_undefined(int64_t v) {
  return v >= INT32_MIN && v <= INT32_MAX && format_in_range(static_cast<int32_t>(v)) ? static_cast<aclFormat>(v)
                                                                                      : ACL_FORMAT_UNDEFINED;
}

}  // namespace ascendsim
