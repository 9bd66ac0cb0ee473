#include "core/log_file.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

namespace ascendsim {
namespace {

constexpr size_t kMaxFileBytes = 20u << 20;  // CANN's size of one plog file

std::string log_root() {
  if (const char* path = std::getenv("ASCEND_PROCESS_LOG_PATH"); path != nullptr && *path != '\0') return path;
  if (const char* work = std::getenv("ASCEND_WORK_PATH"); work != nullptr && *work != '\0')
    return std::string(work) + "/log";
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') {
    const passwd* user = getpwuid(getuid());
    home = user != nullptr ? user->pw_dir : "/tmp";
  }
  return std::string(home) + "/ascend/log";
}

size_t file_limit() {
  const char* text = std::getenv("ASCEND_HOST_LOG_FILE_NUM");
  char* end = nullptr;
  const long n = text != nullptr ? std::strtol(text, &end, 10) : 0;
  return text != nullptr && *end == '\0' && n >= 1 && n <= 1000 ? static_cast<size_t>(n) : 10;
}

bool make_directories(const std::string& path) {
  for (size_t at = 1; at <= path.size(); ++at) {
    if (at < path.size() && path[at] != '/') continue;
    const std::string prefix = path.substr(0, at);
    if (mkdir(prefix.c_str(), 0750) != 0 && errno != EEXIST) return false;
  }
  struct stat info{};
  return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

std::string file_stamp() {
  const LocalTime now = local_now();
  char text[32];
  const size_t n = std::strftime(text, sizeof text, "%Y%m%d%H%M%S", &now.parts);
  std::snprintf(text + n, sizeof text - n, "%03ld", now.micros / 1000);
  return text;
}

class PlogFile {
 public:
  void write(const char* line, size_t length) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (pid_ != getpid()) restart();  // first line, or a child after fork(): a file of its own
    if (fd_ < 0 && !open_next()) return;
    if (::write(fd_, line, length) > 0) bytes_ += length;
    if (bytes_ >= kMaxFileBytes) {
      ::close(fd_);
      fd_ = -1;
    }
  }

 private:
  void restart() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    files_.clear();
    pid_ = getpid();
  }

  bool open_next() {
    if (failed_) return false;
    const std::string directory = log_root() + "/debug/plog";
    if (!make_directories(directory)) return give_up("cannot create the log directory " + directory);
    std::string path;
    for (int attempt = 0; attempt < 1000; ++attempt) {  // two files opened in one millisecond: the next one
      path = directory + "/plog-" + std::to_string(pid_) + "_" + file_stamp() + ".log";
      fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0640);
      if (fd_ >= 0 || errno != EEXIST) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (fd_ < 0) return give_up("cannot create the log file " + path);
    bytes_ = 0;
    files_.push_back(path);
    while (files_.size() > file_limit()) {
      ::unlink(files_.front().c_str());
      files_.pop_front();
    }
    return true;
  }

  bool give_up(const std::string& what) {
    std::fprintf(stderr, "[ascendsim] %s (%s): log lines are dropped; set ASCEND_PROCESS_LOG_PATH to a writable "
                 "directory, or ASCEND_LOG_PRINT_TO_STDOUT=1\n", what.c_str(), std::strerror(errno));
    failed_ = true;
    return false;
  }

  std::mutex mutex_;
  pid_t pid_ = 0;
  int fd_ = -1;
  size_t bytes_ = 0;
  bool failed_ = false;
  std::deque<std::string> files_;  // this process's files, oldest first
};

}  // namespace

LocalTime local_now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  LocalTime local{};
  local.micros = static_cast<long>(
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000);
  localtime_r(&seconds, &local.parts);
  return local;
}

void write_plog(const char* line, size_t length) {
  static auto* file = new PlogFile;  // never destroyed: threads may log while the process exits
  file->write(line, length);
}

}  // namespace ascendsim
