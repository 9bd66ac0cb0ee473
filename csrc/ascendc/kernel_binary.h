// Kernel binaries for aclrtCreateBinary / aclrtBinaryLoad (and its FromFile / FromData forms) /
// aclrtBinaryGetFunction. On the emulator a device binary is a host shared object made by ascendsim's bisheng
// (-shared): loading writes the image to a temporary file (a file to load is read first), dlopens it and reads its table of kernels (ascendsimKernelTable). An ELF for another machine
// (a real NPU binary from CANN's bisheng or ccec) is refused with a message saying how to build for the emulator.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl_base.h"
#include "ascendsim/ascendc_abi.h"

namespace ascendsim::ascendc {

// aclrtCreateBinary's object: the caller's image, not copied (CANN does not copy it either; it must outlive the
// load).
struct BinaryImage {
  const void* data;
  size_t size;
};

class LoadedBinary {
 public:
  ~LoadedBinary();
  LoadedBinary(const LoadedBinary&) = delete;
  LoadedBinary& operator=(const LoadedBinary&) = delete;

  // Loads `image`; ACL_ERROR_RT_PARAM_INVALID with a message naming `api` when it is no emulator kernel binary.
  static aclError load(const char* api, const BinaryImage& image, std::shared_ptr<LoadedBinary>* out);
  // Reads the file at `path` and loads it as `load` does; ACL_ERROR_RT_PARAM_INVALID when it cannot be read
  // (CANN's runtime answers a path it cannot access so).
  static aclError load_file(const char* api, const char* path, std::shared_ptr<LoadedBinary>* out);

  // The kernel named `name`, or null.
  const ascendsimKernel* find(const std::string& name) const;
  std::string names() const;  // "a, b, c" for messages

 private:
  LoadedBinary() = default;
  void* handle_ = nullptr;
  std::vector<const ascendsimKernel*> kernels_;
};

}  // namespace ascendsim::ascendc
