// HandleRegistry: the set of live objects of one kind, so that a bad, foreign or destroyed handle passed
// by the user is answered with an error code instead of a crash. Handles given out are the raw object
// addresses; lookups return shared ownership so an object stays alive while a call uses it even if
// another thread destroys it meanwhile.
//
// Each registry is also a LiveObjectSource (core/live_objects.h): per object it keeps where it was created
// (the creating API, by default the calling function's name, and a creation number) and whether the user
// owns it, so the leak reports of aclFinalize / aclrtResetDevice list what the user did not destroy. An
// object's device is its device_id() when the kind has one, else -1 (a kind that belongs to no device).
#pragma once
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/live_objects.h"

namespace ascendsim {

// kRuntime: made by the runtime for itself (a device's default context, a context's default stream); such
// objects are not leaks of the user's.
enum class Owner { kUser, kRuntime };

namespace detail {
template <typename U>
auto device_of(const U& object, int) -> decltype(object.device_id()) {
  return object.device_id();
}
template <typename U>
int device_of(const U&, long) {
  return -1;
}
}  // namespace detail

template <typename T>
class HandleRegistry final : public LiveObjectSource {
 public:
  // `kind` names the objects in leak reports ("stream", "data buffer", ...); a string literal.
  explicit HandleRegistry(const char* kind) : kind_(kind) { register_live_source(this); }
  HandleRegistry(const HandleRegistry&) = delete;
  HandleRegistry& operator=(const HandleRegistry&) = delete;

  void* add(std::shared_ptr<T> object, const char* api = __builtin_FUNCTION(), Owner owner = Owner::kUser) {
    void* handle = object.get();
    Entry entry{std::move(object), CreationSite{api, next_creation_seq()}, owner};
    std::lock_guard<std::mutex> lock(mutex_);
    live_.emplace(handle, std::move(entry));
    return handle;
  }

  std::shared_ptr<T> find(const void* handle) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.find(handle);
    return it == live_.end() ? nullptr : it->second.object;
  }

  // Removes and returns the object (null if it was not live).
  std::shared_ptr<T> remove(const void* handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.find(handle);
    if (it == live_.end()) return nullptr;
    auto object = std::move(it->second.object);
    live_.erase(it);
    return object;
  }

  std::vector<std::shared_ptr<T>> snapshot() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::shared_ptr<T>> all;
    all.reserve(live_.size());
    for (auto& entry : live_) all.push_back(entry.second.object);
    return all;
  }

  void collect_live(std::vector<LiveObject>* out) const override {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [handle, entry] : live_)
      if (entry.owner == Owner::kUser)
        out->push_back(LiveObject{kind_, handle, 0, detail::device_of(*entry.object, 0), 0, entry.site});
  }

 private:
  struct Entry {
    std::shared_ptr<T> object;
    CreationSite site;
    Owner owner;
  };
  const char* const kind_;
  mutable std::mutex mutex_;
  std::unordered_map<const void*, Entry> live_;
};

}  // namespace ascendsim
