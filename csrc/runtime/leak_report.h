// Leak reports: what the user's program still holds when it ends its use of a device (the last
// aclrtResetDevice) or of the runtime (aclFinalize). Objects come from the live-object sources (every
// handle registry and the model registry, core/live_objects.h) and from each device's allocator (live
// allocations). Each leak is logged at warning level, one line with where it was created, then a summary;
// the latest report is kept for ascendsimGetLeakReport (Python: ascendsim.leak_report()).
#pragma once
#include <string>
#include <vector>

#include "core/live_objects.h"

namespace ascendsim {

struct LeakReport {
  const char* trigger = nullptr;  // "aclFinalize", "aclrtResetDevice"; null: what is live now
  int device = -1;                // the device reset, or -1 for every device and device-less objects
  std::vector<LiveObject> objects;
};

// The user's live objects. `device` >= 0: only the objects that belong to that device (contexts, streams,
// allocations, loaded models), as the last reset of the device releases them; -1: everything.
LeakReport collect_leaks(int device, const char* trigger);

// Collects, logs and stores the report. Called before the trigger releases anything.
void report_leaks(int device, const char* trigger);

// The report stored by the latest report_leaks (empty, trigger null, before the first one).
LeakReport last_leak_report();

// {"trigger": ..., "device": ..., "objects": [{"kind", "handle", "id", "device", "size", "api", "seq"}]}
std::string leak_report_json(const LeakReport& report);

}  // namespace ascendsim
