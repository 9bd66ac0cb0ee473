// A small JSON reader for aclInit's configuration file: enough to validate the syntax and read the
// sections (dump, profiler, err_msg_mode) without a parsing library; and the quoting of strings the runtime
// writes as JSON (traces, reports).
#pragma once
#include <map>
#include <string>
#include <vector>

namespace ascendsim {

struct JsonValue {
  enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> array;
  std::map<std::string, JsonValue> object;

  const JsonValue* get(const std::string& key) const;  // null unless an object with that key
};

// Parses `text`; on a syntax error returns false and describes it (with the byte offset) in `error`.
bool parse_json(const std::string& text, JsonValue* out, std::string* error);

// `s` as a JSON string literal: quoted, with quotes, backslashes and control characters escaped.
std::string json_quote(const std::string& s);

}  // namespace ascendsim
