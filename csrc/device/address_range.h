// AddressRange: the private virtual address range of one emulated device. It is reserved once, without
// access and without commit, and carved into segments on demand; a segment's pages are committed by the
// kernel only when first touched, so a 32 GiB device costs nothing until used. Every device pointer lies
// inside its device's range, which is how a pointer's location (host or which device) is told.
// Not thread-safe except for contains(): the caching allocator calls map/unmap under its mutex.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace ascendsim {

class AddressRange {
 public:
  static constexpr size_t kGranularity = size_t{2} << 20;  // segments are multiples of 2 MiB (a huge page)

  // Reserves `capacity` bytes (rounded up to the granularity). If the reservation fails the range is
  // empty (every map() fails) and error() says why.
  explicit AddressRange(size_t capacity);
  ~AddressRange();
  AddressRange(const AddressRange&) = delete;
  AddressRange& operator=(const AddressRange&) = delete;

  // A usable (read/write) segment of `bytes` (a multiple of the granularity), first fit; null if no free
  // run of the range is large enough.
  void* map(size_t bytes);
  // Returns a segment: its pages go back to the kernel and it becomes inaccessible again.
  void unmap(void* segment, size_t bytes);

  bool contains(const void* p) const {
    const auto a = reinterpret_cast<uintptr_t>(p);
    return a - begin_ < size_;  // one compare: wraps for a < begin_
  }
  size_t capacity() const { return size_; }
  size_t mapped_bytes() const { return mapped_; }
  size_t largest_unmapped() const;  // the largest segment map() could still return
  const std::string& error() const { return error_; }

 private:
  uintptr_t begin_ = 0;
  size_t size_ = 0;
  size_t mapped_ = 0;
  void* reservation_ = nullptr;
  size_t reservation_size_ = 0;
  std::map<uintptr_t, size_t> free_;  // start -> length of the unmapped runs, coalesced
  std::string error_;
};

}  // namespace ascendsim
