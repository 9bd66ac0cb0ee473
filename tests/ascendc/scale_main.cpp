// The host file of the two-file form: declares the kernel and launches it with <<<>>> (prints "ok scale" when
// y == 2.5 * x for all 1000 elements).
#include <cstdio>
#include <vector>

#include "acl/acl.h"

extern "C" __global__ __aicore__ void scale(GM_ADDR x, GM_ADDR y, float a, uint32_t n);

int main() {
  constexpr uint32_t n = 1000;
  std::vector<float> host(n), out(n);
  for (uint32_t i = 0; i < n; ++i) host[i] = static_cast<float>(i) - 300.0f;
  aclrtStream stream = nullptr;
  void *x = nullptr, *y = nullptr;
  if (aclInit(nullptr) != 0 || aclrtSetDevice(0) != 0 || aclrtCreateStream(&stream) != 0 ||
      aclrtMalloc(&x, n * 4, ACL_MEM_MALLOC_HUGE_FIRST) != 0 || aclrtMalloc(&y, n * 4, ACL_MEM_MALLOC_HUGE_FIRST) != 0 ||
      aclrtMemcpy(x, n * 4, host.data(), n * 4, ACL_MEMCPY_HOST_TO_DEVICE) != 0)
    return 1;
  scale<<<3, nullptr, stream>>>(static_cast<uint8_t*>(x), static_cast<uint8_t*>(y), 2.5f, n);
  if (aclrtSynchronizeStream(stream) != 0) {
    std::printf("%s\n", aclGetRecentErrMsg());
    return 1;
  }
  if (aclrtMemcpy(out.data(), n * 4, y, n * 4, ACL_MEMCPY_DEVICE_TO_HOST) != 0) return 1;
  for (uint32_t i = 0; i < n; ++i)
    if (out[i] != 2.5f * host[i]) return 1;
  aclrtFree(x);
  aclrtFree(y);
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  std::printf("ok scale\n");
  return 0;
}
