#include "core/live_objects.h"

#include <algorithm>
#include <atomic>
#include <mutex>

namespace ascendsim {
namespace {

struct Sources {
  std::mutex mutex;
  std::vector<const LiveObjectSource*> list;
};

Sources& sources() {
  static auto* s = new Sources();  // outlives late destructors at exit
  return *s;
}

std::atomic<uint64_t> creation_counter{0};

}  // namespace

uint64_t next_creation_seq() { return creation_counter.fetch_add(1, std::memory_order_relaxed) + 1; }

void register_live_source(const LiveObjectSource* source) {
  Sources& s = sources();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.list.push_back(source);
}

std::vector<LiveObject> collect_live_objects() {
  std::vector<const LiveObjectSource*> list;
  {
    Sources& s = sources();
    std::lock_guard<std::mutex> lock(s.mutex);
    list = s.list;
  }
  std::vector<LiveObject> live;
  for (const LiveObjectSource* source : list) source->collect_live(&live);
  std::sort(live.begin(), live.end(), [](const LiveObject& a, const LiveObject& b) { return a.site.seq < b.site.seq; });
  return live;
}

}  // namespace ascendsim
