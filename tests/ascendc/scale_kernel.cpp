// The kernel file of the two-file form (ccec -x cce scale_kernel.cpp -x c++ scale_main.cpp) and of the CMake
// project of tests/test_ascendc_build.py: y = a * x over n floats (n a multiple of 8), blocks take turns by tile.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void scale(GM_ADDR x, GM_ADDR y, float a, uint32_t n) {
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
  constexpr uint32_t kTile = 64;
  pipe.InitBuffer(buf, kTile * sizeof(float));
  AscendC::GlobalTensor<float> xGm, yGm;
  xGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), n);
  yGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y), n);
  AscendC::LocalTensor<float> t = buf.Get<float>();
  for (uint32_t at = kTile * static_cast<uint32_t>(AscendC::GetBlockIdx()); at < n;
       at += kTile * static_cast<uint32_t>(AscendC::GetBlockNum())) {
    const uint32_t count = n - at < kTile ? n - at : kTile;
    AscendC::DataCopy(t, xGm[at], count);
    AscendC::Muls(t, t, a, static_cast<int32_t>(count));
    AscendC::DataCopy(yGm[at], t, count);
  }
}
