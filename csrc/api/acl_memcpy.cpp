// AscendCL copies and fills: aclrtMemcpy(Async), aclrtMemcpy2d(Async), aclrtMemset(Async).
//
// Every call is validated completely when it is made (NULL pointers, kind, sizes, and that each device
// pointer's bytes lie inside one live allocation), so an asynchronous call that returns ACL_SUCCESS cannot
// fail later. The data movement is a plain memmove/memset: on the emulated device "device memory" is host
// memory, so a copy runs at memcpy speed.
//
// Real runtime behaviour reproduced here (CANN's aclrt memory.cpp and its runtime's api_error.cc):
//  - count == 0 (width or height == 0 for 2D copies) succeeds before any other check;
//  - NULL pointers and invalid kinds are ACL-layer errors (ACL_ERROR_INVALID_PARAM), count > destMax and
//    bad device ranges are runtime errors (ACL_ERROR_RT_PARAM_INVALID);
//  - the kind is a hint (the documentation calls it reserved since CANN 7.0): aclrtMemcpy copies in the
//    direction its pointers give, whatever valid kind it is passed; the asynchronous and 2D copies correct it
//    the way the runtime's MemcpyKindAutoCorrect does (see corrected_kind). A corrected kind is an info line
//    in the log. Asynchronous host-to-host copies are rejected (ACL_HOST run mode);
//  - an asynchronous copy from or to pageable host memory (not from aclrtMallocHost) is done as
//    "synchronize the stream, then copy synchronously": the caller may reuse its buffer on return;
//  - aclrtMemset(Async) fills device memory or aclrtMallocHost memory ("the system tells which from the
//    address"); other host memory is undefined behaviour on the device, refused here.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl_rt.h"
#include "core/enum_value.h"
#include "core/error.h"
#include "core/log.h"
#include "prof/profiler.h"
#include "runtime/allocation_check.h"
#include "runtime/host_memory.h"
#include "runtime/runtime.h"
#include "runtime/stream.h"

using namespace ascendsim;

namespace {

bool valid_memcpy_kind(int kind) { return kind >= ACL_MEMCPY_HOST_TO_HOST && kind <= ACL_MEMCPY_DEFAULT; }

const char* memcpy_kind_name(int kind) {
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST: return "ACL_MEMCPY_HOST_TO_HOST";
    case ACL_MEMCPY_HOST_TO_DEVICE: return "ACL_MEMCPY_HOST_TO_DEVICE";
    case ACL_MEMCPY_DEVICE_TO_HOST: return "ACL_MEMCPY_DEVICE_TO_HOST";
    case ACL_MEMCPY_DEVICE_TO_DEVICE: return "ACL_MEMCPY_DEVICE_TO_DEVICE";
    case ACL_MEMCPY_DEFAULT: return "ACL_MEMCPY_DEFAULT";
    default: return "?";
  }
}

// The copy direction the two regions imply.
aclrtMemcpyKind implied_memcpy_kind(const MemoryRegion& dst, const MemoryRegion& src) {
  if (dst.is_device()) return src.is_device() ? ACL_MEMCPY_DEVICE_TO_DEVICE : ACL_MEMCPY_HOST_TO_DEVICE;
  return src.is_device() ? ACL_MEMCPY_DEVICE_TO_HOST : ACL_MEMCPY_HOST_TO_HOST;
}

aclError null_argument(const char* api, const char* arg) {
  return fail(ACL_ERROR_INVALID_PARAM, "%s: argument '%s' is NULL", api, arg);
}

aclError invalid_kind(const char* api, int kind) {
  return fail(ACL_ERROR_INVALID_PARAM, "%s: kind %d is not a valid aclrtMemcpyKind (%d..%d)", api, kind,
              static_cast<int>(ACL_MEMCPY_HOST_TO_HOST), static_cast<int>(ACL_MEMCPY_DEFAULT));
}

// Where a pointer lies, as CANN's runtime tells locations apart: device memory, host memory it allocated
// (aclrtMallocHost) and host memory it knows nothing of ("unregistered": malloc, numpy, the stack).
enum class Place { kDevice, kPinned, kPageable };

Place place_of(const MemoryRegion& region) {
  if (region.is_device()) return Place::kDevice;
  return region.pinned ? Place::kPinned : Place::kPageable;
}

