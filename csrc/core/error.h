// Per-thread error reporting: every failing API call records a message naming the argument and its value,
// which aclGetRecentErrMsg() hands back (and clears) on the same thread.
#pragma once
#include "acl/acl_base.h"

namespace ascendsim {

// Records `code` and a printf-style message as this thread's most recent error; returns `code` so that
// call sites read `return fail(ACL_ERROR_INVALID_PARAM, "size is 0");`.
aclError fail(aclError code, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// Appends a further line to this thread's most recent error (context added by outer layers).
void add_error_context(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// The message for aclGetRecentErrMsg(): never null, empty when nothing failed since the last read.
// Reading clears it; the pointer stays valid until the next read on this thread.
const char* take_recent_error();

}  // namespace ascendsim

// Argument checks shared by every API file.
#define ASCENDSIM_CHECK_NOT_NULL(arg)                                                       \
  do {                                                                                      \
    if ((arg) == nullptr)                                                                   \
      return ::ascendsim::fail(ACL_ERROR_INVALID_PARAM, "%s: argument '%s' is NULL", __func__, #arg); \
  } while (0)
