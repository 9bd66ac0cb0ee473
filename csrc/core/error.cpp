#include "core/error.h"

#include <cstdarg>
#include <cstdio>
#include <string>

namespace ascendsim {
namespace {
thread_local std::string pending;   // accumulated since the last read
thread_local std::string returned;  // owns the text of the last aclGetRecentErrMsg() result
thread_local LogSite pending_site(kLogError, "", 0);  // where the pending error was reported, for its context lines

std::string vformat(const char* fmt, va_list args) {
  va_list copy;
  va_copy(copy, args);
  const int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string text(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(text.data(), text.size() + 1, fmt, args);
  return text;
}

// The CANN component a code comes from: 1x7xxx are the runtime's, 1x45xxx GE's, the rest the ACL layer's.
const char* module_of(aclError code) {
  if (code == ACL_ERROR_GE_FAILURE) return "GE";
  if (code == ACL_ERROR_RT_FAILURE) return "RUNTIME";
  switch (code % 100000 / 1000) {
    case 7: return "RUNTIME";
    case 45: return "GE";
    default: return "ASCENDCL";
  }
}

aclError record(const ErrorSite& error, const std::string& head, const char* fmt, va_list args) {
  pending = head + ": " + vformat(fmt, args);
  pending_site = error.site;
  log(pending_site, module_of(error.code), "%s", pending.c_str());
  return error.code;
}
}  // namespace

aclError fail(const ErrorSite& error, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  record(error, "EE" + std::to_string(error.code), fmt, args);
  va_end(args);
  return error.code;
}

aclError fail_as(const ErrorSite& error, const char* error_id, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  record(error, error_id, fmt, args);
  va_end(args);
  return error.code;
}

void add_error_context(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  const std::string line = vformat(fmt, args);
  va_end(args);
  pending += "\n        " + line;
  log(pending_site, "ASCENDCL", "%s", line.c_str());
}

const char* take_recent_error() {
  returned.swap(pending);
  pending.clear();
  return returned.c_str();
}

}  // namespace ascendsim
