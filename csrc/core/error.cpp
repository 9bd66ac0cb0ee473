#include "core/error.h"

#include <cstdarg>
#include <cstdio>
#include <string>

namespace ascendsim {
namespace {
thread_local std::string pending;   // accumulated since the last read
thread_local std::string returned;  // owns the text of the last aclGetRecentErrMsg() result

std::string vformat(const char* fmt, va_list args) {
  va_list copy;
  va_copy(copy, args);
  const int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string text(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(text.data(), text.size() + 1, fmt, args);
  return text;
}
}  // namespace

aclError fail(aclError code, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  pending = "EE" + std::to_string(code) + ": " + vformat(fmt, args);
  va_end(args);
  return code;
}

void add_error_context(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  pending += "\n        " + vformat(fmt, args);
  va_end(args);
}

const char* take_recent_error() {
  returned.swap(pending);
  pending.clear();
  return returned.c_str();
}

}  // namespace ascendsim
