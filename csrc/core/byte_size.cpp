#include "core/byte_size.h"

#include <cerrno>
#include <cstdlib>

namespace ascendsim {

size_t parse_byte_size(const char* text) {
  if (text == nullptr || *text < '0' || *text > '9') return 0;  // strtoull would accept " -1" and wrap it
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (errno != 0 || end == text) return 0;
  int shift = 0;
  switch (*end) {
    case 'k': case 'K': shift = 10; ++end; break;
    case 'm': case 'M': shift = 20; ++end; break;
    case 'g': case 'G': shift = 30; ++end; break;
    case 't': case 'T': shift = 40; ++end; break;
    default: break;
  }
  if (shift != 0 && *end == 'i') ++end;
  if (*end == 'B' || *end == 'b') ++end;
  if (*end != '\0' || value > (~0ull >> shift)) return 0;
  return static_cast<size_t>(value << shift);
}

}  // namespace ascendsim
