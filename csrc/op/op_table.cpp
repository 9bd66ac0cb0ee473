// The CANN operator table: cann_ops.def expanded once into a map, the rename column parsed
// ("cann:kernel=default,..."; a default with a '.' is a float, else an int).
#include "op/op_table.h"

#include <cstdlib>
#include <map>
#include <sstream>

namespace ascendsim::op {
namespace {

std::vector<AttrRename> parse_renames(const std::string& text) {
  std::vector<AttrRename> out;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    if (item.empty()) continue;
    AttrRename r;
    const size_t colon = item.find(':'), eq = item.find('=');
    r.cann = item.substr(0, colon);
    r.kernel = item.substr(colon + 1, eq == std::string::npos ? std::string::npos : eq - colon - 1);
    if (eq != std::string::npos) {
      const std::string value = item.substr(eq + 1);
      r.has_default = true;
      r.default_value = std::strtod(value.c_str(), nullptr);
      r.default_is_int = value.find('.') == std::string::npos;
    }
    out.push_back(r);
  }
  return out;
}

const std::map<std::string, CannOp, std::less<>>& table() {
  static const auto* ops = [] {
    auto* m = new std::map<std::string, CannOp, std::less<>>();
#define CANN_OP(name, kernel, family, min_in, max_in, outs, renames) \
  (*m)[#name] = CannOp{#name, #kernel, Family::family, min_in, max_in, outs, parse_renames(renames)};
#include "op/cann_ops.def"
#undef CANN_OP
    return m;
  }();
  return *ops;
}

}  // namespace

const CannOp* find_cann_op(std::string_view type) {
  auto it = table().find(type);
  return it == table().end() ? nullptr : &it->second;
}

std::vector<std::string> cann_op_names() {
  std::vector<std::string> names;
  for (const auto& [name, op] : table()) names.push_back(name);
  return names;
}

}  // namespace ascendsim::op
