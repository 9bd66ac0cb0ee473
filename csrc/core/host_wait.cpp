#include "core/host_wait.h"

#include <atomic>

namespace ascendsim {
namespace {
std::atomic<HostWaitBegin> begin_hook{nullptr};
std::atomic<HostWaitEnd> end_hook{nullptr};
}  // namespace

void set_host_wait_hooks(HostWaitBegin begin, HostWaitEnd end) {
  end_hook.store(end);
  begin_hook.store(begin);
}

HostWaitScope::HostWaitScope() : end_(end_hook.load()), token_(nullptr) {
  HostWaitBegin begin = begin_hook.load();
  if (begin != nullptr && end_ != nullptr) token_ = begin();
}

HostWaitScope::~HostWaitScope() {
  if (end_ != nullptr) end_(token_);
}

}  // namespace ascendsim
