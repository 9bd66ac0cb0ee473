// Storage of the single-operator settings (see op_settings.h).
#include "op/op_settings.h"

#include <utility>

namespace ascendsim {

OpSettings& OpSettings::instance() {
  static auto* settings = new OpSettings();  // outlives late destructors at exit
  return *settings;
}

void OpSettings::set_option(aclCompileOpt opt, std::string value) {
  std::lock_guard<std::mutex> lock(mutex_);
  options_[opt] = std::move(value);
}

bool OpSettings::option(aclCompileOpt opt, std::string* value) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = options_.find(opt);
  if (it == options_.end()) return false;
  *value = it->second;
  return true;
}

}  // namespace ascendsim
