// The kernel-invocation form of CANN's sample trees: the kernels built by ascendc_library (ascendc.cmake), launched
// through the generated aclrtlaunch_scale.h with ACLRT_LAUNCH_KERNEL (prints "ok invocation" when y == -1.5 * x).
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclrtlaunch_scale.h"

int main() {
  constexpr uint32_t n = 512;
  std::vector<float> host(n), out(n);
  for (uint32_t i = 0; i < n; ++i) host[i] = static_cast<float>(i) * 0.25f;
  aclrtStream stream = nullptr;
  void *x = nullptr, *y = nullptr;
  if (aclInit(nullptr) != 0 || aclrtSetDevice(0) != 0 || aclrtCreateStream(&stream) != 0 ||
      aclrtMalloc(&x, n * 4, ACL_MEM_MALLOC_HUGE_FIRST) != 0 || aclrtMalloc(&y, n * 4, ACL_MEM_MALLOC_HUGE_FIRST) != 0 ||
      aclrtMemcpy(x, n * 4, host.data(), n * 4, ACL_MEMCPY_HOST_TO_DEVICE) != 0)
    return 1;
  if (ACLRT_LAUNCH_KERNEL(scale)(2, stream, x, y, -1.5f, n) != 0 || aclrtSynchronizeStream(stream) != 0) {
    std::printf("%s\n", aclGetRecentErrMsg());
    return 1;
  }
  if (aclrtMemcpy(out.data(), n * 4, y, n * 4, ACL_MEMCPY_DEVICE_TO_HOST) != 0) return 1;
  for (uint32_t i = 0; i < n; ++i)
    if (out[i] != -1.5f * host[i]) return 1;
  aclrtFree(x);
  aclrtFree(y);
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  std::printf("ok invocation\n");
  return 0;
}
