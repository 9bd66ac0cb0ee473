// The set of exception-info records being delivered. Only failing tasks touch it, so a mutex-guarded
// vector (one entry per callback in flight, usually none) is enough.
#include "runtime/exception_info.h"

#include <algorithm>
#include <mutex>
#include <vector>

namespace ascendsim {
namespace {
std::mutex& live_mutex() {
  static auto* mutex = new std::mutex();  // never destroyed: worker threads may fail tasks during exit
  return *mutex;
}
std::vector<const void*>& live_infos() {
  static auto* infos = new std::vector<const void*>();
  return *infos;
}
}  // namespace

LiveExceptionInfo::LiveExceptionInfo(const rtExceptionInfo* info) : info_(info) {
  std::lock_guard<std::mutex> lock(live_mutex());
  live_infos().push_back(info);
}

LiveExceptionInfo::~LiveExceptionInfo() {
  std::lock_guard<std::mutex> lock(live_mutex());
  auto& infos = live_infos();
  infos.erase(std::find(infos.begin(), infos.end(), static_cast<const void*>(info_)));
}

bool is_live_exception_info(const void* info) {
  std::lock_guard<std::mutex> lock(live_mutex());
  const auto& infos = live_infos();
  return std::find(infos.begin(), infos.end(), info) != infos.end();
}

}  // namespace ascendsim
