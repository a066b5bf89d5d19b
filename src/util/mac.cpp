#include "util/mac.h"

namespace gnf {

std::optional<std::array<uint8_t, 6>> parse_mac(std::string_view text) {
  std::array<uint8_t, 6> mac{};
  if (text.size() != 17) return std::nullopt;
  for (int i = 0; i < 6; ++i) {
    if (i < 5 && text[i * 3 + 2] != ':') return std::nullopt;
    unsigned value = 0;
    for (int j = 0; j < 2; ++j) {
      char ch = text[i * 3 + j];
      value <<= 4;
      if (ch >= '0' && ch <= '9') value |= unsigned(ch - '0');
      else if (ch >= 'a' && ch <= 'f') value |= unsigned(ch - 'a' + 10);
      else if (ch >= 'A' && ch <= 'F') value |= unsigned(ch - 'A' + 10);
      else return std::nullopt;
    }
    mac[i] = uint8_t(value);
  }
  return mac;
}

}  // namespace gnf
