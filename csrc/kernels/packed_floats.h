// Storage for the weights a kernel packs at load (gemm.h, blocked_conv.cpp, stem_conv.h), on cache-line
// boundaries: a register tile's vector loads of them then never straddle two lines (std::vector<float> gives 16
// bytes, and every 64-byte load of the AVX-512 tiles was split in two: MobileNetV2's 32 -> 16 1x1 conv on 112x112
// 91 -> 82 us, its depthwise 3x3 before it 77 -> 71, Zen 5); from 64 KiB on in huge pages (page_memory.h).
#pragma once
#include <cstddef>
#include <new>
#include <vector>

#include "kernels/page_memory.h"

namespace ascendsim::kernels {

template <class T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlign{64};
  static constexpr size_t kPooledBytes = size_t{64} << 10;  // and larger: in huge pages (page_memory.h)
  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}  // NOLINT(google-explicit-constructor): rebinding
  T* allocate(size_t n) {
    if (n * sizeof(T) >= kPooledBytes) return static_cast<T*>(map_weights(n * sizeof(T)));
    return static_cast<T*>(::operator new(n * sizeof(T), kAlign));
  }
  void deallocate(T* p, size_t n) {
    if (n * sizeof(T) >= kPooledBytes) return unmap_weights(p, n * sizeof(T));
    ::operator delete(p, kAlign);
  }
  template <class U>
  bool operator==(const CacheLineAllocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const CacheLineAllocator<U>&) const { return false; }
};
using PackedFloats = std::vector<float, CacheLineAllocator<float>>;

}  // namespace ascendsim::kernels
