#include "core/log.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace ascendsim {
namespace {

struct LogSettings {
  int level = kLogError;
  bool to_stdout = false;
  LogSettings() {
    if (const char* text = std::getenv("ASCEND_GLOBAL_LOG_LEVEL")) level = std::atoi(text);
    if (const char* text = std::getenv("ASCEND_SLOG_PRINT_TO_STDOUT")) to_stdout = std::atoi(text) == 1;
  }
};

const LogSettings& settings() {
  static const LogSettings instance;
  return instance;
}

const char* level_name(int level) {
  static const char* names[] = {"DEBUG", "INFO", "WARNING", "ERROR"};
  return level >= 0 && level <= 3 ? names[level] : "EVENT";
}

}  // namespace

bool log_enabled(int level) { return settings().to_stdout && level >= settings().level; }

void vlog(int level, const char* module, const char* fmt, va_list args) {
  if (!log_enabled(level)) return;
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const long micros = static_cast<long>(
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000);
  std::tm parts{};
  localtime_r(&seconds, &parts);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d-%H:%M:%S", &parts);
  char message[2048];
  std::vsnprintf(message, sizeof message, fmt, args);
  std::printf("[%s] %s(%d):%s.%06ld %s\n", level_name(level), module, static_cast<int>(getpid()), stamp, micros,
              message);
  std::fflush(stdout);
}

void log(int level, const char* module, const char* fmt, ...) {
  if (!log_enabled(level)) return;
  va_list args;
  va_start(args, fmt);
  vlog(level, module, fmt, args);
  va_end(args);
}

}  // namespace ascendsim
