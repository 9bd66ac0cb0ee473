// Environment settings among named values (see env_choice.h).
#include "core/env_choice.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

namespace ascendsim {

int env_choice(const char* variable, std::initializer_list<const char*> names) {
  const char* text = std::getenv(variable);
  if (text == nullptr || text[0] == '\0') return 0;
  int index = 0;
  for (const char* name : names) {
    if (std::strcmp(text, name) == 0) return index;
    ++index;
  }
  static std::mutex mutex;
  static std::set<std::string> reported;
  std::lock_guard<std::mutex> lock(mutex);
  if (reported.insert(variable).second) {
    std::string choices;  // "auto, packed or openblas"
    index = 0;
    for (const char* name : names) {
      choices += (index == 0 ? "" : index + 1 == static_cast<int>(names.size()) ? " or " : ", ");
      choices += name;
      ++index;
    }
    std::fprintf(stderr, "[ascendsim] %s=%s is not %s; using auto\n", variable, text, choices.c_str());
  }
  return 0;
}

}  // namespace ascendsim
