// HandleRegistry: the set of live objects of one kind, so that a bad, foreign or destroyed handle passed
// by the user is answered with an error code instead of a crash. Handles given out are the raw object
// addresses; lookups return shared ownership so an object stays alive while a call uses it even if
// another thread destroys it meanwhile.
#pragma once
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace ascendsim {

template <typename T>
class HandleRegistry {
 public:
  void* add(std::shared_ptr<T> object) {
    void* handle = object.get();
    std::lock_guard<std::mutex> lock(mutex_);
    live_.emplace(handle, std::move(object));
    return handle;
  }

  std::shared_ptr<T> find(const void* handle) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.find(handle);
    return it == live_.end() ? nullptr : it->second;
  }

  // Removes and returns the object (null if it was not live).
  std::shared_ptr<T> remove(const void* handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.find(handle);
    if (it == live_.end()) return nullptr;
    auto object = std::move(it->second);
    live_.erase(it);
    return object;
  }

  std::vector<std::shared_ptr<T>> snapshot() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::shared_ptr<T>> all;
    all.reserve(live_.size());
    for (auto& entry : live_) all.push_back(entry.second);
    return all;
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_map<const void*, std::shared_ptr<T>> live_;
};

}  // namespace ascendsim
