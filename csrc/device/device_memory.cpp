// DeviceMemory is the face of a device's memory: it owns the device's address range and the caching
// allocator that carves it, and forwards to them (see address_range.h and caching_allocator.cpp).
#include "device/device_memory.h"

#include "core/fault_injection.h"
#include "device/address_range.h"
#include "device/caching_allocator.h"
#include "prof/profiler.h"

namespace ascendsim {

struct DeviceMemory::Impl {
  Impl(int id, size_t capacity, std::function<void()> synchronize)
      : device_id(id), range(capacity), allocator(id, &range, std::move(synchronize)) {}
  int device_id;
  AddressRange range;  // declared first: outlives the allocator that maps from it
  CachingAllocator allocator;
};

DeviceMemory::DeviceMemory(int device_id, size_t capacity_bytes, std::function<void()> synchronize_device)
    : impl_(std::make_unique<Impl>(device_id, capacity_bytes, std::move(synchronize_device))) {}

DeviceMemory::~DeviceMemory() = default;

void* DeviceMemory::allocate(size_t size, uintptr_t stream, size_t usable_size, const char* api) {
  size_t cap = SIZE_MAX;
  if (fault::armed()) {  // memory_cap rules count the allocation, then may cap the device
    fault::count_call(fault::Site::kMemoryCap, impl_->device_id);
    cap = fault::memory_cap(impl_->device_id);
  }
  void* p = impl_->allocator.allocate(size, stream, usable_size, api, cap);
  if (prof::on(prof::kTaskTime)) sample();
  return p;
}

aclError DeviceMemory::release(void* ptr, const char* api) {
  const aclError ret = impl_->allocator.release(ptr, api);
  if (prof::on(prof::kTaskTime)) sample();
  return ret;
}

void DeviceMemory::sample() const {
  if (!prof::device_on(impl_->device_id)) return;
  const MemoryStats s = stats();
  prof::memory_sample(impl_->device_id, s.allocated_bytes, s.reserved_bytes);
}

int DeviceMemory::device_id() const { return impl_->device_id; }
bool DeviceMemory::in_range(const void* p) const { return impl_->range.contains(p); }
bool DeviceMemory::find(const void* p, Allocation* out) const { return impl_->allocator.find(p, out); }
std::string DeviceMemory::describe(const void* p) const { return impl_->allocator.describe(p); }

MemoryStats DeviceMemory::stats() const { return impl_->allocator.stats(); }
std::vector<MemorySegment> DeviceMemory::snapshot() const { return impl_->allocator.snapshot(); }
void DeviceMemory::reset_peak() { impl_->allocator.reset_peak(); }
size_t DeviceMemory::release_all(const char* api) { return impl_->allocator.release_all(api); }
void DeviceMemory::empty_cache() { impl_->allocator.empty_cache(); }
size_t DeviceMemory::capacity() const { return impl_->range.capacity(); }

}  // namespace ascendsim
