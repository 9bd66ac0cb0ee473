#include "ascendc/kernel_binary.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "acl/error_codes/rt_error_codes.h"
#include "core/error.h"

namespace ascendsim::ascendc {
namespace {

#if defined(__x86_64__)
constexpr uint16_t kHostMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kHostMachine = EM_AARCH64;
#else
constexpr uint16_t kHostMachine = EM_NONE;
#endif

constexpr const char* kHowToBuild =
    "build the kernel for the emulator with ascendsim's driver: `bisheng -shared -fPIC --npu-arch=dav-2201 "
    "kernel.asc -o kernel.so` (eval \"$(ascendsim env)\" puts it on PATH)";

// Writes the image to a file of its own; returns its path in `path` (empty on failure). The dynamic loader
// recognises an object it has loaded by its path name, and objects with unique symbols (inline statics) stay
// loaded after dlclose, so every load gets a name never used before in this process: a counter and mkstemp's
// suffix. The file is removed once loaded.
bool write_image(const BinaryImage& image, char* path, size_t path_size) {
  static std::atomic<uint64_t> loads{0};
  const char* dir = std::getenv("TMPDIR");
  std::snprintf(path, path_size, "%s/ascendsim-kernel-%d-%llu-XXXXXX", dir != nullptr && dir[0] != '\0' ? dir : "/tmp",
                static_cast<int>(getpid()), static_cast<unsigned long long>(++loads));
  const int fd = mkstemp(path);
  if (fd < 0) return false;
  const char* p = static_cast<const char*>(image.data);
  size_t left = image.size;
  while (left > 0) {
    const ssize_t n = write(fd, p, left);
    if (n <= 0) {
      close(fd);
      unlink(path);
      return false;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  close(fd);
  return true;
}

}  // namespace

LoadedBinary::~LoadedBinary() {
  if (handle_ != nullptr) dlclose(handle_);
}

aclError LoadedBinary::load(const char* api, const BinaryImage& image, std::shared_ptr<LoadedBinary>* out) {
  const auto* bytes = static_cast<const unsigned char*>(image.data);
  if (image.size < sizeof(Elf64_Ehdr) || std::memcmp(bytes, ELFMAG, SELFMAG) != 0)
    return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: the binary (%zu bytes) is not an ELF kernel binary; %s", api,
                image.size, kHowToBuild);
  uint16_t machine;
  std::memcpy(&machine, bytes + offsetof(Elf64_Ehdr, e_machine), sizeof machine);
  if (machine != kHostMachine)
    return fail(ACL_ERROR_RT_PARAM_INVALID,
                "%s: the binary is an ELF for machine %u, not this host's %u: a device binary of a real NPU (from "
                "CANN's bisheng or ccec) cannot run on the emulator; %s", api, machine, kHostMachine, kHowToBuild);
  char path[4096];
  if (!write_image(image, path, sizeof path))
    return fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: cannot stage the binary in a temporary file (%s)", api,
                std::strerror(errno));
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  unlink(path);
  if (handle == nullptr)
    return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: the binary does not load as a shared object (%s); %s", api, dlerror(),
                kHowToBuild);
  std::shared_ptr<LoadedBinary> binary(new LoadedBinary());
  binary->handle_ = handle;
  auto table = reinterpret_cast<ascendsimKernelTableFn>(dlsym(handle, ASCENDSIM_KERNEL_TABLE_SYMBOL));
  if (table == nullptr)
    return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: the shared object has no kernel table (%s): it was not built by "
                "ascendsim's bisheng; %s", api, ASCENDSIM_KERNEL_TABLE_SYMBOL, kHowToBuild);
  size_t count = 0;
  const ascendsimKernel* const* kernels = table(&count);
  binary->kernels_.assign(kernels, kernels + count);
  for (const ascendsimKernel* k : binary->kernels_)
    if (k->abi_version != ASCENDSIM_ASCENDC_ABI_VERSION)
      return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: kernel %s was built for Ascend C ABI %u, this runtime has %u: "
                  "rebuild it", api, k->name, k->abi_version, ASCENDSIM_ASCENDC_ABI_VERSION);
  *out = std::move(binary);
  return ACL_SUCCESS;
}

aclError LoadedBinary::load_file(const char* api, const char* path, std::shared_ptr<LoadedBinary>* out) {
  // The staging copy needs a unique name (write_image), so the file is read rather than dlopened where it is.
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: binPath \"%s\" cannot be opened (%s)", api, path,
                std::strerror(errno));
  struct stat info {};
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    close(fd);
    return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: binPath \"%s\" is not a regular file", api, path);
  }
  std::vector<unsigned char> bytes(static_cast<size_t>(info.st_size));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = read(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const int error = errno;
  close(fd);
  if (done != bytes.size())
    return fail(ACL_ERROR_RT_PARAM_INVALID, "%s: reading binPath \"%s\" stopped after %zu of %zu bytes (%s)", api,
                path, done, bytes.size(), std::strerror(error));
  return load(api, BinaryImage{bytes.data(), bytes.size()}, out);
}

const ascendsimKernel* LoadedBinary::find(const std::string& name) const {
  for (const ascendsimKernel* k : kernels_)
    if (name == k->name) return k;
  return nullptr;
}

std::string LoadedBinary::names() const {
  std::string all;
  for (const ascendsimKernel* k : kernels_) all += (all.empty() ? "" : ", ") + std::string(k->name);
  return all.empty() ? "none" : all;
}

}  // namespace ascendsim::ascendc
