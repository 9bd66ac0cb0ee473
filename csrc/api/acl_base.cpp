// acl_base.h: data buffers, fp16 conversion, data type sizes, application log, SoC queries.
#include <atomic>
#include <cmath>
#include <cstdarg>
#include <string>

#include "acl/acl.h"
#include "core/enum_value.h"
#include "core/error.h"
#include "core/handle_registry.h"
#include "core/log.h"
#include "runtime/runtime.h"
#include "runtime/tensor_desc.h"

// Atomic fields: a buffer may be updated by one thread while another reads it (each field is read whole;
// a reader racing an update may see the old address with the new size, as with the real struct).
struct aclDataBuffer {
  aclDataBuffer(void* d, size_t s) : data(d), size(s) {}
  std::atomic<void*> data;
  std::atomic<size_t> size;
};

using namespace ascendsim;

namespace {

HandleRegistry<aclDataBuffer>& data_buffers() {
  static auto* registry = new HandleRegistry<aclDataBuffer>("data buffer");  // outlives late destructors at exit
  return *registry;
}

// Shared ownership, not a raw pointer: another thread may destroy the buffer while this call reads it.
std::shared_ptr<aclDataBuffer> find_buffer(const aclDataBuffer* handle, const char* api) {
  if (handle == nullptr) {
    fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'dataBuffer' is NULL", api);
    return nullptr;
  }
  auto buffer = data_buffers().find(handle);
  if (!buffer)
    fail(ACL_ERROR_INVALID_PARAM, "%s: data buffer %p is not live (destroyed or never created)", api,
         static_cast<const void*>(handle));
  return buffer;
}

}  // namespace

aclDataBuffer* aclCreateDataBuffer(void* data, size_t size) {
  // A buffer wraps memory it does not own; (NULL, 0) is allowed and used for empty outputs.
  return static_cast<aclDataBuffer*>(data_buffers().add(std::make_shared<aclDataBuffer>(data, size)));
}

aclError aclDestroyDataBuffer(const aclDataBuffer* dataBuffer) {
  ASCENDSIM_CHECK_NOT_NULL(dataBuffer);
  if (!data_buffers().remove(dataBuffer))
    return fail(ACL_ERROR_INVALID_PARAM, "%s: data buffer %p is not live (destroyed twice or never created)",
                __func__, static_cast<const void*>(dataBuffer));
  return ACL_SUCCESS;
}

aclError aclUpdateDataBuffer(aclDataBuffer* dataBuffer, void* data, size_t size) {
  const auto buffer = find_buffer(dataBuffer, __func__);
  if (buffer == nullptr) return ACL_ERROR_INVALID_PARAM;
  buffer->data = data;
  buffer->size = size;
  return ACL_SUCCESS;
}

void* aclGetDataBufferAddr(const aclDataBuffer* dataBuffer) {
  const auto buffer = find_buffer(dataBuffer, __func__);
  return buffer != nullptr ? buffer->data.load() : nullptr;
}

uint32_t aclGetDataBufferSize(const aclDataBuffer* dataBuffer) {
  const auto buffer = find_buffer(dataBuffer, __func__);
  return buffer != nullptr ? static_cast<uint32_t>(buffer->size.load()) : 0;
}

size_t aclGetDataBufferSizeV2(const aclDataBuffer* dataBuffer) {
  const auto buffer = find_buffer(dataBuffer, __func__);
  return buffer != nullptr ? buffer->size.load() : 0;
}

// IEEE 754 binary16 <-> binary32, round to nearest even, with subnormals, infinities and NaN.
float aclFloat16ToFloat(aclFloat16 value) {
  const uint32_t sign = static_cast<uint32_t>(value & 0x8000u) << 16;
  const uint32_t exponent = (value >> 10) & 0x1Fu;
  const uint32_t mantissa = value & 0x3FFu;
  uint32_t bits;
  if (exponent == 0x1F) {
    bits = sign | 0x7F800000u | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    std::memcpy(&bits, &magnitude, sizeof bits);
    bits |= sign;
  }
  float result;
  std::memcpy(&result, &bits, sizeof result);
  return result;
}