bool has_pageable_side(const MemoryRegion& dst, const MemoryRegion& src) {
  return place_of(dst) == Place::kPageable || place_of(src) == Place::kPageable;
}

// The direction a copy runs in. Since CANN 7.0 `kind` is a hint: the runtime takes the direction from where
// the pointers are and corrects a kind that contradicts them (an info-level log line, as CANN's
// MemcpyKindAutoCorrect writes; ACL_MEMCPY_DEFAULT is not a contradiction).
aclrtMemcpyKind inferred_kind(int kind, const MemoryRegion& dst, const MemoryRegion& src, const char* api) {
  const aclrtMemcpyKind implied = implied_memcpy_kind(dst, src);
  if (kind != ACL_MEMCPY_DEFAULT && kind != implied && log_enabled(kLogInfo)) {
    char d[40], s[40];
    log(kLogInfo, "RUNTIME", "%s: kind %s does not match the pointers (dst is %s, src is %s): copying as %s", api,
        memcpy_kind_name(kind), region_name(dst, d, sizeof d), region_name(src, s, sizeof s),
        memcpy_kind_name(implied));
  }
  return implied;
}

// The kind a queued copy (and a 2D copy) runs with: CANN's MemcpyKindAutoCorrect. Where both pointers are
// known (device memory, aclrtMallocHost memory) the direction is inferred; where one is pageable host memory
// the runtime cannot be sure what it is, so the kind must be one of those that pointer could make true
// (ACL_MEMCPY_DEFAULT: the likeliest), else ACL_ERROR_RT_PARAM_INVALID.
aclError corrected_kind(int kind, const MemoryRegion& dst, const MemoryRegion& src, const char* api,
                        aclrtMemcpyKind* out) {
  if (!has_pageable_side(dst, src)) {
    *out = inferred_kind(kind, dst, src, api);
    return ACL_SUCCESS;
  }
  struct Rule {
    Place src, dst;
    aclrtMemcpyKind fallback;  // for ACL_MEMCPY_DEFAULT
    std::vector<aclrtMemcpyKind> allowed;
  };
  constexpr aclrtMemcpyKind H2H = ACL_MEMCPY_HOST_TO_HOST, H2D = ACL_MEMCPY_HOST_TO_DEVICE,
                            D2H = ACL_MEMCPY_DEVICE_TO_HOST, D2D = ACL_MEMCPY_DEVICE_TO_DEVICE;
  static const Rule kRules[] = {
      {Place::kPageable, Place::kDevice, H2D, {H2D, D2D}},
      {Place::kDevice, Place::kPageable, D2H, {D2H, D2D}},
      {Place::kPinned, Place::kPageable, H2H, {H2H, H2D}},
      {Place::kPageable, Place::kPinned, H2H, {H2H, D2H}},
      {Place::kPageable, Place::kPageable, H2H, {H2H, H2D, D2H, D2D}},
  };
  for (const Rule& rule : kRules) {
    if (rule.src != place_of(src) || rule.dst != place_of(dst)) continue;
    if (kind == ACL_MEMCPY_DEFAULT) {
      *out = rule.fallback;
      return ACL_SUCCESS;
    }
    std::string expected;
    for (aclrtMemcpyKind allowed : rule.allowed) {
      if (kind == allowed) {
        *out = allowed;
        return ACL_SUCCESS;
      }
      expected += std::string(expected.empty() ? "" : ", ") + memcpy_kind_name(allowed);
    }
    char d[40], s[40];
    return fail(ACL_ERROR_RT_PARAM_INVALID,
                "%s: kind %s is impossible for these pointers: dst is %s, src is %s; pass one of %s or "
                "ACL_MEMCPY_DEFAULT (or allocate the host side with aclrtMallocHost, whose direction is inferred)",
                api, memcpy_kind_name(kind), region_name(dst, d, sizeof d), region_name(src, s, sizeof s),
                expected.c_str());
  }
  *out = implied_memcpy_kind(dst, src);  // not reached: every pageable combination has a rule
  return ACL_SUCCESS;
}

