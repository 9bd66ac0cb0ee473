// The fault-injection registry: a mutex-guarded list of rules, consulted only while armed.
//
// Parsing: a spec is rules separated by ';' (empty ones skipped); a rule is a site name, optionally followed
// by ':' and comma-separated key=value parameters (nth, count, code; bytes and device for memory_cap). The
// whole spec is parsed before anything is installed, so a malformed one changes nothing. Each rule is written
// back in a canonical form ("aclrtMalloc:nth=3,count=1,code=207001") that messages quote; those strings are
// interned in a set that is never freed, so a Hit's rule stays valid in a stream task that runs later, even
// after clear().
//
// Counting: each rule counts the calls of its site itself (two rules on one site see the same call numbers);
// the first rule in installation order whose window [nth, nth + count) holds the call makes it fail. A
// memory_cap rule counts device allocations (of its device, or of any) and becomes active at its nth; the cap
// of a device is the smallest active one.
#include "core/fault_injection.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/byte_size.h"
#include "core/error.h"

namespace ascendsim::fault {

std::atomic<bool> g_armed{false};

namespace {

struct SiteInfo {
  Site site;
  const char* name;
  aclError default_code;  // ACL_SUCCESS: the site takes no code (memory_cap)
};

constexpr SiteInfo kSites[] = {
    {Site::kMalloc, "aclrtMalloc", ACL_ERROR_RT_MEMORY_ALLOCATION},
    {Site::kStreamTask, "stream_task", ACL_ERROR_RT_AICORE_EXCEPTION},
    {Site::kStreamSync, "stream_sync", ACL_ERROR_RT_STREAM_SYNC_TIMEOUT},
    {Site::kEventSync, "event_sync", ACL_ERROR_RT_EVENT_SYNC_TIMEOUT},
    {Site::kModelExecute, "model_execute", ACL_ERROR_RT_MODEL_EXECUTE},
    {Site::kMemoryCap, "memory_cap", ACL_SUCCESS},
};
constexpr const char* kSiteList = "aclrtMalloc, stream_task, stream_sync, event_sync, model_execute, memory_cap";

struct Rule {
  Site site = Site::kMalloc;
  uint64_t nth = 1;
  uint64_t count = 1;  // 0: every call from the nth on
  aclError code = ACL_SUCCESS;
  size_t bytes = 0;  // memory_cap
  int device = -1;   // memory_cap: -1 every device
  const char* text = nullptr;
  uint64_t calls = 0;
  bool active = false;  // memory_cap: the nth allocation has come
};

std::mutex& registry_mutex() {
  static auto* mutex = new std::mutex();  // never destroyed: stream workers may ask during exit
  return *mutex;
}
std::vector<Rule>& rules() {
  static auto* list = new std::vector<Rule>();
  return *list;
}
const char* intern(const std::string& text) {  // under registry_mutex
  static auto* texts = new std::set<std::string>();
  return texts->insert(text).first->c_str();
}

std::string trim(const std::string& s) {
  const size_t begin = s.find_first_not_of(" \t\n");
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(" \t\n") - begin + 1);
}

std::vector<std::string> split(const std::string& s, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == separator) {
      parts.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  return parts;
}

// A decimal integer in [min, max]; false if not one.
bool parse_integer(const std::string& text, uint64_t min, uint64_t max, uint64_t* out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return false;
  errno = 0;
  const unsigned long long value = std::strtoull(text.c_str(), nullptr, 10);
  if (errno != 0 || value < min || value > max) return false;
  *out = value;
  return true;
}

std::string canonical(const Rule& rule, const char* site_name) {
  std::string text = std::string(site_name) + ":nth=" + std::to_string(rule.nth);
  if (rule.site == Site::kMemoryCap) {
    text += ",bytes=" + std::to_string(rule.bytes);
    if (rule.device >= 0) text += ",device=" + std::to_string(rule.device);
  } else {
    text += ",count=" + (rule.count == 0 ? std::string("all") : std::to_string(rule.count));
    text += ",code=" + std::to_string(rule.code);
  }
  return text;
}

// One rule ("site[:key=value,...]"); on error returns false with `error` set.
bool parse_rule(const std::string& text, Rule* rule, std::string* error) {
  const size_t colon = text.find(':');
  const std::string name = trim(text.substr(0, colon));
  const SiteInfo* info = nullptr;
  for (const SiteInfo& s : kSites)
    if (name == s.name) info = &s;
  if (info == nullptr) {
    *error = "unknown site '" + name + "' (sites: " + kSiteList + ")";
    return false;
  }
  rule->site = info->site;
  rule->code = info->default_code;
  const bool cap = info->site == Site::kMemoryCap;
  bool has_bytes = false;
  if (colon != std::string::npos) {
    for (const std::string& param : split(text.substr(colon + 1), ',')) {
      const size_t eq = param.find('=');
      const std::string key = trim(param.substr(0, eq));
      const std::string value = eq == std::string::npos ? "" : trim(param.substr(eq + 1));
      if (eq == std::string::npos || value.empty()) {
        *error = "parameter '" + param + "' is not key=value";
        return false;
      }
      uint64_t number = 0;
      bool ok = true;
      if (key == "nth") {
        ok = parse_integer(value, 1, UINT64_MAX / 2, &rule->nth);
      } else if (key == "count" && !cap) {
        ok = value == "all" ? (rule->count = 0, true) : parse_integer(value, 0, UINT64_MAX / 2, &rule->count);
      } else if (key == "code" && !cap) {
        ok = parse_integer(value, 1, INT32_MAX, &number);
        rule->code = static_cast<aclError>(number);
      } else if (key == "bytes" && cap) {
        rule->bytes = parse_byte_size(value.c_str());
        ok = has_bytes = rule->bytes != 0;
      } else if (key == "device" && cap) {
        ok = parse_integer(value, 0, 1023, &number);
        rule->device = static_cast<int>(number);
      } else {
        *error = "site " + name + " takes no parameter '" + key + "' (" +
                 (cap ? "memory_cap takes nth, bytes, device" : "it takes nth, count, code") + ")";
        return false;
      }
      if (!ok) {
        *error = "invalid value '" + value + "' for " + key +
                 (key == "bytes"   ? " (a positive byte count such as 64M)"
                  : key == "count" ? " (0 or all: every call from the nth on, else a count)"
                  : key == "code"  ? " (a positive error code such as 207001)"
                                   : " (a positive integer)");
        return false;
      }
    }
  }
  if (cap && !has_bytes) {
    *error = "memory_cap needs bytes=<size> (e.g. memory_cap:bytes=64M)";
    return false;
  }
  return true;
}

}  // namespace

