// The two tables behind GE's rule "an operator runs only if it was compiled or loaded":
//
// 1. Registered operators (GE's op model map): the signatures that single-op models (aclopSetModelDir,
//    aclopLoad) and online compilations (aclopCompile*) made executable: op type, every input's and
//    output's dtype, origin format and dims, and the attributes. A static signature is found by its key
//    (a hash-map lookup); a dynamic one (a -1 dim or unknown rank {-2}) matches a call whose dims lie in its
//    shape ranges, scanned per op type. aclopExecute* with no match fails with ACL_ERROR_OP_NOT_FOUND and
//    GE's message: it never compiles (GE's executor does not either).
// 2. Compiled kernels: per concrete signature (static dims, attributes, constant values) the CompiledOp,
//    built on the first call that needs it (a miss) and shared afterwards (a hit); bounded by
//    aclopSetMaxOpQueueNum (least recently used evicted). The counters are ascendsimGetOpCacheStats'.
// Both are process-wide and thread-safe.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "op/compiled_op.h"
#include "op/op_call.h"

namespace ascendsim::op {

// The key of a signature: with_values adds the bytes of inputs whose values are known (the kernel key).
std::string signature_key(const OpCall& call, bool with_values);

// Registers `sig` as executable (dims may be dynamic, with ranges). `origin` names it in logs.
void register_op(const OpCall& sig, const std::string& origin);
// GE's GetIfCastHasTruncateAttr: some registered Cast carries a `truncate` attribute (aclopCast then sets it).
bool cast_has_truncate();
// True when a registered signature matches `call` (static dims).
bool is_registered(const OpCall& call);

// The compiled operator of `call` (static dims): from the cache, or built (and cached).
aclError compiled_op(const CannOp& op, const OpCall& call, std::shared_ptr<CompiledOp>* out);

struct CacheStats {
  uint64_t hits = 0, misses = 0, entries = 0, registered = 0;
};
CacheStats cache_stats();

}  // namespace ascendsim::op
