// A setting chosen by an environment variable among named values, the first of them "auto" (ASCENDSIM_PRODUCTS,
// ASCENDSIM_MODEL_STREAMS): the index of the value the variable names; 0 (auto) when it is unset, empty or names
// none of them, which is reported once per variable on stderr.
#pragma once
#include <initializer_list>

namespace ascendsim {

int env_choice(const char* variable, std::initializer_list<const char*> names);

}  // namespace ascendsim
