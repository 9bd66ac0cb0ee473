// Per-thread error reporting: every failing API call records a message naming the argument and its value,
// which aclGetRecentErrMsg() hands back (and clears) on the same thread. Each message is also an error line
// of the log (core/log.h), under the module its code belongs to (ASCENDCL, RUNTIME for 107xxx/207xxx/507xxx,
// GE for 145xxx/545xxx), so that it is in the plog file a CANN user reads.
#pragma once
#include "acl/acl_base.h"
#include "core/log.h"

namespace ascendsim {

// An error code and the place reporting it: converting from a code takes the caller's file and line, as
// LogSite does, for the log line.
struct ErrorSite {
  aclError code;
  LogSite site;  // an error-level log line from the caller's file and line
  ErrorSite(aclError code_, const char* file = __builtin_FILE(), int line = __builtin_LINE())  // NOLINT: implicit
      : code(code_), site(kLogError, file, line) {}
};

// Records `code` and a printf-style message as this thread's most recent error ("EE<code>: message"); returns
// `code` so that call sites read `return fail(ACL_ERROR_INVALID_PARAM, "size is 0");`.
aclError fail(const ErrorSite& error, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// As fail(), with the message headed by CANN's error id ("E13025: ...") instead of the code: the id the CANN
// documentation lists the error under.
aclError fail_as(const ErrorSite& error, const char* error_id, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

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
