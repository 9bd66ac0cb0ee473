// RecycledBlocks: the feature-map blocks an execution of the v2 runtime has freed since its last allocation,
// held back from the device's caching allocator for the next AllocOutputs of exactly their size.
//
// Why: a dynamic-shape model allocates and frees every feature map at every execution, and a chain of small
// ops spent half its per-node time in the device allocator's lock and ordered sets. Most of a network's
// frees are followed by an allocation of the same size (a chain's ping-pong, a repeated block), which this
// serves with a few compares. An allocation that finds no block of its size first returns every held block
// to the device allocator and then asks it, so the device sees the same bytes in use as without this layer
// (a held block is never kept past a miss or the end of the execution). A spin lock, since the parallel
// executor's steps allocate and free at once; uncontended under the other executors.
#pragma once
#include <atomic>
#include <cstddef>

#include "core/spin.h"

namespace ascendsim::model {

class RecycledBlocks {
 public:
  // A held block of exactly `bytes`, or null after handing every held block to release(addr).
  template <class Release>
  void* take(size_t bytes, Release release) {
    Guard guard(lock_);
    for (size_t i = count_; i-- > 0;)
      if (blocks_[i].bytes == bytes) {
        void* addr = blocks_[i].addr;
        blocks_[i] = blocks_[--count_];
        return addr;
      }
    drain(release);
    return nullptr;
  }
  // Holds `addr` (a block of `bytes`); a full set first goes back through release(addr).
  template <class Release>
  void keep(void* addr, size_t bytes, Release release) {
    Guard guard(lock_);
    if (count_ == kMaxBlocks) drain(release);
    blocks_[count_++] = {bytes, addr};
  }
  // Every held block back through release(addr): at the end of an execution.
  template <class Release>
  void flush(Release release) {
    Guard guard(lock_);
    drain(release);
  }

 private:
  static constexpr size_t kMaxBlocks = 8;
  struct Block {
    size_t bytes;
    void* addr;
  };
  struct Guard {
    explicit Guard(std::atomic_flag& f) : flag(f) {
      while (flag.test_and_set(std::memory_order_acquire)) cpu_relax();
    }
    ~Guard() { flag.clear(std::memory_order_release); }
    std::atomic_flag& flag;
  };
  template <class Release>
  void drain(Release release) {
    for (size_t i = 0; i < count_; ++i) release(blocks_[i].addr);
    count_ = 0;
  }
  Block blocks_[kMaxBlocks] = {};
  size_t count_ = 0;
  std::atomic_flag lock_ = ATOMIC_FLAG_INIT;
};

}  // namespace ascendsim::model
