// Logging as CANN's log library writes it, so that a CANN user finds ascendsim's messages where they look:
//  - levels from ASCEND_GLOBAL_LOG_LEVEL: 0 debug, 1 info, 2 warning, 3 error (the default), 4 null (nothing);
//  - lines "[ERROR] ASCENDCL(pid,program):2024-05-01-10:20:30.123.456 [file.cpp:42]tid message";
//  - written to a plog file, $ASCEND_PROCESS_LOG_PATH/debug/plog/plog-<pid>_<yyyymmddhhmmssmmm>.log (the root
//    defaults to $ASCEND_WORK_PATH/log, then ~/ascend/log), created when the first line is written; or to
//    stdout instead when ASCEND_LOG_PRINT_TO_STDOUT=1 (or the older ASCEND_SLOG_PRINT_TO_STDOUT=1).
// Every failure recorded with fail() (core/error.h) is an error line. The file layer is core/log_file.h.
#pragma once
#include <cstdarg>

namespace ascendsim {

enum LogLevel { kLogDebug = 0, kLogInfo = 1, kLogWarning = 2, kLogError = 3, kLogNull = 4 };

// A message's level and where it was written. Converting from a level takes the caller's file and line
// (GCC's __builtin_FILE/LINE in a default argument are those of the call), so call sites just pass a level.
struct LogSite {
  int level;
  const char* file;
  int line;
  LogSite(int level_, const char* file_ = __builtin_FILE(), int line_ = __builtin_LINE())  // NOLINT: implicit
      : level(level_), file(file_), line(line_) {}
};

bool log_enabled(int level);
void vlog(const LogSite& site, const char* module, const char* fmt, va_list args);
void log(const LogSite& site, const char* module, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

}  // namespace ascendsim
