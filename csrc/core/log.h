// Logging in CANN's style: messages at or above ASCEND_GLOBAL_LOG_LEVEL (0 debug .. 3 error, default 3)
// go to stdout when ASCEND_SLOG_PRINT_TO_STDOUT=1, as with the real toolkit; otherwise they are dropped.
#pragma once
#include <cstdarg>

namespace ascendsim {

enum LogLevel { kLogDebug = 0, kLogInfo = 1, kLogWarning = 2, kLogError = 3 };

bool log_enabled(int level);
void vlog(int level, const char* module, const char* fmt, va_list args);
void log(int level, const char* module, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

}  // namespace ascendsim
