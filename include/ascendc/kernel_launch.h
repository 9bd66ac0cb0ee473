// How a kernel function becomes an ascendsimKernel (include/ascendsim/ascendc_abi.h) and how its arguments are
// packed: parameter i of type P_i sits at the first offset >= the end of parameter i-1 aligned to alignof(P_i),
// as in a C struct. entry<P...> unpacks them, makes the block current (kernel_block.h) and turns a fault into the
// code and message the library reports. Three launch paths share this: ICPU_RUN_KF (tikicpulib.h) runs the
// blocks now, `kernel<<<blockDim, l2ctrl, stream>>>(args...)` (rewritten by bisheng into launch(...)(args...))
// queues them on a stream, and a kernel shared object exports its kernels by name for aclrtBinaryGetFunction.
#pragma once
#include <array>
#include <cstring>
#include <exception>
#include <type_traits>
#include <utility>
#include <vector>

#include "ascendc/kernel_block.h"

namespace AscendC::ascendsim_detail {

template <typename... P>
struct ArgLayout {
  static constexpr size_t kCount = sizeof...(P);
  static constexpr std::array<size_t, kCount + 1> offsets() {
    std::array<size_t, kCount + 1> at{};
    size_t end = 0, i = 0;
    ((end = (end + alignof(P) - 1) / alignof(P) * alignof(P), at[i++] = end, end += sizeof(P)), ...);
    at[kCount] = end;
    return at;
  }
  static constexpr size_t size() { return offsets()[kCount]; }
};

template <typename P>
constexpr uint32_t param_kind() {
  if constexpr (std::is_pointer_v<P>) return ASCENDSIM_PARAM_POINTER;
  else if constexpr (std::is_floating_point_v<P> || std::is_same_v<P, half>) return ASCENDSIM_PARAM_FLOAT;
  else if constexpr (std::is_integral_v<P> && std::is_signed_v<P>) return ASCENDSIM_PARAM_INT;
  else if constexpr (std::is_integral_v<P> || std::is_enum_v<P>) return ASCENDSIM_PARAM_UINT;
  else return ASCENDSIM_PARAM_BYTES;
}

// The parameter table of a signature (one static array per signature).
template <typename... P>
struct ParamTable {
  static constexpr std::array<ascendsimParam, sizeof...(P) + 1> make() {
    constexpr auto at = ArgLayout<P...>::offsets();
    std::array<ascendsimParam, sizeof...(P) + 1> table{};
    size_t i = 0;
    ((table[i] = ascendsimParam{static_cast<uint32_t>(at[i]), static_cast<uint32_t>(sizeof(P)), param_kind<P>()}, ++i), ...);
    return table;
  }
  static constexpr std::array<ascendsimParam, sizeof...(P) + 1> kParams = make();
};

template <typename P>
inline P unpack_one(const uint8_t* args, size_t offset) {
  static_assert(std::is_trivially_copyable_v<P>, "kernel parameters must be trivially copyable");
  P value;
  std::memcpy(static_cast<void*>(&value), args + offset, sizeof(P));
  return value;
}

template <typename... P, size_t... I>
inline void call_unpacked(void (*fn)(P...), const uint8_t* args, std::index_sequence<I...>) {
  constexpr auto at = ArgLayout<P...>::offsets();
  fn(unpack_one<P>(args, at[I])...);
}

// Makes `b` this thread's block for the scope, with a fresh block state.
class BlockScope {
 public:
  explicit BlockScope(const ascendsimBlock* b) : saved_(tls_state) {
    tls_state = BlockState{};
    tls_state.block = b;
  }
  ~BlockScope() { tls_state = saved_; }
  BlockScope(const BlockScope&) = delete;
  BlockScope& operator=(const BlockScope&) = delete;

