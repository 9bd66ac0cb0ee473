// TPipe, TQueBind / TQue and TBuf: the unified buffer of the block is carved by TPipe::InitBuffer with a bump
// pointer (each buffer rounded up to 32 bytes; overflowing the SoC's UB is a fault). A queue owns `num`
// buffers; AllocTensor hands out a free one (none free: a fault, the hardware would hang), EnQue / DeQue move
// it through a FIFO of at most `depth` tensors (DeQue of an empty queue: a fault), FreeTensor returns it and
// bumps its generation so that stale tensors are recognised. The pipes run in program order on the emulator,
// so the events the queues set and wait implicitly need no emulation.
#pragma once
#include "ascendc/kernel_tensor.h"

namespace AscendC {
namespace ascendsim_detail {

constexpr uint32_t kMaxQueueBuffers = 16;
constexpr uint32_t kMaxPipeBuffers = 64;

inline const char* position_name(TPosition p) {
  switch (p) {
    case TPosition::GM: return "GM";
    case TPosition::VECIN: return "VECIN";
    case TPosition::VECOUT: return "VECOUT";
    case TPosition::VECCALC: return "VECCALC";
    default: return "a cube position";
  }
}

inline bool in_unified_buffer(TPosition p) {
  return p == TPosition::VECIN || p == TPosition::VECOUT || p == TPosition::VECCALC;
}

// The part of a queue or TBuf that TPipe::InitBuffer fills.
class BufferSet {
 public:
  uint32_t buffer_count() const { return count_; }
  BufferSlot* slots() { return slots_; }

  void carve(const char* api, TPosition pos, uint32_t num, uint32_t len, const void* owner) {
    BlockState& s = state();
    const ascendsimBlock& b = block();
    if (!in_unified_buffer(pos))
      fault(api, "position %s is not emulated (only VECIN, VECOUT and VECCALC, the unified buffer)", position_name(pos));
    if (count_ != 0) fault(api, "the queue or buffer was already initialised");
    if (num == 0 || num > kMaxQueueBuffers) fault(api, "num %u is outside [1, %u]", num, kMaxQueueBuffers);
    if (s.buffers + num > kMaxPipeBuffers)
      fault(api, "%u more buffers exceed the %u buffers a kernel may have", num, kMaxPipeBuffers);
    const size_t rounded = (static_cast<size_t>(len) + ONE_BLK_SIZE - 1) / ONE_BLK_SIZE * ONE_BLK_SIZE;
    if (len == 0) fault(api, "len is 0");
    if (s.ub_used + rounded * num > b.ub_size)
      fault(api, "%u buffers of %zu bytes at UB offset %zu overflow the unified buffer of %zu bytes "
            "(allocated buffer size overflow)", num, rounded, s.ub_used, b.ub_size);
    for (uint32_t i = 0; i < num; ++i) {
      slots_[i].addr = b.ub + s.ub_used + i * rounded;
      slots_[i].length = static_cast<uint32_t>(rounded);
      slots_[i].owner = owner;
      slots_[i].state = SlotState::kFree;
    }
    s.ub_used += rounded * num;
    s.buffers += num;
    count_ = num;
    position_ = pos;
  }
  TPosition position() const { return position_; }

 protected:
  BufferSlot slots_[kMaxQueueBuffers];
  uint32_t count_ = 0;
  TPosition position_ = TPosition::VECCALC;
};

}  // namespace ascendsim_detail

template <TPosition src, TPosition dst, int32_t depth, auto mask = 0>
class TQueBind : public ascendsim_detail::BufferSet {
 public:
  static constexpr TPosition kPosition = src == TPosition::GM ? dst : src;

