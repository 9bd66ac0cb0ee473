// The checks the AI Core's hardware (and CANN's CPU-debug checker) applies to a vector or copy operand in
// the unified buffer: the tensor was allocated and not freed since, it starts aligned (32 bytes; some reduction
// outputs need only `alignment` bytes), and the elements the instruction touches lie inside it.
#pragma once
#include "ascendc/kernel_tensor.h"

namespace AscendC::ascendsim_detail {

template <typename T>
inline void check_local(const char* api, const char* operand, const LocalTensor<T>& t, uint64_t elements,
                        uint64_t alignment = ONE_BLK_SIZE) {
  if (t.data() == nullptr) fault(api, "%s is a tensor that was never allocated", operand);
  if (t.stale())
    fault(api, "%s (UB offset %llu) was freed by FreeTensor before this use", operand,
          static_cast<unsigned long long>(ub_offset(t.data())));
  const uint64_t offset = ub_offset(t.data());
  if (block().ub != nullptr && offset % alignment != 0)
    fault(api, "%s starts at UB offset %llu, not %llu-byte aligned", operand, static_cast<unsigned long long>(offset),
          static_cast<unsigned long long>(alignment));
  if (elements > t.GetSize())
    fault(api, "%s needs %llu bytes, the tensor has %llu (UB offset %llu)", operand,
          static_cast<unsigned long long>(elements * sizeof(T)), static_cast<unsigned long long>(t.GetSize() * sizeof(T)),
          static_cast<unsigned long long>(offset));
}

}  // namespace AscendC::ascendsim_detail
