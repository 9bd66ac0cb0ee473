#include "core/log.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "core/log_file.h"

extern char* __progname;  // glibc: the program's name, which CANN's lines carry

namespace ascendsim {
namespace {

// CANN reads a level of 0..4 and ignores anything else (the default stays).
int level_from_environment() {
  const char* text = std::getenv("ASCEND_GLOBAL_LOG_LEVEL");
  if (text == nullptr || *text == '\0') return kLogError;
  char* end = nullptr;
  const long level = std::strtol(text, &end, 10);
  return *end == '\0' && level >= kLogDebug && level <= kLogNull ? static_cast<int>(level) : kLogError;
}

// The newer name first (CANN 9.2 deprecates ASCEND_SLOG_PRINT_TO_STDOUT); only "1" turns it on.
bool stdout_from_environment() {
  const char* text = std::getenv("ASCEND_LOG_PRINT_TO_STDOUT");
  if (text == nullptr) text = std::getenv("ASCEND_SLOG_PRINT_TO_STDOUT");
  return text != nullptr && std::strcmp(text, "1") == 0;
}

struct LogSettings {
  int level = level_from_environment();
  bool to_stdout = stdout_from_environment();
};

const LogSettings& settings() {
  static const LogSettings instance;
  return instance;
}

const char* level_name(int level) {
  static const char* names[] = {"DEBUG", "INFO", "WARNING", "ERROR"};
  return level >= kLogDebug && level <= kLogError ? names[level] : "EVENT";
}

const char* base_name(const char* path) {
  const char* slash = path != nullptr ? std::strrchr(path, '/') : nullptr;
  return slash != nullptr ? slash + 1 : (path != nullptr ? path : "?");
}

}  // namespace

bool log_enabled(int level) { return level >= settings().level && level < kLogNull; }

void vlog(const LogSite& site, const char* module, const char* fmt, va_list args) {
  if (!log_enabled(site.level)) return;
  const LocalTime now = local_now();
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d-%H:%M:%S", &now.parts);
  char message[2048];
  std::vsnprintf(message, sizeof message, fmt, args);
  char line[2400];
  const int n = std::snprintf(line, sizeof line, "[%s] %s(%d,%s):%s.%03ld.%03ld [%s:%d]%ld %s\n",
                              level_name(site.level), module, static_cast<int>(getpid()),
                              __progname != nullptr ? __progname : "None", stamp, now.micros / 1000, now.micros % 1000,
                              base_name(site.file), site.line, static_cast<long>(syscall(SYS_gettid)), message);
  const size_t length = n < 0 ? 0 : (static_cast<size_t>(n) < sizeof line ? static_cast<size_t>(n) : sizeof line - 1);
  if (length == sizeof line - 1) line[length - 1] = '\n';  // a truncated line still ends its line
  if (settings().to_stdout) {
    std::fwrite(line, 1, length, stdout);
    std::fflush(stdout);
  } else {
    write_plog(line, length);
  }
}

void log(const LogSite& site, const char* module, const char* fmt, ...) {
  if (!log_enabled(site.level)) return;
  va_list args;
  va_start(args, fmt);
  vlog(site, module, fmt, args);
  va_end(args);
}

}  // namespace ascendsim
