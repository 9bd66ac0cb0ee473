// The plog file of core/log.h, as CANN's log library keeps it: one file per process under
// <root>/debug/plog/, named plog-<pid>_<yyyymmddhhmmssmmm>.log, created (with its directories) when the first
// line is written, so a run that logs nothing leaves no file. <root> is $ASCEND_PROCESS_LOG_PATH, else
// $ASCEND_WORK_PATH/log, else $HOME/ascend/log. A file that reaches 20 MiB is followed by a new one, and a
// process keeps at most $ASCEND_HOST_LOG_FILE_NUM files (1..1000, default 10), removing its oldest. A child
// after fork() starts its own file. If the directory cannot be made or the file opened, stderr says so once
// and lines are dropped.
#pragma once
#include <cstddef>
#include <ctime>

namespace ascendsim {

void write_plog(const char* line, size_t length);

// Now, in local time to the microsecond: the lines' stamps and the files' names.
struct LocalTime {
  std::tm parts;
  long micros;
};
LocalTime local_now();

}  // namespace ascendsim