// For asynchronous copies also: host-to-host is not a device operation (CANN checks the corrected kind).
aclError check_async_direction(int kind, const MemoryRegion& dst, const MemoryRegion& src, const char* api) {
  aclrtMemcpyKind effective;
  if (aclError ret = corrected_kind(kind, dst, src, api, &effective)) return ret;
  if (effective == ACL_MEMCPY_HOST_TO_HOST)
    return fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                "%s: host-to-host copies are not supported asynchronously (run mode ACL_HOST); use aclrtMemcpy", api);
  return ACL_SUCCESS;
}

// A copy task's name on the profiler's timeline, by direction: host to device, device to host, device to device.
constexpr const char* kCopyNames[] = {"MemcpyAsync HostToDevice", "MemcpyAsync DeviceToHost",
                                      "MemcpyAsync DeviceToDevice"};
constexpr const char* kCopy2dNames[] = {"Memcpy2dAsync HostToDevice", "Memcpy2dAsync DeviceToHost",
                                        "Memcpy2dAsync DeviceToDevice"};

const char* copy_task_name(const char* const* names, const MemoryRegion& dst, const MemoryRegion& src) {
  switch (implied_memcpy_kind(dst, src)) {
    case ACL_MEMCPY_HOST_TO_DEVICE: return names[0];
    case ACL_MEMCPY_DEVICE_TO_HOST: return names[1];
    default: return names[2];  // host to host is refused before a task is made
  }
}

// The pointer of an aclrtMallocHost buffer, which a queued task must hold; null for device memory.
const void* pinned_host(const void* p, const MemoryRegion& region) {
  return region.pinned && !region.is_device() ? p : nullptr;
}

// Runs `work` on the stream. If a host buffer is pageable it may be gone by the time the stream gets
// there, so, like the real runtime, the stream is synchronized and the work done now instead.
template <typename Work>
aclError submit(const std::shared_ptr<Stream>& stream, bool pageable, const void* dst_host, const void* src_host,
                Work work, const char* api, prof::TaskLabel label) {
  // The task holds the aclrtMallocHost buffers it touches (dst_host, src_host: null where the side is device
  // memory), so that freeing one before the task has run cannot free memory under it (runtime/host_memory.h).
  if (!pageable)
    return stream->enqueue(
        [work, dst_hold = HostMemory::instance().hold(dst_host), src_hold = HostMemory::instance().hold(src_host)] {
          work();
          return ACL_SUCCESS;
        },
        nullptr, label);
  Stream::Failure failure;
  if (aclError ret = stream->synchronize(-1, &failure))
    return fail(ret, "%s: the stream failed before this copy (task %llu): %s", api,
                static_cast<unsigned long long>(failure.task), failure.message.c_str());
  work();
  return ACL_SUCCESS;
}

// The checks shared by aclrtMemcpy and aclrtMemcpyAsync, in the real runtime's order.
aclError check_copy(void* dst, size_t destMax, const void* src, size_t count, int kind, const char* api,
                    MemoryRegion* dst_region, MemoryRegion* src_region) {
  if (dst == nullptr) return null_argument(api, "dst");
  if (src == nullptr) return null_argument(api, "src");
  if (!valid_memcpy_kind(kind)) return invalid_kind(api, kind);
  if (count > destMax)
    return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: count %zu is larger than destMax %zu", api, count, destMax);
  if (aclError ret = check_region(dst, count, ACL_ERROR_RT_PARAM_INVALID, api, "dst", dst_region)) return ret;
  return check_region(src, count, ACL_ERROR_RT_PARAM_INVALID, api, "src", src_region);
}

// A fill touches device memory or an aclrtMallocHost buffer, inside its allocation.
aclError check_set(void* devPtr, size_t maxCount, size_t count, const char* api, MemoryRegion* region) {
  if (devPtr == nullptr) return null_argument(api, "devPtr");
  if (count > maxCount)
    return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: count %zu is larger than maxCount %zu", api, count, maxCount);
  if (aclError ret = check_region(devPtr, count, ACL_ERROR_RT_PARAM_INVALID, api, "devPtr", region)) return ret;
  if (!region->pinned)
    return fail(ACL_ERROR_RT_PARAM_INVALID,
                "%s: devPtr %p is host memory the ACL did not allocate (malloc, a numpy array, the stack): fill "
                "device memory (aclrtMalloc) or host memory from aclrtMallocHost; on a device this is undefined "
                "behaviour", api, devPtr);
  return ACL_SUCCESS;
}

