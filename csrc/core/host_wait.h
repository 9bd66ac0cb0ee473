// Host waits inside the runtime that the caller did not ask for (the allocator waiting for the device
// before it releases cached memory) go through HostWaitScope, so that an embedding interpreter can let
// its other threads run meanwhile: the Python module registers hooks that release and retake the GIL.
// Without them, a Python callback the device is waiting for could never run: a deadlock.
#pragma once

namespace ascendsim {

using HostWaitBegin = void* (*)();      // returns a token for HostWaitEnd
using HostWaitEnd = void (*)(void* token);

void set_host_wait_hooks(HostWaitBegin begin, HostWaitEnd end);

class HostWaitScope {
 public:
  HostWaitScope();
  ~HostWaitScope();
  HostWaitScope(const HostWaitScope&) = delete;
  HostWaitScope& operator=(const HostWaitScope&) = delete;

 private:
  HostWaitEnd end_;
  void* token_;
};

}  // namespace ascendsim