  template <typename T>
  __aicore__ inline LocalTensor<T> AllocTensor() {
    using namespace ascendsim_detail;
    if (count_ == 0) fault("AllocTensor", "the queue has no buffers (call TPipe::InitBuffer first)");
    for (uint32_t k = 0; k < count_; ++k) {
      BufferSlot& slot = slots_[(next_ + k) % count_];
      if (slot.state != SlotState::kFree) continue;
      next_ = (next_ + k + 1) % count_;
      slot.state = SlotState::kAllocated;
      return LocalTensor<T>(reinterpret_cast<T*>(slot.addr), slot.length / sizeof(T), kPosition, &slot);
    }
    fault("AllocTensor", "all %u buffers of the %s queue are allocated and not freed (FreeTensor one first; the "
          "core would hang)", count_, position_name(kPosition));
  }
  template <typename T>
  __aicore__ inline void AllocTensor(LocalTensor<T>& tensor) {
    tensor = AllocTensor<T>();
  }

  template <typename T>
  __aicore__ inline bool EnQue(const LocalTensor<T>& tensor) {
    using namespace ascendsim_detail;
    BufferSlot* slot = own("EnQue", tensor);
    if (slot->state == SlotState::kQueued) fault("EnQue", "the tensor at UB offset %llu is already in the queue",
                                                 static_cast<unsigned long long>(ub_offset(slot->addr)));
    if (queued_ >= kDepth) return false;
    slot->state = SlotState::kQueued;
    fifo_[(head_ + queued_) % kMaxQueueBuffers] = slot;
    ++queued_;
    return true;
  }

  template <typename T>
  __aicore__ inline LocalTensor<T> DeQue() {
    using namespace ascendsim_detail;
    if (queued_ == 0)
      fault("DeQue", "the %s queue is empty (no EnQue before this DeQue; the core would hang)",
            position_name(kPosition));
    BufferSlot* slot = fifo_[head_];
    head_ = (head_ + 1) % kMaxQueueBuffers;
    --queued_;
    slot->state = SlotState::kAllocated;
    return LocalTensor<T>(reinterpret_cast<T*>(slot->addr), slot->length / sizeof(T), kPosition, slot);
  }
  template <typename T>
  __aicore__ inline void DeQue(LocalTensor<T>& tensor) {
    tensor = DeQue<T>();
  }

  template <typename T>
  __aicore__ inline void FreeTensor(LocalTensor<T>& tensor) {
    using namespace ascendsim_detail;
    BufferSlot* slot = own("FreeTensor", tensor);
    if (slot->state == SlotState::kQueued)
      fault("FreeTensor", "the tensor at UB offset %llu is still in the queue (DeQue it first)",
            static_cast<unsigned long long>(ub_offset(slot->addr)));
    slot->state = SlotState::kFree;
    ++slot->generation;
  }

  __aicore__ inline int32_t GetTensorCountInQue() const { return static_cast<int32_t>(queued_); }
  __aicore__ inline bool HasTensorInQue() const { return queued_ != 0; }
  __aicore__ inline bool VacantInQue() const { return queued_ < kDepth; }
  __aicore__ inline bool HasIdleBuffer() const {
    for (uint32_t i = 0; i < count_; ++i)
      if (slots_[i].state == ascendsim_detail::SlotState::kFree) return true;
    return false;
  }
  __aicore__ inline void FreeAllEvent() {}

 private:
  static constexpr uint32_t kDepth = depth < 1 ? 1u : static_cast<uint32_t>(depth);

  // The tensor's buffer, which must be one of this queue's and live.
  template <typename T>
  ascendsim_detail::BufferSlot* own(const char* api, const LocalTensor<T>& tensor) {
    using namespace ascendsim_detail;
    BufferSlot* slot = tensor.slot();
    if (slot == nullptr || slot->owner != this)
      fault(api, "the tensor (at %p) was not allocated from this queue", static_cast<void*>(tensor.data()));
    if (tensor.stale())
      fault(api, "the tensor at UB offset %llu was already freed (FreeTensor twice, or use after FreeTensor)",
            static_cast<unsigned long long>(ub_offset(tensor.data())));
    return slot;
  }

