// The kernel registry: (op type, domain) -> factory, filled by static registrations in each kernel file.
#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

#include "kernels/kernel.h"

namespace ascendsim::kernels {
namespace {

using Key = std::pair<std::string, std::string>;

std::map<Key, KernelFactory>& table() {
  static auto* registry = new std::map<Key, KernelFactory>();  // survives static destruction order
  return *registry;
}

std::mutex& table_mutex() {
  static auto* mutex = new std::mutex();
  return *mutex;
}

}  // namespace

bool register_kernel(std::string_view op_type, std::string_view domain, KernelFactory factory) {
  std::lock_guard<std::mutex> lock(table_mutex());
  table()[{std::string(op_type), std::string(domain)}] = factory;
  return true;
}

KernelFactory find_kernel(std::string_view op_type, std::string_view domain) {
  std::lock_guard<std::mutex> lock(table_mutex());
  auto it = table().find({std::string(op_type), std::string(domain)});
  return it == table().end() ? nullptr : it->second;
}

std::unique_ptr<Kernel> build_kernel(KernelFactory factory, const NodeSpec& spec, std::string* error) {
  try {
    return factory(spec, error);
  } catch (const std::exception& e) {  // bad_alloc, length_error
    *error = std::string("out of host memory while preparing the kernel (") + e.what() + ")";
    return nullptr;
  }
}

std::vector<std::string> registered_kernels() {
  std::lock_guard<std::mutex> lock(table_mutex());
  std::vector<std::string> names;
  for (const auto& [key, factory] : table()) names.push_back(key.second.empty() ? key.first : key.second + "::" + key.first);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace ascendsim::kernels