aclFloat16 aclFloatToFloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) return static_cast<aclFloat16>(sign | 0x7E00u | ((magnitude >> 13) & 0x3FFu));
  if (magnitude >= 0x477FF000u) return static_cast<aclFloat16>(sign | 0x7C00u);  // rounds to infinity
  if (magnitude < 0x38800000u) {                                                  // subnormal or zero
    float absolute;
    std::memcpy(&absolute, &magnitude, sizeof absolute);
    return static_cast<aclFloat16>(sign | static_cast<uint32_t>(std::nearbyint(absolute * 16777216.0f)));
  }
  const uint32_t rebased = magnitude - 0x38000000u;  // exponent bias 127 -> 15
  const uint32_t rounded = rebased + 0xFFFu + ((rebased >> 13) & 1u);
  return static_cast<aclFloat16>(sign | (rounded >> 13));
}

size_t aclDataTypeSize(aclDataType dataType) {
  return data_type_size(enum_int(dataType));  // any int from C (3072): switched on as an int, not as the enum
}

void aclAppLog(aclLogLevel logLevel, const char* func, const char* file, uint32_t line, const char* fmt, ...) {
  if (fmt == nullptr || !log_enabled(logLevel)) return;
  char message[2048];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(message, sizeof message, fmt, args);
  va_end(args);
  // The line names the program's file and line, which ACL_APP_LOG passes.
  log(LogSite(logLevel, file != nullptr ? file : "?", static_cast<int>(line)), "APP", "%s: %s",
      func != nullptr ? func : "?", message);
}

const char* aclrtGetSocName() { return Runtime::instance().soc_name().c_str(); }

// What the emulated SoC reports. The attributes are the features ascendsim's kernels honour.
static const aclCannAttr kCannAttributes[] = {ACL_CANN_ATTR_INF_NAN, ACL_CANN_ATTR_BF16};

aclError aclGetCannAttributeList(const aclCannAttr** cannAttrList, size_t* num) {
  ASCENDSIM_CHECK_NOT_NULL(cannAttrList);
  ASCENDSIM_CHECK_NOT_NULL(num);
  *cannAttrList = kCannAttributes;
  *num = sizeof kCannAttributes / sizeof kCannAttributes[0];
  return ACL_SUCCESS;
}

aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t* value) {
  ASCENDSIM_CHECK_NOT_NULL(value);
  if (cannAttr < ACL_CANN_ATTR_INF_NAN || cannAttr > ACL_CANN_ATTR_JIT_COMPILE)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: cannAttr %d is not a known aclCannAttr (0..2)", __func__,
                static_cast<int>(cannAttr));
  *value = 0;
  for (aclCannAttr supported : kCannAttributes) *value |= supported == cannAttr ? 1 : 0;
  return ACL_SUCCESS;
}

aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t* value) {
  ASCENDSIM_CHECK_NOT_NULL(value);
  if (Runtime::instance().device(static_cast<int32_t>(deviceId), __func__) == nullptr)
    return ACL_ERROR_RT_INVALID_DEVICEID;
  const bool is_310 = Runtime::instance().soc_name().rfind("Ascend310", 0) == 0;
  switch (deviceInfo) {
    case ACL_DEVICE_INFO_AI_CORE_NUM: *value = is_310 ? 8 : 24; return ACL_SUCCESS;
    case ACL_DEVICE_INFO_VECTOR_CORE_NUM: *value = is_310 ? 7 : 48; return ACL_SUCCESS;
    case ACL_DEVICE_INFO_L2_SIZE: *value = (is_310 ? 96LL : 192LL) << 20; return ACL_SUCCESS;
    default:
      return fail(ACL_ERROR_INVALID_PARAM, "%s: deviceInfo %d is not a known aclDeviceInfo (0..2)", __func__,
                  static_cast<int>(deviceInfo));
  }
}
