// The callback pattern of the official asynchronous inference sample, in C++: a std::thread that loops
// on aclrtProcessReport, whose id (streamed from std::thread::id, as the sample does) subscribes a
// stream; callbacks launched on the stream run on that thread, BLOCK ones holding the stream.
#include <atomic>
#include <cstdio>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"

namespace {
std::atomic<bool> stop_reporting{false};
std::atomic<int> callbacks_run{0};
std::thread::id reporter_id;
std::atomic<bool> ran_on_reporter{true};

void report_loop(aclrtContext context) {
  aclrtSetCurrentContext(context);
  while (!stop_reporting) aclrtProcessReport(100);
}

void on_done(void* user_data) {
  static_cast<std::vector<int>*>(user_data)->push_back(callbacks_run.fetch_add(1));
  if (std::this_thread::get_id() != reporter_id) ran_on_reporter = false;
}
}  // namespace

#define CHECK(call)                                                                   \
  do {                                                                                \
    aclError ret_ = (call);                                                           \
    if (ret_ != ACL_SUCCESS) {                                                        \
      std::printf("FAILED %s -> %d: %s\n", #call, ret_, aclGetRecentErrMsg());        \
      return 1;                                                                       \
    }                                                                                 \
  } while (0)

int main() {
  CHECK(aclInit(nullptr));
  CHECK(aclrtSetDevice(0));
  aclrtContext context = nullptr;
  CHECK(aclrtGetCurrentContext(&context));
  aclrtStream stream = nullptr;
  CHECK(aclrtCreateStream(&stream));

  std::vector<int> order;
  if (aclrtLaunchCallback(on_done, &order, ACL_CALLBACK_BLOCK, stream) != ACL_ERROR_RT_STREAM_NO_CB_REG) {
    std::printf("FAILED launching without a subscriber\n");
    return 1;
  }
  aclGetRecentErrMsg();

  std::thread reporter(report_loop, context);
  reporter_id = reporter.get_id();
  std::ostringstream id_text;
  id_text << reporter.get_id();
  const uint64_t thread_id = std::stoull(id_text.str());
  CHECK(aclrtSubscribeReport(thread_id, stream));
  for (int i = 0; i < 5; ++i)
    CHECK(aclrtLaunchCallback(on_done, &order, i % 2 ? ACL_CALLBACK_NO_BLOCK : ACL_CALLBACK_BLOCK, stream));
  CHECK(aclrtSynchronizeStream(stream));
  // NO_BLOCK callbacks may still be running after the stream is done: wait for the last one.
  for (int spins = 0; callbacks_run < 5 && spins < 5000; ++spins) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(aclrtUnSubscribeReport(thread_id, stream));
  stop_reporting = true;
  reporter.join();

  if (callbacks_run != 5 || !ran_on_reporter) {
    std::printf("FAILED callbacks=%d on_reporter=%d\n", callbacks_run.load(), ran_on_reporter.load());
    return 1;
  }
  CHECK(aclrtDestroyStream(stream));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  std::printf("ok callbacks=%d\n", callbacks_run.load());
  return 0;
}
