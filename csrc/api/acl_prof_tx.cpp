// msproftx: the user's own annotations on the profiler's host timeline. A stamp carries a message
// (aclprofSetStampTraceMessage, under 128 bytes as in CANN); aclprofMark records an instant, aclprofPush /
// aclprofPop a span on the calling thread (a per-thread stack, so pushes nest like the calls they enclose),
// aclprofRangeStart / aclprofRangeStop a range that may end on another thread (a Chrome async span).
//
// As in CANN, the functions work only while a collection with msproftx runs (ACL_PROF_MSPROFTX in the
// started config, "msproftx": "on" in aclInit's profiler section or PROFILING_OPTIONS, or ASCENDSIM_PROFILE):
// otherwise aclprofCreateStamp returns NULL and the others ACL_ERROR_PROF_NOT_RUN. Misuse (a NULL, destroyed
// or foreign stamp, a message too long, a pop without push, an unknown range id) is ACL_ERROR_INVALID_PARAM
// with a message; CANN's older releases return -1 for these. Stamps live in a handle registry, so a
// destroyed one is an error code, not a crash.
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "acl/acl_prof.h"
#include "core/error.h"
#include "core/handle_registry.h"
#include "prof/profiler.h"

using namespace ascendsim;

namespace {

constexpr uint32_t kMaxMessageLength = 128;  // the message must be shorter

struct Stamp {
  std::mutex mutex;
  std::string message;
};

struct Range {
  std::string message;
  uint64_t start;
};

HandleRegistry<Stamp>& stamps() {
  static auto* registry = new HandleRegistry<Stamp>("msproftx stamp");  // outlives late destructors
  return *registry;
}

struct Ranges {
  std::mutex mutex;
  uint32_t next_id = 0;
  std::unordered_map<uint32_t, Range> open;
};

Ranges& ranges() {
  static auto* r = new Ranges();
  return *r;
}

thread_local std::vector<Range> t_pushed;

aclError require_tx(const char* api) {
  if (prof::on(prof::kTx)) return ACL_SUCCESS;
  return fail(ACL_ERROR_PROF_NOT_RUN, "%s: no profiling collection with msproftx runs (ACL_PROF_MSPROFTX)", api);
}

// The stamp's message, after checking the collection and the handle.
aclError stamp_message(void* handle, const char* api, std::string* message) {
  if (aclError ret = require_tx(api)) return ret;
  if (handle == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'stamp' is NULL", api);
  std::shared_ptr<Stamp> stamp = stamps().find(handle);
  if (!stamp)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: stamp %p is not a live stamp (aclprofCreateStamp)", api, handle);
  std::lock_guard<std::mutex> lock(stamp->mutex);
  *message = stamp->message;
  return ACL_SUCCESS;
}

}  // namespace

extern "C" {

void* aclprofCreateStamp() {
  if (require_tx(__func__) != ACL_SUCCESS) return nullptr;
  return stamps().add(std::make_shared<Stamp>());
}

void aclprofDestroyStamp(void* stamp) {
  if (stamp == nullptr) {
    fail(ACL_ERROR_INVALID_PARAM, "%s: argument 'stamp' is NULL", __func__);
    return;
  }
  if (!stamps().remove(stamp)) fail(ACL_ERROR_INVALID_PARAM, "%s: stamp %p is not a live stamp", __func__, stamp);
}

aclError aclprofSetStampTraceMessage(void* stamp, const char* msg, uint32_t msgLen) {
  if (aclError ret = require_tx(__func__)) return ret;
  ASCENDSIM_CHECK_NOT_NULL(stamp);
  ASCENDSIM_CHECK_NOT_NULL(msg);
  if (msgLen >= kMaxMessageLength)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: msgLen %u must be less than %u", __func__, msgLen, kMaxMessageLength);
  std::shared_ptr<Stamp> found = stamps().find(stamp);
  if (!found) return fail(ACL_ERROR_INVALID_PARAM, "%s: stamp %p is not a live stamp", __func__, stamp);
  std::lock_guard<std::mutex> lock(found->mutex);
  found->message.assign(msg, strnlen(msg, msgLen));
  return ACL_SUCCESS;
}

aclError aclprofMark(void* stamp) {
  std::string message;
  if (aclError ret = stamp_message(stamp, __func__, &message)) return ret;
  prof::host_mark(message);
  return ACL_SUCCESS;
}

aclError aclprofPush(void* stamp) {
  std::string message;
  if (aclError ret = stamp_message(stamp, __func__, &message)) return ret;
  t_pushed.push_back({std::move(message), prof::now_ns()});
  return ACL_SUCCESS;
}

aclError aclprofPop() {
  if (aclError ret = require_tx(__func__)) return ret;
  if (t_pushed.empty()) return fail(ACL_ERROR_INVALID_PARAM, "%s: no aclprofPush on this thread to end", __func__);
  prof::host_span(t_pushed.back().message, t_pushed.back().start);
  t_pushed.pop_back();
  return ACL_SUCCESS;
}

aclError aclprofRangeStart(void* stamp, uint32_t* rangeId) {
  ASCENDSIM_CHECK_NOT_NULL(rangeId);
  std::string message;
  if (aclError ret = stamp_message(stamp, __func__, &message)) return ret;
  Ranges& r = ranges();
  std::lock_guard<std::mutex> lock(r.mutex);
  *rangeId = ++r.next_id;
  r.open[*rangeId] = Range{std::move(message), prof::now_ns()};
  return ACL_SUCCESS;
}

aclError aclprofRangeStop(uint32_t rangeId) {
  if (aclError ret = require_tx(__func__)) return ret;
  Range range;
  {
    Ranges& r = ranges();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.open.find(rangeId);
    if (it == r.open.end())
      return fail(ACL_ERROR_INVALID_PARAM, "%s: rangeId %u was not returned by aclprofRangeStart (or was stopped)",
                  __func__, rangeId);
    range = std::move(it->second);
    r.open.erase(it);
  }
  prof::host_range(range.message, rangeId, range.start);
  return ACL_SUCCESS;
}

}  // extern "C"