// A 2D copy: `height` rows of `width` bytes, rows `dpitch` / `spitch` bytes apart. Each side's rows must
// lie inside one allocation: its span is (height - 1) * pitch + width bytes.
struct Copy2d {
  void* dst;
  size_t dpitch;
  const void* src;
  size_t spitch;
  size_t width;
  size_t height;

  void run() const {
    if (dpitch == width && spitch == width) {
      std::memmove(dst, src, width * height);
      return;
    }
    for (size_t row = 0; row < height; ++row)
      std::memmove(static_cast<char*>(dst) + row * dpitch, static_cast<const char*>(src) + row * spitch, width);
  }
};

aclError span_2d(size_t pitch, size_t width, size_t height, const char* api, const char* arg, size_t* span) {
  size_t rows_before_last = 0;
  if (__builtin_mul_overflow(pitch, height - 1, &rows_before_last) ||
      __builtin_add_overflow(rows_before_last, width, span))
    return fail(ACL_ERROR_INVALID_PARAM, "%s: %s pitch %zu x height %zu overflows the address space", api, arg, pitch,
                height);
  return ACL_SUCCESS;
}

aclError check_copy_2d(const Copy2d& c, int kind, bool async, const char* api, MemoryRegion* dst_region,
                       MemoryRegion* src_region) {
  if (c.dst == nullptr) return null_argument(api, "dst");
  if (c.src == nullptr) return null_argument(api, "src");
  if (!valid_memcpy_kind(kind)) return invalid_kind(api, kind);
  // The real aclrtMemcpy2d copies only between host and device; the asynchronous one also device to device.
  if (kind == ACL_MEMCPY_HOST_TO_HOST || (!async && kind == ACL_MEMCPY_DEVICE_TO_DEVICE))
    return fail(ACL_ERROR_INVALID_PARAM, "%s: kind %s is not supported (use %s)", api, memcpy_kind_name(kind),
                async ? "HOST_TO_DEVICE, DEVICE_TO_HOST, DEVICE_TO_DEVICE or DEFAULT"
                      : "HOST_TO_DEVICE, DEVICE_TO_HOST or DEFAULT");
  if (c.width > c.spitch || c.width > c.dpitch)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: width %zu is larger than %s %zu", api, c.width,
                c.width > c.dpitch ? "dpitch" : "spitch", c.width > c.dpitch ? c.dpitch : c.spitch);
  size_t dst_span = 0, src_span = 0;
  if (aclError ret = span_2d(c.dpitch, c.width, c.height, api, "dst", &dst_span)) return ret;
  if (aclError ret = span_2d(c.spitch, c.width, c.height, api, "src", &src_span)) return ret;
  if (aclError ret = check_region(c.dst, dst_span, ACL_ERROR_RT_PARAM_INVALID, api, "dst", dst_region)) {
    add_error_context("dst rows: %zu rows of %zu bytes, dpitch %zu, spanning %zu bytes", c.height, c.width, c.dpitch,
                      dst_span);
    return ret;
  }
  if (aclError ret = check_region(c.src, src_span, ACL_ERROR_RT_PARAM_INVALID, api, "src", src_region)) {
    add_error_context("src rows: %zu rows of %zu bytes, spitch %zu, spanning %zu bytes", c.height, c.width, c.spitch,
                      src_span);
    return ret;
  }
  return ACL_SUCCESS;
}

}  // namespace

extern "C" {

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind) {
  ASCENDSIM_PROFILE_API();
  if (count == 0) return ACL_SUCCESS;
  MemoryRegion dst_region, src_region;
  // The kind as the int the caller passed: any int may come from C (core/enum_value.h).
  if (aclError ret = check_copy(dst, destMax, src, count, enum_int(kind), __func__, &dst_region, &src_region))
    return ret;
  inferred_kind(enum_int(kind), dst_region, src_region, __func__);  // any valid kind: the pointers decide
  if (dst != src) std::memmove(dst, src, count);
  return ACL_SUCCESS;
}

aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream) {
  ASCENDSIM_PROFILE_API();
  if (count == 0) return ACL_SUCCESS;
  MemoryRegion dst_region, src_region;
  // The kind as the int the caller passed: any int may come from C (core/enum_value.h).
  if (aclError ret = check_copy(dst, destMax, src, count, enum_int(kind), __func__, &dst_region, &src_region))
    return ret;
  if (aclError ret = check_async_direction(enum_int(kind), dst_region, src_region, __func__)) return ret;
  std::shared_ptr<Stream> target;
  if (aclError ret = resolve_stream(stream, __func__, &target)) return ret;
  if (dst == src) return ACL_SUCCESS;
  const bool pageable = !dst_region.pinned || !src_region.pinned;
  return submit(target, pageable, pinned_host(dst, dst_region), pinned_host(src, src_region),
                [dst, src, count] { std::memmove(dst, src, count); }, __func__,
                {copy_task_name(kCopyNames, dst_region, src_region), {"bytes", count}, {}});
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  ASCENDSIM_PROFILE_API();
  if (count == 0) return ACL_SUCCESS;
  MemoryRegion region;
  if (aclError ret = check_set(devPtr, maxCount, count, __func__, &region)) return ret;
  std::memset(devPtr, static_cast<unsigned char>(value), count);
  return ACL_SUCCESS;
}

aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream) {
  ASCENDSIM_PROFILE_API();
  if (count == 0) return ACL_SUCCESS;
  MemoryRegion region;
  if (aclError ret = check_set(devPtr, maxCount, count, __func__, &region)) return ret;
  std::shared_ptr<Stream> target;
  if (aclError ret = resolve_stream(stream, __func__, &target)) return ret;
  const auto byte = static_cast<unsigned char>(value);
  // An aclrtMallocHost buffer is held by the task, like the host side of a queued copy.
  return submit(target, false, pinned_host(devPtr, region), nullptr,
                [devPtr, byte, count] { std::memset(devPtr, byte, count); }, __func__,
                {"MemsetAsync", {"bytes", count}, {}});
}

aclError aclrtMemcpy2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                       aclrtMemcpyKind kind) {
  ASCENDSIM_PROFILE_API();
  if (width == 0 || height == 0) return ACL_SUCCESS;
  const Copy2d copy{dst, dpitch, src, spitch, width, height};
  MemoryRegion dst_region, src_region;
  if (aclError ret = check_copy_2d(copy, enum_int(kind), false, __func__, &dst_region, &src_region)) return ret;
  aclrtMemcpyKind effective;
  if (aclError ret = corrected_kind(enum_int(kind), dst_region, src_region, __func__, &effective)) return ret;
  if (effective != ACL_MEMCPY_HOST_TO_DEVICE && effective != ACL_MEMCPY_DEVICE_TO_HOST) {
    char d[40], s[40];
    return fail(ACL_ERROR_RT_PARAM_INVALID, "%s copies only between host and device: dst is %s and src is %s (%s); "
                "use aclrtMemcpy2dAsync for device-to-device rows", __func__, region_name(dst_region, d, sizeof d),
                region_name(src_region, s, sizeof s), memcpy_kind_name(effective));
  }
  copy.run();
  return ACL_SUCCESS;
}

aclError aclrtMemcpy2dAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                            aclrtMemcpyKind kind, aclrtStream stream) {
  ASCENDSIM_PROFILE_API();
  if (width == 0 || height == 0) return ACL_SUCCESS;
  const Copy2d copy{dst, dpitch, src, spitch, width, height};
  MemoryRegion dst_region, src_region;
  if (aclError ret = check_copy_2d(copy, enum_int(kind), true, __func__, &dst_region, &src_region)) return ret;
  if (aclError ret = check_async_direction(enum_int(kind), dst_region, src_region, __func__)) return ret;
  std::shared_ptr<Stream> target;
  if (aclError ret = resolve_stream(stream, __func__, &target)) return ret;
  const bool pageable = !dst_region.pinned || !src_region.pinned;
  return submit(target, pageable, pinned_host(dst, dst_region), pinned_host(src, src_region), [copy] { copy.run(); },
                __func__,
                {copy_task_name(kCopy2dNames, dst_region, src_region),
                 {"bytes", uint64_t{width} * height}, {}});
}

}  // extern "C"