  ascendsim_detail::BufferSlot* fifo_[ascendsim_detail::kMaxQueueBuffers] = {};
  uint32_t head_ = 0, queued_ = 0, next_ = 0;
};

template <TPosition pos, int32_t depth, auto mask = 0>
class TQue : public TQueBind<(pos == TPosition::VECIN ? TPosition::GM : pos),
                             (pos == TPosition::VECOUT ? TPosition::GM : pos), depth, mask> {};

// A buffer without queue semantics: Get hands out views of the whole buffer, always live.
template <TPosition pos = TPosition::VECCALC>
class TBuf : public ascendsim_detail::BufferSet {
 public:
  template <typename T>
  __aicore__ inline LocalTensor<T> Get() {
    return Get<T>(ready("TBuf::Get")->length / sizeof(T));
  }
  template <typename T>
  __aicore__ inline LocalTensor<T> Get(uint32_t len) {
    ascendsim_detail::BufferSlot* slot = ready("TBuf::Get");
    if (static_cast<uint64_t>(len) * sizeof(T) > slot->length)
      ascendsim_detail::fault("TBuf::Get", "%u elements of %zu bytes exceed the buffer's %u bytes", len, sizeof(T),
                              slot->length);
    return LocalTensor<T>(reinterpret_cast<T*>(slot->addr), len, pos, slot);
  }
  template <typename T>
  __aicore__ inline LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset) {
    ascendsim_detail::BufferSlot* slot = ready("TBuf::GetWithOffset");
    if (bufOffset % ONE_BLK_SIZE != 0 || static_cast<uint64_t>(size) * sizeof(T) + bufOffset > slot->length)
      ascendsim_detail::fault("TBuf::GetWithOffset", "size %u at byte offset %u does not fit the buffer's %u bytes "
                              "32-byte aligned", size, bufOffset, slot->length);
    return LocalTensor<T>(reinterpret_cast<T*>(slot->addr + bufOffset), size, pos, slot);
  }

 private:
  ascendsim_detail::BufferSlot* ready(const char* api) {
    if (count_ == 0) ascendsim_detail::fault(api, "the buffer was not initialised (TPipe::InitBuffer)");
    slots_[0].state = ascendsim_detail::SlotState::kAllocated;
    return &slots_[0];
  }
};

class TPipe {
 public:
  __aicore__ inline TPipe() { ascendsim_detail::state().pipe = this; }
  __aicore__ inline ~TPipe() { Destroy(); }
  TPipe(const TPipe&) = delete;
  TPipe& operator=(const TPipe&) = delete;

  template <class Q>
  __aicore__ inline bool InitBuffer(Q& que, uint8_t num, uint32_t len) {
    que.carve("TPipe::InitBuffer", Q::kPosition, num, len, &que);
    return true;
  }
  template <TPosition pos>
  __aicore__ inline bool InitBuffer(TBuf<pos>& buf, uint32_t len) {
    buf.carve("TPipe::InitBuffer", pos, 1, len, &buf);
    return true;
  }
  __aicore__ inline void Init() { ascendsim_detail::state().pipe = this; }
  __aicore__ inline void Reset() {
    ascendsim_detail::state().ub_used = 0;
    ascendsim_detail::state().buffers = 0;
  }
  __aicore__ inline void Destroy() {
    ascendsim_detail::BlockState& s = ascendsim_detail::state();
    if (s.pipe == this) {
      s.pipe = nullptr;
      Reset();
    }
  }
  template <HardEvent event>
  __aicore__ inline int32_t AllocEventID() { return 0; }
  template <HardEvent event>
  __aicore__ inline void ReleaseEventID(int32_t) {}
  __aicore__ inline int32_t FetchEventID(HardEvent) { return 0; }
  template <HardEvent event>
  __aicore__ inline int32_t FetchEventID() { return 0; }
};

__aicore__ inline TPipe* GetTPipePtr() { return ascendsim_detail::state().pipe; }

}  // namespace AscendC
