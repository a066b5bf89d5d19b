// MAC addresses as config and table files write them.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gnf {

// Parses "02:00:00:00:00:01" (two hex digits per byte, either case). Returns nullopt on anything else.
std::optional<std::array<uint8_t, 6>> parse_mac(std::string_view text);

}  // namespace gnf
