// Fault injection: rules that make chosen runtime calls fail with chosen codes, so that a program's error
// paths (cleanup, reporting) can be tested on the emulator (docs/fault-injection.md). The rules come from
// ASCENDSIM_FAULTS (read by aclInit) and from ascendsimInjectFaults / ascendsim.inject_fault.
//
// A site is a place in the runtime that asks the registry before doing its work; a rule "site:nth=N,
// count=C,code=E" counts the calls of its site and makes calls N .. N+C-1 fail with E (count 0: every call
// from the Nth on). memory_cap rules do not fail a call: from the Nth device allocation on they cap the
// device memory the caching allocator may reserve, so later allocations fail as out-of-memory ones do.
//
// Cost when no rule is armed: every site asks armed(), one relaxed atomic load and a branch.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "acl/acl_base.h"

namespace ascendsim::fault {

enum class Site : uint8_t {
  kMalloc,        // "aclrtMalloc": aclrtMalloc, aclrtMallocAlign32, aclrtMallocCached (default 207001)
  kStreamTask,    // "stream_task": a task queued on a stream fails with an AI Core exception (507015)
  kStreamSync,    // "stream_sync": aclrtSynchronizeStream(WithTimeout) times out (507046)
  kEventSync,     // "event_sync": aclrtSynchronizeEvent(WithTimeout) times out (507047)
  kModelExecute,  // "model_execute": aclmdlExecute / ExecuteV2 / ExecuteAsync / ExecuteAsyncV2 (507011)
  kMemoryCap,     // "memory_cap": every device allocation counts; caps the device memory (no code)
};

extern std::atomic<bool> g_armed;  // some rule is installed
inline bool armed() { return g_armed.load(std::memory_order_relaxed); }

// A call an injected rule makes fail: the code and the rule as written back ("aclrtMalloc:nth=3,count=1,
// code=207001"), a string that lives as long as the process. code ACL_SUCCESS: the call proceeds.
struct Hit {
  aclError code = ACL_SUCCESS;
  const char* rule = nullptr;
  explicit operator bool() const { return code != ACL_SUCCESS; }
};

// The slow path of check(): counts one call of `site` (on `device`, -1: any) against every rule of the
// site and returns the first rule that makes it fail.
Hit count_call(Site site, int device);
// What every site calls: counts the call if any rule is armed.
inline Hit check(Site site, int device = -1) { return armed() ? count_call(site, device) : Hit{}; }

// Records the injected failure as the calling thread's recent error: "<api>: <what> (injected fault: rule
// '<rule>')", and returns its code.
aclError report(const Hit& hit, const char* api, const char* what);

// The device-memory cap of `device` now in force (SIZE_MAX: none), and the rule that set it (if `rule`).
size_t memory_cap(int device, const char** rule = nullptr);

// Parses `spec` (rules separated by ';', grammar in docs/fault-injection.md) and installs its rules after
// those already installed. A malformed spec installs nothing and returns ACL_ERROR_INVALID_PARAM with a
// message naming `source` and the offending rule.
aclError add_rules(const char* spec, const char* source);
// Removes every rule (and so every memory cap).
void clear();

}  // namespace ascendsim::fault
