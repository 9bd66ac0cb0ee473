// The CPU-debug mode as CANN documents it: GmAlloc, ICPU_RUN_KF, built with g++ -DASCENDC_CPU_DEBUG (older
// sources: -D__CCE_KT_TEST__). With "fault" after the directory it runs a kernel that reads past a GmAlloc buffer.
#include <cstring>

#include "io.h"
#if defined(ASCENDC_CPU_DEBUG) || defined(__CCE_KT_TEST__)
#include "tikicpulib.h"
#endif
#include "platform/platform_ascendc.h"  // newer samples' path of tiling/platform/platform_ascendc.h
#include "vector_kernels.asc"

// Block 1 reads 32 floats past the end of a 64-float buffer.
extern "C" __global__ __aicore__ void read_past_end(GM_ADDR x) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> in;
  pipe.InitBuffer(in, 1, 64 * sizeof(float));
  GlobalTensor<float> xGm;
  xGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x) + 32 * GetBlockIdx(), 64);
  LocalTensor<float> t = in.AllocTensor<float>();
  DataCopy(t, xGm, 64);
  in.FreeTensor(t);
}

static uint8_t* load(const char* dir, const char* name, size_t* size) {
  std::vector<char> bytes = read_file(dir, name);
  auto* gm = static_cast<uint8_t*>(AscendC::GmAlloc(bytes.size()));
  std::memcpy(gm, bytes.data(), bytes.size());
  *size = bytes.size();
  return gm;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const char* dir = argv[1];
  if (argc > 2 && std::strcmp(argv[2], "fault") == 0) {
    auto* x = static_cast<uint8_t*>(AscendC::GmAlloc(64 * sizeof(float)));
    ICPU_RUN_KF(read_past_end, 2, x);
    return 0;  // not reached: the fault ends the program
  }
  size_t nx, ny, ns, nh;
  uint8_t* x = load(dir, "add_x.bin", &nx);
  uint8_t* y = load(dir, "add_y.bin", &ny);
  auto* z = static_cast<uint8_t*>(AscendC::GmAlloc(nx));
  ICPU_SET_TILING_KEY(1);
  ICPU_RUN_KF(add_custom, kAddBlocks, x, y, z, AddTiling{kAddLength, kAddTile});
  write_file(dir, "add_z.bin", z, nx);

  uint8_t* s = load(dir, "stats_x.bin", &ns);
  auto* sums = static_cast<uint8_t*>(AscendC::GmAlloc(kStatRows * sizeof(float)));
  auto* maxes = static_cast<uint8_t*>(AscendC::GmAlloc(kStatRows * sizeof(float)));
  ICPU_RUN_KF(row_stats, kStatBlocks, s, sums, maxes, kStatRows, kStatCols);
  write_file(dir, "stats_sum.bin", sums, kStatRows * sizeof(float));
  write_file(dir, "stats_max.bin", maxes, kStatRows * sizeof(float));

  uint8_t* h = load(dir, "softmax_x.bin", &nh);
  auto* out = static_cast<uint8_t*>(AscendC::GmAlloc(nh));
  ICPU_RUN_KF(softmax_rows, kSoftmaxBlocks, h, out, kSoftmaxRows, kSoftmaxCols);
  write_file(dir, "softmax_y.bin", out, nh);

  for (uint8_t* p : {x, y, z, s, sums, maxes, h, out}) AscendC::GmFree(p);
  // Host tiling code's view of the SoC.
  auto* platform = platform_ascendc::PlatformAscendCManager::GetInstance();
  uint64_t ub = 0;
  platform->GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
  std::printf("ok cpu-debug aiv=%u aic=%u ub=%llu 910b=%d\n", platform->GetCoreNumAiv(), platform->GetCoreNumAic(),
              static_cast<unsigned long long>(ub),
              platform->GetSocVersion() == platform_ascendc::SocVersion::ASCEND910B ? 1 : 0);
  return 0;
}