Hit count_call(Site site, int device) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  Hit hit;
  for (Rule& rule : rules()) {
    if (rule.site != site || (rule.device >= 0 && rule.device != device)) continue;
    const uint64_t call = ++rule.calls;
    if (call < rule.nth) continue;
    if (site == Site::kMemoryCap) {
      rule.active = true;
    } else if (!hit && (rule.count == 0 || call - rule.nth < rule.count)) {
      hit = Hit{rule.code, rule.text};
    }
  }
  return hit;
}

aclError report(const Hit& hit, const char* api, const char* what) {
  return fail(hit.code, "%s: %s (injected fault: rule '%s')", api, what, hit.rule);
}

size_t memory_cap(int device, const char** rule_text) {
  if (!armed()) return SIZE_MAX;
  std::lock_guard<std::mutex> lock(registry_mutex());
  size_t cap = SIZE_MAX;
  for (const Rule& rule : rules()) {
    if (rule.site != Site::kMemoryCap || !rule.active || (rule.device >= 0 && rule.device != device)) continue;
    if (rule.bytes < cap) {
      cap = rule.bytes;
      if (rule_text != nullptr) *rule_text = rule.text;
    }
  }
  return cap;
}

aclError add_rules(const char* spec, const char* source) {
  if (spec == nullptr) return ACL_SUCCESS;
  std::vector<Rule> parsed;
  size_t index = 0;
  for (const std::string& text : split(spec, ';')) {
    ++index;
    if (text.empty()) continue;
    Rule rule;
    std::string error;
    if (!parse_rule(text, &rule, &error))
      return fail(ACL_ERROR_INVALID_PARAM,
                  "%s: rule %zu '%s': %s; nothing was injected. A rule is site[:key=value,...], rules are separated "
                  "by ';' (docs/fault-injection.md)",
                  source, index, text.c_str(), error.c_str());
    parsed.push_back(rule);
  }
  std::lock_guard<std::mutex> lock(registry_mutex());
  for (Rule& rule : parsed) {
    for (const SiteInfo& s : kSites)
      if (s.site == rule.site) rule.text = intern(canonical(rule, s.name));
    rules().push_back(rule);
  }
  if (!rules().empty()) g_armed.store(true, std::memory_order_relaxed);
  return ACL_SUCCESS;
}

void clear() {
  std::lock_guard<std::mutex> lock(registry_mutex());
  rules().clear();
  g_armed.store(false, std::memory_order_relaxed);
}

}  // namespace ascendsim::fault
