// The process-wide settings of single-operator compilation and execution: the compile options of
// aclSetCompileopt (kept per aclCompileOpt, as GE keeps them per option key), the aclopSetCompileFlag flag
// and the aclopSetMaxOpQueueNum limit of cached operators. As in CANN, where they live in the compiler's
// and the resource manager's singletons, they are not reset by aclFinalize. Thread-safe.
#pragma once
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "acl/acl_op_compiler.h"

namespace ascendsim {

class OpSettings {
 public:
  static OpSettings& instance();

  void set_option(aclCompileOpt opt, std::string value);
  bool option(aclCompileOpt opt, std::string* value) const;  // false when never set

  void set_compile_flag(aclOpCompileFlag flag) { compile_flag_ = flag; }
  aclOpCompileFlag compile_flag() const { return compile_flag_; }

  // How many compiled operators the operator cache keeps before it evicts the least recently used.
  void set_max_op_queue_num(uint64_t count) { max_op_queue_num_ = count; }
  uint64_t max_op_queue_num() const { return max_op_queue_num_; }

 private:
  mutable std::mutex mutex_;
  std::map<aclCompileOpt, std::string> options_;
  std::atomic<aclOpCompileFlag> compile_flag_{ACL_OP_COMPILE_DEFAULT};
  std::atomic<uint64_t> max_op_queue_num_{20000};  // CANN's DEFAULT_MAX_OPQUEUE_NUM
};

}  // namespace ascendsim
