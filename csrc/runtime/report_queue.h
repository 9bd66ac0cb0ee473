// Host callbacks: aclrtSubscribeReport binds a stream to a host thread id, aclrtLaunchCallback queues a
// task that, when the stream reaches it, posts the callback to that thread's report queue, and the thread
// runs its pending callbacks inside aclrtProcessReport. The rules (cancellation on unsubscribe / stream
// teardown, what ProcessReport returns) are described at the top of report_queue.cpp.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "acl/acl_rt.h"

namespace ascendsim {

class Stream;
struct ReportQueue;

class ReportHub {
 public:
  static ReportHub& instance();
  // The id a thread subscribes under: its pthread_t, which is what std::this_thread::get_id() prints on
  // glibc and what Python's threading.get_ident() returns.
  static uint64_t current_thread_id();

  aclError subscribe(uint64_t thread_id, Stream& stream, const char* api);
  aclError unsubscribe(uint64_t thread_id, Stream& stream, const char* api);
  // Stream teardown: ends the stream's subscription if any, cancelling its callbacks not yet run.
  void detach(Stream& stream);
  // The task body of aclrtLaunchCallback, run by the stream's worker: posts the callback to the subscribed
  // thread and, if `block`, waits until it has run.
  aclError deliver(Stream& stream, aclrtCallback fn, void* user_data, bool block);
  // aclrtProcessReport on the calling thread. timeout_ms: -1 forever, > 0 milliseconds.
  aclError process(int32_t timeout_ms, const char* api);

 private:
  ReportHub() = default;
  // Removes `stream` from the thread's queue (hub mutex held); returns how many non-blocking callbacks of
  // the stream were cancelled.
  size_t remove_stream(uint64_t thread_id, Stream& stream);

  std::mutex mutex_;  // guards queues_ and every Stream::report_thread write; taken before a queue's mutex
  std::unordered_map<uint64_t, std::shared_ptr<ReportQueue>> queues_;
};

}  // namespace ascendsim
