// Live-object accounting, for the leak reports of aclFinalize / aclrtResetDevice (runtime/leak_report.cpp).
//
// Every registry of handles given to the user (HandleRegistry, the model registry) is a LiveObjectSource: it
// registers itself once, when it is built, and remembers per live object where it was created: the API name
// (a string literal, so storing the pointer is free) and a process-wide creation number (one relaxed atomic
// increment). A report asks every source for its live objects; nothing is walked on the hot paths. Device
// allocations are counted by the caching allocator itself (it already knows every block) and read through
// DeviceMemory::snapshot().
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ascendsim {

// Where an object was created: the API and its creation number (1, 2, ... across every kind, in order).
struct CreationSite {
  const char* api = nullptr;
  uint64_t seq = 0;
};

// The next creation number (never 0).
uint64_t next_creation_seq();

struct LiveObject {
  const char* kind;     // "stream", "event", "allocation", ...
  const void* handle;   // the handle (address) the user holds; for a model, null (see id)
  uint64_t id;          // model id, else 0
  int device;           // the device it belongs to, or -1 when it belongs to none
  uint64_t size;        // bytes, for allocations; else 0
  CreationSite site;
};

class LiveObjectSource {
 public:
  // Appends the live objects the user created (objects the runtime made for itself, such as default
  // contexts and streams, are not the user's to free and are left out).
  virtual void collect_live(std::vector<LiveObject>* out) const = 0;

 protected:
  ~LiveObjectSource() = default;
};

// Sources live as long as the process (the registries are never destroyed).
void register_live_source(const LiveObjectSource* source);
// Every registered source's live objects, in creation order.
std::vector<LiveObject> collect_live_objects();

}  // namespace ascendsim
