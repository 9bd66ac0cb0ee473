#include "runtime/context.h"

#include <vector>

#include "runtime/device.h"
#include "runtime/runtime.h"
#include "runtime/stream.h"

namespace ascendsim {

Context::Context(Device* device, bool is_default) : device_(device), is_default_(is_default) {
  default_stream_ = std::make_shared<Stream>(this, true, 0, 0);
  Runtime::instance().streams.add(default_stream_, is_default ? "aclrtSetDevice" : "aclrtCreateContext", Owner::kRuntime);
}

Context::~Context() = default;

int Context::device_id() const { return device_->id(); }

void Context::destroy() {
  if (destroyed_.exchange(true)) return;
  auto& streams = Runtime::instance().streams;
  std::vector<std::shared_ptr<Stream>> mine;
  for (auto& stream : streams.snapshot()) {
    if (stream->context() != this) continue;
    streams.remove(stream.get());
    mine.push_back(stream);
  }
  // Ends the streams' callback subscriptions (pending callbacks are cancelled, so this cannot wait for a
  // callback nobody will run), runs what is queued, and stops the streams' worker threads.
  Stream::close_all(mine);
}

}  // namespace ascendsim
