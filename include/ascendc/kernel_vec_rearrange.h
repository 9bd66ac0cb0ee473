// Data rearrangement: Brcb broadcasts each of 8 consecutive elements per repeat over a whole 32-byte block of the
// destination (block j of repeat r at (r * dstRepStride + j * dstBlkStride) blocks); src0 may not be dst.
#pragma once
#include "ascendc/kernel_vec_repeat.h"

namespace AscendC {

struct BrcbRepeatParams {
  BrcbRepeatParams() = default;
  BrcbRepeatParams(uint16_t dstBlk, uint16_t dstRep) : dstBlkStride(dstBlk), dstRepStride(dstRep) {}
  uint16_t dstBlkStride = 1;
  uint16_t dstRepStride = 8;
};

template <typename T>
__aicore__ inline void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t repeatTime,
                            const BrcbRepeatParams& p) {
  using namespace ascendsim_detail;
  constexpr uint32_t B = ONE_BLK_SIZE / sizeof(T);
  if (repeatTime == 0) return;
  if (dst.data() == src0.data()) fault("Brcb", "src0 and dst are the same tensor");
  check_local("Brcb", "src0", src0, uint64_t{repeatTime} * 8);
  const uint64_t last_block = uint64_t{repeatTime - 1u} * p.dstRepStride + 7u * p.dstBlkStride;
  check_local("Brcb", "dst", dst, (last_block + 1) * B);
  for (uint32_t r = 0; r < repeatTime; ++r)
    for (uint32_t j = 0; j < 8; ++j) {
      const T v = src0.data()[r * 8 + j];
      T* block = dst.data() + (uint64_t{r} * p.dstRepStride + uint64_t{j} * p.dstBlkStride) * B;
      for (uint32_t k = 0; k < B; ++k) block[k] = v;
    }
}

}  // namespace AscendC
