// Recycling of small fixed-size objects for the caching allocator's hot path, so that a cached
// allocate/release pair does no heap allocation:
//  - NodeRecycler: a std::pmr::memory_resource for the allocator's ordered containers. Container nodes
//    are all the same few sizes, so each freed node goes onto a per-size free list and the next insert
//    takes it back. Memory returns to the heap only when the resource is destroyed.
//  - ObjectPool<T>: T objects carved from chunks and recycled through a free list.
// Neither is thread-safe: both are used under the allocator's mutex.
#pragma once
#include <array>
#include <cstddef>
#include <memory>
#include <memory_resource>
#include <new>
#include <vector>

namespace ascendsim {

class NodeRecycler final : public std::pmr::memory_resource {
 public:
  NodeRecycler() = default;
  NodeRecycler(const NodeRecycler&) = delete;
  NodeRecycler& operator=(const NodeRecycler&) = delete;
  ~NodeRecycler() override {
    for (FreeNode* head : free_)
      while (head != nullptr) {
        FreeNode* next = head->next;
        ::operator delete(head);
        head = next;
      }
  }

 private:
  struct FreeNode {
    FreeNode* next;
  };
  static constexpr size_t kGranule = alignof(std::max_align_t);
  static constexpr size_t kBuckets = 16;  // recycles nodes up to 256 bytes

  static size_t bucket(size_t bytes) { return (bytes + kGranule - 1) / kGranule; }
  static bool recyclable(size_t bytes, size_t alignment) {
    return bytes != 0 && bucket(bytes) < kBuckets && alignment <= kGranule;
  }

  void* do_allocate(size_t bytes, size_t alignment) override {
    if (!recyclable(bytes, alignment)) return ::operator new(bytes, std::align_val_t(alignment));
    FreeNode*& head = free_[bucket(bytes)];
    if (head == nullptr) return ::operator new(bucket(bytes) * kGranule);
    FreeNode* node = head;
    head = node->next;
    return node;
  }

  void do_deallocate(void* p, size_t bytes, size_t alignment) override {
    if (!recyclable(bytes, alignment)) return ::operator delete(p, std::align_val_t(alignment));
    FreeNode* node = static_cast<FreeNode*>(p);
    node->next = free_[bucket(bytes)];
    free_[bucket(bytes)] = node;
  }

  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }

  std::array<FreeNode*, kBuckets> free_{};
};

template <typename T>
class ObjectPool {
 public:
  template <typename... Args>
  T* create(Args&&... args) {
    if (free_.empty()) grow();
    T* slot = free_.back();
    free_.pop_back();
    return new (slot) T{std::forward<Args>(args)...};
  }

  void destroy(T* object) {
    object->~T();
    free_.push_back(object);  // capacity reserved by grow(): never reallocates here
  }

 private:
  static constexpr size_t kChunk = 256;
  using Storage = std::aligned_storage_t<sizeof(T), alignof(T)>;

  void grow() {
    chunks_.push_back(std::make_unique<Storage[]>(kChunk));
    free_.reserve(chunks_.size() * kChunk);
    Storage* chunk = chunks_.back().get();
    for (size_t i = kChunk; i-- > 0;) free_.push_back(reinterpret_cast<T*>(&chunk[i]));
  }

  std::vector<std::unique_ptr<Storage[]>> chunks_;
  std::vector<T*> free_;
};

}  // namespace ascendsim
