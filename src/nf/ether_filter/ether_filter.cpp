#include "nf/ether_filter/ether_filter.h"

#include <cctype>
#include <map>
#include <sstream>

#include <fmt/format.h>

namespace gnf::nf {

namespace {

const std::map<std::string, uint16_t> kNamedTypes = {
    {"arp", 0x0806}, {"ipv4", 0x0800}, {"ipv6", 0x86dd}, {"lldp", 0x88cc}, {"vlan", 0x8100}};

// "arp, 0x88cc" -> {0x0806, 0x88cc}; fails naming the key on anything else.
std::vector<uint16_t> parse_types(const Params& params, const std::string& key) {
  std::string text = params.get_string(key, "");
  for (char& c : text)
    if (c == ',') c = ' ';
  std::istringstream words(text);
  std::vector<uint16_t> types;
  for (std::string word; words >> word;) {
    std::string lower;
    for (char c : word) lower += char(std::tolower(static_cast<unsigned char>(c)));
    if (auto named = kNamedTypes.find(lower); named != kNamedTypes.end()) {
      types.push_back(named->second);
      continue;
    }
    size_t used = 0;
    unsigned long value = 0;
    try {
      value = std::stoul(lower, &used, 16);
    } catch (const std::exception&) {
      used = 0;
    }
    if (lower.rfind("0x", 0) != 0 || used != lower.size() || value > 0xffff)
      params.fail(key, fmt::format("'{}' is not an EtherType (a name: arp, ipv4, ipv6, lldp; or hex like 0x0806)", word));
    types.push_back(uint16_t(value));
  }
  if (types.size() > size_t(EtherFilterView::kMaxTypes))
    params.fail(key, fmt::format("at most {} EtherTypes", EtherFilterView::kMaxTypes));
  return types;
}

}  // namespace

EtherFilterView configure_ether_filter(const Params& params, const NfContext&) {
  std::vector<uint16_t> to_host = parse_types(params, "to_host");
  std::vector<uint16_t> drop = parse_types(params, "drop");
  params.reject_unknown();
  for (uint16_t t : to_host)
    for (uint16_t d : drop)
      if (t == d) params.fail("drop", fmt::format("EtherType 0x{:04x} is also in to_host", t));
  EtherFilterView view{};
  for (uint16_t t : to_host) view.to_host[view.to_host_count++] = t;
  for (uint16_t d : drop) view.drop[view.drop_count++] = d;
  return view;
}

}  // namespace gnf::nf
