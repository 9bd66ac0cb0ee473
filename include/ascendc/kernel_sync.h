// Pipe synchronisation. The emulator runs every instruction in program order, so barriers order nothing; what
// is checked is what would hang or fault the core: PipeBarrier<PIPE_S>, an event id outside [0, 8), and a
// WaitFlag whose SetFlag never came (the waiting pipe would stall forever).
#pragma once
#include "ascendc/kernel_block.h"

namespace AscendC {

template <pipe_t pipe>
__aicore__ inline void PipeBarrier() {
  if (pipe == PIPE_S) ascendsim_detail::fault("PipeBarrier", "PipeBarrier<PIPE_S> is not allowed (a hardware error)");
}

namespace ascendsim_detail {
inline uint8_t& flags_of(const char* api, HardEvent event, int32_t id) {
  if (id < 0 || id >= QUE_MAX_EVENT) fault(api, "event id %d is outside [0, %d)", id, QUE_MAX_EVENT);
  return state().flags[static_cast<int>(event)];
}
}  // namespace ascendsim_detail

template <HardEvent event>
__aicore__ inline void SetFlag(int32_t eventID) {
  ascendsim_detail::flags_of("SetFlag", event, eventID) |= static_cast<uint8_t>(1u << eventID);
}

template <HardEvent event>
__aicore__ inline void WaitFlag(int32_t eventID) {
  uint8_t& flags = ascendsim_detail::flags_of("WaitFlag", event, eventID);
  if ((flags & (1u << eventID)) == 0)
    ascendsim_detail::fault("WaitFlag", "event %d id %d was not set by a SetFlag before (the core would hang)",
                            static_cast<int>(event), eventID);
  flags = static_cast<uint8_t>(flags & ~(1u << eventID));
}

template <pipe_t src, pipe_t dst>
class TQueSync {
 public:
  __aicore__ inline void SetFlag(int32_t eventID) { ascendsim_detail::flags_of("TQueSync::SetFlag", kEvent, eventID) |= static_cast<uint8_t>(1u << eventID); }
  __aicore__ inline void WaitFlag(int32_t eventID) {
    uint8_t& flags = ascendsim_detail::flags_of("TQueSync::WaitFlag", kEvent, eventID);
    if ((flags & (1u << eventID)) == 0)
      ascendsim_detail::fault("TQueSync::WaitFlag", "pipe %d -> %d id %d was not set before (the core would hang)",
                              static_cast<int>(src), static_cast<int>(dst), eventID);
    flags = static_cast<uint8_t>(flags & ~(1u << eventID));
  }

 private:
  // Any event slot distinct per (src, dst) pair works: the pair's flags live in the slot of its index.
  static constexpr HardEvent kEvent = static_cast<HardEvent>((static_cast<int>(src) * 11 + static_cast<int>(dst)) %
                                                             static_cast<int>(HardEvent::MAX));
};

__aicore__ inline void pipe_barrier(pipe_t pipe) {
  if (pipe == PIPE_S) ascendsim_detail::fault("pipe_barrier", "pipe_barrier(PIPE_S) is not allowed (a hardware error)");
}

template <int mode = 0>
__aicore__ inline void DataCacheCleanAndInvalid() {}

}  // namespace AscendC
