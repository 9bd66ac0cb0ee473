// Tiling data. Kernel-launch projects pass a struct by value or a GM pointer to it; the CANN macros declare
// such a struct field by field (BEGIN_TILING_DATA_DEF ... END_TILING_DATA_DEF, with set_/get_ accessors and
// SaveToBuffer for the host side), REGISTER_TILING_DATA_CLASS / REGISTER_TILING_DEFAULT name the struct
// GET_TILING_DATA fills, and GET_TILING_DATA copies it out of global memory (checked like any GM read).
#pragma once
#include <cstring>

#include "ascendc/kernel_block.h"

#define BEGIN_TILING_DATA_DEF(name) \
  struct name {                     \
    using ascendsim_self = name;

#define TILING_DATA_FIELD_DEF(type, field)                   \
  type field{};                                              \
  void set_##field(type value) { field = value; }            \
  type get_##field() const { return field; }

#define TILING_DATA_FIELD_DEF_ARR(type, count, field)                              \
  type field[count] = {};                                                          \
  void set_##field(const type* values) { std::memcpy(field, values, sizeof field); } \
  const type* get_##field() const { return field; }

#define TILING_DATA_FIELD_DEF_STRUCT(type, field)            \
  type field{};                                              \
  void set_##field(const type& value) { field = value; }     \
  const type& get_##field() const { return field; }

#define END_TILING_DATA_DEF                                                                              \
  size_t GetDataSize() const { return sizeof(ascendsim_self); }                                          \
  void SaveToBuffer(void* buffer, size_t capacity) const {                                               \
    std::memcpy(buffer, this, sizeof(ascendsim_self) < capacity ? sizeof(ascendsim_self) : capacity);    \
  }                                                                                                      \
  }

// The struct GET_TILING_DATA declares; the first registration (or REGISTER_TILING_DEFAULT) names it.
#define REGISTER_TILING_DATA_CLASS(op_type, class_name) using AscendsimTilingOf_##op_type = class_name;
#define REGISTER_TILING_DEFAULT(class_name) using AscendsimTilingDefault = class_name;

namespace AscendC::ascendsim_detail {
template <typename T>
inline T read_tiling(const void* gm) {
  check_global("GET_TILING_DATA", gm, sizeof(T), false);
  T value;
  std::memcpy(static_cast<void*>(&value), gm, sizeof(T));
  return value;
}
}  // namespace AscendC::ascendsim_detail

#define GET_TILING_DATA_WITH_STRUCT(type, var, tiling) \
  const type var = ::AscendC::ascendsim_detail::read_tiling<type>(tiling)
#define GET_TILING_DATA(var, tiling) GET_TILING_DATA_WITH_STRUCT(AscendsimTilingDefault, var, tiling)
#define GET_TILING_DATA_MEMBER(type, member, var, tiling)                                                  \
  const decltype(type::member) var = ::AscendC::ascendsim_detail::read_tiling<decltype(type::member)>(    \
      reinterpret_cast<const uint8_t*>(tiling) + offsetof(type, member))

#define TILING_KEY_IS(key) (::AscendC::ascendsim_detail::block().tiling_key == (key))
