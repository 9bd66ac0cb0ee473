#include "ascendc/write_log.h"

#include <algorithm>

namespace ascendsim::ascendc {

void WriteLog::add(uint32_t block, const void* p, size_t size, const char* api) {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p);
  std::lock_guard<std::mutex> lock(mutex_);
  if (block >= last_.size()) return;
  size_t& last = last_[block];
  if (last != kNone && writes_[last].end == begin) {
    writes_[last].end = begin + size;
    return;
  }
  last = writes_.size();
  writes_.push_back(Write{begin, begin + size, block, api});
}

bool WriteLog::conflict(Conflict* out) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::sort(writes_.begin(), writes_.end(), [](const Write& a, const Write& b) { return a.begin < b.begin; });
  const Write* reach = nullptr;  // the entry reaching furthest so far
  for (const Write& w : writes_) {
    if (reach != nullptr && w.begin < reach->end && w.block != reach->block) {
      const Write& low = w.block < reach->block ? w : *reach;
      const Write& high = w.block < reach->block ? *reach : w;
      *out = Conflict{low.block, high.block, low.api, high.api, reinterpret_cast<const void*>(w.begin),
                      static_cast<size_t>(std::min(w.end, reach->end) - w.begin)};
      return true;
    }
    if (reach == nullptr || w.end > reach->end) reach = &w;
  }
  return false;
}

}  // namespace ascendsim::ascendc
