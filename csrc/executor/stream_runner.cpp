// The multi-stream runner (the algorithm is described in stream_runner.h).
#include "executor/stream_runner.h"

#include <pthread.h>

#include <chrono>
#include <cstdio>

#include "core/spin.h"

namespace ascendsim::executor {

namespace {
// A stream about to record is usually a few microseconds away; sleeping costs more than that.
constexpr auto kSpinBudget = std::chrono::microseconds(20);
}  // namespace

struct StreamRunner::EventNode {
  StreamRunner* runner;
  uint32_t event;
  uint32_t value;
};

StreamRunner::StreamRunner(uint32_t stream_count, uint32_t event_count)
    : streams_(stream_count == 0 ? 1 : stream_count),
      counters_(new std::atomic<uint32_t>[event_count == 0 ? 1 : event_count]),
      event_count_(event_count) {
  for (uint32_t s = 1; s < streams_.size(); ++s) {
    workers_.emplace_back([this, s] { worker(s); });
    char name[16];  // named here, not by the thread, so the name is visible as soon as the runner exists
    std::snprintf(name, sizeof name, "ascendsim-s%u", s);
    pthread_setname_np(workers_.back().native_handle(), name);
  }
}

StreamRunner::~StreamRunner() {
  {
    std::lock_guard<std::mutex> lock(start_mutex_);
    stopping_ = true;
  }
  start_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void StreamRunner::add_record(uint32_t stream, uint32_t event, uint32_t value) {
  event_nodes_.push_back({this, event, value});
  streams_[stream].push_back({&StreamRunner::record, &event_nodes_.back()});
}

void StreamRunner::add_wait(uint32_t stream, uint32_t event, uint32_t value) {
  event_nodes_.push_back({this, event, value});
  streams_[stream].push_back({&StreamRunner::wait, &event_nodes_.back()});
}

void StreamRunner::record(void* context) {
  auto* node = static_cast<EventNode*>(context);
  StreamRunner& r = *node->runner;
  // seq_cst store then load, against the waiter's seq_cst increment then load: one of the two sees the other.
  r.counters_[node->event].store(node->value);
  if (r.sleepers_.load() > 0) {
    std::lock_guard<std::mutex> lock(r.event_mutex_);
    r.event_cv_.notify_all();
  }
}

void StreamRunner::wait(void* context) {
  auto* node = static_cast<EventNode*>(context);
  StreamRunner& r = *node->runner;
  const std::atomic<uint32_t>& counter = r.counters_[node->event];
  auto recorded = [&] { return counter.load() >= node->value; };
  if (spin_until(recorded, kSpinBudget)) return;
  r.sleepers_.fetch_add(1);
  {
    std::unique_lock<std::mutex> lock(r.event_mutex_);
    if (r.event_timeout_ms_ > 0 &&
        !r.event_cv_.wait_for(lock, std::chrono::milliseconds(r.event_timeout_ms_), recorded)) {
      uint32_t none = UINT32_MAX;
      r.late_event_.compare_exchange_strong(none, node->event);
    }
    r.event_cv_.wait(lock, recorded);
  }
  r.sleepers_.fetch_sub(1);
}

void StreamRunner::run_stream(uint32_t stream) {
  const std::vector<ascendsim_exec_node>& nodes = streams_[stream];
  if (observer_ == nullptr)
    ascendsim_execute_nodes(nodes.data(), nodes.size());
  else
    ascendsim_execute_nodes_subscribed(nodes.data(), nodes.size(), observer_, users_[stream]);
}

void StreamRunner::worker(uint32_t stream) {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(start_mutex_);
      start_cv_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
    }
    run_stream(stream);
    std::lock_guard<std::mutex> lock(start_mutex_);
    if (--running_ == 0) done_cv_.notify_one();
  }
}

bool StreamRunner::run(ascendsim_node_observer observer, void* const* users, int32_t event_timeout_ms,
                       uint32_t* late_event) {
  if (workers_.empty()) {  // one stream: no events to wait for, nobody to wake
    observer_ = observer;
    users_ = users;
    run_stream(0);
    return true;
  }
  for (uint32_t e = 0; e < event_count_; ++e) counters_[e].store(0, std::memory_order_relaxed);
  late_event_.store(UINT32_MAX, std::memory_order_relaxed);
  observer_ = observer;
  users_ = users;
  event_timeout_ms_ = event_timeout_ms;
  {
    std::lock_guard<std::mutex> lock(start_mutex_);  // publishes everything above to the workers
    running_ = static_cast<uint32_t>(workers_.size());
    ++generation_;
  }
  start_cv_.notify_all();
  run_stream(0);
  {
    std::unique_lock<std::mutex> lock(start_mutex_);
    done_cv_.wait(lock, [&] { return running_ == 0; });
  }
  const uint32_t late = late_event_.load(std::memory_order_relaxed);
  if (late_event != nullptr) *late_event = late;
  return late == UINT32_MAX;
}

}  // namespace ascendsim::executor