 private:
  BlockState saved_;
};

template <typename... P>
aclError entry(const ascendsimKernel* kernel, const void* args, const ascendsimBlock* b, char* message, size_t size) {
  BlockScope scope(b);
  try {
    call_unpacked(reinterpret_cast<void (*)(P...)>(kernel->function), static_cast<const uint8_t*>(args),
                  std::index_sequence_for<P...>{});
    return ACL_SUCCESS;
  } catch (const Fault& f) {
    std::snprintf(message, size, "%s", f.message.c_str());
    return f.code;
  } catch (const std::exception& e) {
    std::snprintf(message, size, "kernel %s, block %u of %u: threw %s", b->kernel, b->index, b->count, e.what());
    return b->fault_code;
  }
}

template <typename... P>
inline ascendsimKernel describe(void (*fn)(P...), const char* name) {
  return ascendsimKernel{ASCENDSIM_ASCENDC_ABI_VERSION, name, reinterpret_cast<void (*)(void)>(fn), &entry<P...>,
                         ArgLayout<P...>::size(), static_cast<uint32_t>(sizeof...(P)), ParamTable<P...>::kParams.data()};
}

template <typename P, typename A>
inline void put(uint8_t* where, A&& a) {
  const P value = static_cast<P>(std::forward<A>(a));
  std::memcpy(where, static_cast<const void*>(&value), sizeof(P));
}

// The caller's arguments converted to the kernel's parameter types and packed.
template <typename... P, typename... A>
inline std::vector<uint8_t> pack(void (*)(P...), A&&... a) {
  static_assert(sizeof...(P) == sizeof...(A), "the launch passes a different number of arguments than the kernel has");
  constexpr auto at = ArgLayout<P...>::offsets();
  std::vector<uint8_t> bytes(ArgLayout<P...>::size());
  size_t i = 0;
  (put<P>(bytes.data() + at[i++], std::forward<A>(a)), ...);
  return bytes;
}

// ICPU_RUN_KF's tiling key (ICPU_SET_TILING_KEY).
inline int32_t& cpu_tiling_key() {
  static int32_t key = 0;
  return key;
}

// kernel<<<blockDim, l2ctrl, stream>>>(args...): queues the launch on the stream.
template <typename... P>
class Launcher {
 public:
  Launcher(void (*fn)(P...), const char* name, uint32_t block_dim, aclrtStream stream)
      : fn_(fn), name_(name), block_dim_(block_dim), stream_(stream) {}
  template <typename... A>
  aclError operator()(A&&... args) const {
    const ascendsimKernel kernel = describe(fn_, name_);
    const std::vector<uint8_t> bytes = pack(fn_, std::forward<A>(args)...);
    return ascendsimKernelLaunch(&kernel, block_dim_, bytes.data(), bytes.size(), stream_);
  }

 private:
  void (*fn_)(P...);
  const char* name_;
  uint32_t block_dim_;
  aclrtStream stream_;
};

template <typename... P, typename L2 = void*>
inline Launcher<P...> launch(void (*fn)(P...), const char* name, uint32_t block_dim, L2 l2ctrl = nullptr,
                             aclrtStream stream = nullptr) {
  (void)l2ctrl;
  return Launcher<P...>(fn, name, block_dim, stream);
}

// The kernels a shared object exports (ASCENDSIM_EXPORT_KERNEL, appended by bisheng -shared).
__attribute__((visibility("hidden"))) inline std::vector<const ascendsimKernel*>& exported_kernels() {
  static std::vector<const ascendsimKernel*> kernels;
  return kernels;
}
struct KernelExport {
  template <typename... P>
  KernelExport(void (*fn)(P...), const char* name) : kernel(describe(fn, name)) {
    exported_kernels().push_back(&kernel);
  }
  ascendsimKernel kernel;
};

}  // namespace AscendC::ascendsim_detail

#define ASCENDSIM_EXPORT_KERNEL(name) \
  static const ::AscendC::ascendsim_detail::KernelExport ascendsim_export_##name(name, #name);
#define ASCENDSIM_DEFINE_KERNEL_TABLE                                                                        \
  extern "C" __attribute__((weak, visibility("default"))) const ascendsimKernel* const* ascendsimKernelTable( \
      size_t* count) {                                                                                       \
    *count = ::AscendC::ascendsim_detail::exported_kernels().size();                                         \
    return ::AscendC::ascendsim_detail::exported_kernels().data();                                           \
  }
