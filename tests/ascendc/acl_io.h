// Device buffers for the launch tests: inputs copied in from the Python test's files, outputs copied back.
#pragma once
#include "acl/acl.h"
#include "io.h"

#define CHECK_ACL(call)                                                                     \
  do {                                                                                      \
    aclError ret_ = (call);                                                                 \
    if (ret_ != ACL_SUCCESS) {                                                              \
      std::fprintf(stderr, "%s failed: %d %s\n", #call, ret_, aclGetRecentErrMsg());        \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

inline void* device_from_file(const char* dir, const char* name, size_t* size) {
  std::vector<char> bytes = read_file(dir, name);
  void* dev = nullptr;
  CHECK_ACL(aclrtMalloc(&dev, bytes.size(), ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMemcpy(dev, bytes.size(), bytes.data(), bytes.size(), ACL_MEMCPY_HOST_TO_DEVICE));
  *size = bytes.size();
  return dev;
}

inline void* device_buffer(size_t size) {
  void* dev = nullptr;
  CHECK_ACL(aclrtMalloc(&dev, size, ACL_MEM_MALLOC_HUGE_FIRST));
  return dev;
}

inline void device_to_file(const char* dir, const char* name, const void* dev, size_t size) {
  std::vector<char> host(size);
  CHECK_ACL(aclrtMemcpy(host.data(), size, dev, size, ACL_MEMCPY_DEVICE_TO_HOST));
  write_file(dir, name, host.data(), size);
}
