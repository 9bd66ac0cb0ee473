// The range is one PROT_NONE, MAP_NORESERVE anonymous mapping aligned to 2 MiB. Free runs are kept in an
// address-ordered map; map() takes the first run that fits (segments are few and created rarely, so a
// linear first-fit scan is fine) and unmap() merges the run back with its free neighbours.
#include "device/address_range.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <iterator>

namespace ascendsim {
namespace {
size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }
}  // namespace

AddressRange::AddressRange(size_t capacity) {
  if (capacity == 0 || capacity > (size_t{1} << 46)) {
    error_ = "device memory capacity " + std::to_string(capacity) + " bytes is not supported (1 byte .. 64 TiB)";
    return;
  }
  const size_t size = round_up(capacity, kGranularity);
  // Over-reserve by one granule so that the start can be aligned: aligned segments can be huge pages.
  reservation_size_ = size + kGranularity;
  void* p = mmap(nullptr, reservation_size_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    error_ = "cannot reserve " + std::to_string(size) + " bytes of address space: " + std::strerror(errno);
    reservation_ = nullptr;
    reservation_size_ = 0;
    return;
  }
  reservation_ = p;
  begin_ = round_up(reinterpret_cast<uintptr_t>(p), kGranularity);
  size_ = size;
  free_.emplace(begin_, size_);
}

AddressRange::~AddressRange() {
  if (reservation_ != nullptr) munmap(reservation_, reservation_size_);
}

void* AddressRange::map(size_t bytes) {
  if (bytes == 0 || bytes % kGranularity != 0) return nullptr;
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < bytes) continue;
    const uintptr_t start = it->first;
    const size_t length = it->second;
    void* segment = reinterpret_cast<void*>(start);
    // Fails only when the kernel runs out of mappings; the run is left as it was.
    if (mprotect(segment, bytes, PROT_READ | PROT_WRITE) != 0) return nullptr;
    free_.erase(it);
    if (length > bytes) free_.emplace(start + bytes, length - bytes);
#ifdef MADV_HUGEPAGE
    madvise(segment, bytes, MADV_HUGEPAGE);  // fewer page faults on first touch; advisory only
#endif
    mapped_ += bytes;
    return segment;
  }
  return nullptr;
}

void AddressRange::unmap(void* segment, size_t bytes) {
  if (bytes == 0) return;
  madvise(segment, bytes, MADV_DONTNEED);  // give the pages back; later reuse reads zeros
  mprotect(segment, bytes, PROT_NONE);     // stale pointers into a released segment fault, as on a card
  mapped_ -= bytes;
  uintptr_t start = reinterpret_cast<uintptr_t>(segment);
  size_t length = bytes;
  auto next = free_.lower_bound(start);
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      start = prev->first;
      length += prev->second;
      free_.erase(prev);
    }
  }
  if (next != free_.end() && start + length == next->first) {
    length += next->second;
    free_.erase(next);
  }
  free_.emplace(start, length);
}

size_t AddressRange::largest_unmapped() const {
  size_t largest = 0;
  for (const auto& run : free_) largest = run.second > largest ? run.second : largest;
  return largest;
}

}  // namespace ascendsim
