// GlobalTensor (a typed view of global memory) and LocalTensor (a typed view of a buffer of the unified
// buffer). A LocalTensor remembers the queue buffer it came from and that buffer's generation: FreeTensor
// bumps the generation, so a tensor used after its buffer was freed (or freed twice) is caught by checking
// one number (check_local). Sub-tensors (operator[]) share their parent's buffer and generation.
#pragma once
#include <cstdint>
#include <utility>

#include "ascendc/kernel_block.h"

namespace AscendC {
namespace ascendsim_detail {

enum class SlotState : uint8_t { kFree, kAllocated, kQueued };

// One buffer carved by TPipe::InitBuffer.
struct BufferSlot {
  uint8_t* addr = nullptr;
  uint32_t length = 0;  // bytes, a multiple of 32
  uint32_t generation = 0;
  SlotState state = SlotState::kFree;
  const void* owner = nullptr;  // the queue or TBuf
};

inline uint64_t ub_offset(const void* p) {
  const ascendsimBlock& b = block();
  return b.ub != nullptr ? static_cast<uint64_t>(static_cast<const uint8_t*>(p) - b.ub) : reinterpret_cast<uint64_t>(p);
}

}  // namespace ascendsim_detail

template <typename T>
class LocalTensor {
 public:
  using PrimType = T;
  LocalTensor() = default;
  LocalTensor(T* addr, uint32_t size, TPosition pos, ascendsim_detail::BufferSlot* slot)
      : addr_(addr), size_(size), pos_(pos), slot_(slot), generation_(slot != nullptr ? slot->generation : 0) {}

  // dst = a + b (and - * / | &): the instruction over dst's whole length (kernel_vec_elementwise.h).
  template <typename E, typename = decltype(std::declval<const E&>().assign_to(std::declval<LocalTensor&>()))>
  __aicore__ inline LocalTensor& operator=(const E& expression) {
    expression.assign_to(*this);
    return *this;
  }
  LocalTensor(const LocalTensor&) = default;
  LocalTensor& operator=(const LocalTensor&) = default;

  __aicore__ inline T GetValue(uint32_t index) const {
    check_index("LocalTensor::GetValue", index);
    return addr_[index];
  }
  template <typename V>
  __aicore__ inline void SetValue(uint32_t index, V value) const {
    check_index("LocalTensor::SetValue", index);
    addr_[index] = static_cast<T>(value);
  }
  __aicore__ inline T& operator()(uint32_t index) const {
    check_index("LocalTensor::operator()", index);
    return addr_[index];
  }
  __aicore__ inline LocalTensor operator[](uint32_t offset) const {
    LocalTensor sub = *this;
    sub.addr_ += offset;
    sub.size_ = offset < size_ ? size_ - offset : 0;
    return sub;
  }
  template <typename U>
  __aicore__ inline LocalTensor<U> ReinterpretCast() const {
    LocalTensor<U> other(reinterpret_cast<U*>(addr_), static_cast<uint32_t>(size_ * sizeof(T) / sizeof(U)), pos_, nullptr);
    other.adopt(slot_, generation_);
    return other;
  }
  __aicore__ inline uint32_t GetSize() const { return size_; }
  __aicore__ inline void SetSize(uint32_t size) { size_ = size; }
  __aicore__ inline uint32_t GetLength() const { return size_ * sizeof(T); }
  __aicore__ inline uint64_t GetPhyAddr() const { return reinterpret_cast<uint64_t>(addr_); }
  __aicore__ inline uint64_t GetPhyAddr(uint32_t offset) const { return reinterpret_cast<uint64_t>(addr_ + offset); }
  __aicore__ inline TPosition GetPosition() const { return pos_; }
  __aicore__ inline void SetUserTag(int32_t tag) { tag_ = tag; }
  __aicore__ inline int32_t GetUserTag() const { return tag_; }

  // The emulator's own accessors (kernel_check.h, the vector APIs).
  T* data() const { return addr_; }
  ascendsim_detail::BufferSlot* slot() const { return slot_; }
  uint32_t generation() const { return generation_; }
  void adopt(ascendsim_detail::BufferSlot* slot, uint32_t generation) {
    slot_ = slot;
    generation_ = generation;
  }
  // Freed (FreeTensor bumped the buffer's generation) or never allocated.
  bool stale() const { return slot_ != nullptr && (slot_->generation != generation_ || slot_->state == ascendsim_detail::SlotState::kFree); }

 private:
  void check_index(const char* api, uint32_t index) const {
    if (addr_ == nullptr) ascendsim_detail::fault(api, "the tensor was never allocated");
    if (stale())
      ascendsim_detail::fault(api, "the tensor at UB offset %llu was freed (FreeTensor) before this use",
                              static_cast<unsigned long long>(ascendsim_detail::ub_offset(addr_)));
    if (index >= size_) ascendsim_detail::fault(api, "index %u is past the tensor's %u elements", index, size_);
  }

  T* addr_ = nullptr;
  uint32_t size_ = 0;
  TPosition pos_ = TPosition::VECCALC;
  ascendsim_detail::BufferSlot* slot_ = nullptr;
  uint32_t generation_ = 0;
  int32_t tag_ = 0;
};

template <typename T>
class GlobalTensor {
 public:
  using PrimType = T;
  __aicore__ inline void SetGlobalBuffer(__gm__ T* buffer, uint64_t size) {
    addr_ = buffer;
    size_ = size;
  }
  __aicore__ inline void SetGlobalBuffer(__gm__ T* buffer) { SetGlobalBuffer(buffer, 0); }
  __aicore__ inline const __gm__ T* GetPhyAddr() const { return addr_; }
  __aicore__ inline __gm__ T* GetPhyAddr(uint64_t offset) const { return addr_ + offset; }
  __aicore__ inline T GetValue(uint64_t offset) const {
    ascendsim_detail::check_global("GlobalTensor::GetValue", addr_ + offset, sizeof(T), false);
    return addr_[offset];
  }
  template <typename V>
  __aicore__ inline void SetValue(uint64_t offset, V value) const {
    ascendsim_detail::check_global("GlobalTensor::SetValue", addr_ + offset, sizeof(T), true);
    addr_[offset] = static_cast<T>(value);
  }
  __aicore__ inline T& operator()(uint64_t offset) const {
    ascendsim_detail::check_global("GlobalTensor::operator()", addr_ + offset, sizeof(T), true);
    return addr_[offset];
  }
  __aicore__ inline GlobalTensor operator[](uint64_t offset) const {
    GlobalTensor sub = *this;
    sub.addr_ += offset;
    sub.size_ = offset < size_ ? size_ - offset : 0;
    return sub;
  }
  __aicore__ inline uint64_t GetSize() const { return size_; }

  T* data() const { return addr_; }

 private:
  __gm__ T* addr_ = nullptr;
  uint64_t size_ = 0;
};

}  // namespace AscendC
