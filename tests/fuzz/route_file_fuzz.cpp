// libFuzzer target: arbitrary bytes as a neighbour file and a route file, read by
// nf::load_neighbour_file and nf::load_route_file into a Router with two ports, each with an IPv4
// and an IPv6 address (as the l3fwd NF builds one: neighbours first, then routes). Its tables are
// small (a few groups, next hops and neighbours), so that "table full" errors are reached.
//
// Input layout: the neighbour file, a line "---", the route file; without that line the whole
// input is the route file. Each file is written to a scratch file of this process and read back.
//
// Invariants; a broken one prints what broke and traps, so libFuzzer records the input as a crash:
//  - only gnf::UserError escapes, and its message starts with the file's path and ':' (the line);
//  - every route line read before the first bad one (the loaders keep what they added) starts
//    with a prefix, and a lookup of that prefix's network address finds a route;
//  - the router holds exactly the distinct prefixes of those lines and of its ports' addresses
//    (a prefix given again replaces the route), at most as many neighbours as neighbour lines were
//    read, and at most RouterOptions::next_hops next hops.
#include <charconv>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "fuzz_support.h"
#include "nf/l3fwd/ip_address.h"
#include "nf/l3fwd/route_file.h"
#include "nf/l3fwd/router.h"
#include "util/error.h"

using namespace gnf;

namespace {

constexpr std::string_view kSeparator = "\n---\n";

// Runs `load` on `path` and returns how many lines it read before a bad one (all: INT_MAX); its
// UserError must name the file and the line.
template <typename Load>
int lines_read(const std::string& path, Load load) {
  try {
    load();
    return std::numeric_limits<int>::max();
  } catch (const UserError& e) {
    const std::string_view message = fuzz::full_message(e);
    if (message.rfind(path + ":", 0) != 0)
      fuzz::fail("a UserError that does not start with the file's path", fuzz::printable(message));
    // "path:line: problem", or "path: problem" when the file cannot be read at all.
    std::string_view rest = message.substr(path.size() + 1);
    int line = 0;
    auto [end, err] = std::from_chars(rest.data(), rest.data() + rest.size(), line);
    if (err != std::errc() || end == rest.data() + rest.size() || *end != ':' || line < 1)
      fuzz::fail("a UserError that does not name the line", fuzz::printable(message));
    return line - 1;
  } catch (const std::exception& e) {
    fuzz::fail("an exception other than UserError", fuzz::printable(e.what()));
  }
}

// The first word of every line, '#' comments cut, empty lines as "".
std::vector<std::string> first_words(std::string_view text) {
  std::vector<std::string> words;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    line.resize(std::min(line.size(), line.find('#')));
    std::istringstream line_in(line);
    std::string word;
    line_in >> word;
    words.push_back(word);
  }
  return words;
}

using PrefixKey = std::tuple<uint8_t, std::string, uint8_t>;  // family, address bytes, length
PrefixKey key_of(const nf::IpPrefix& p) {
  return {p.address.family, std::string(reinterpret_cast<const char*>(p.address.bytes), 16), p.length};
}

struct PortAddress {
  uint16_t port;
  const char* text;
};
constexpr PortAddress kAddresses[] = {
    {0, "10.0.0.1/24"}, {0, "2001:db8::1/64"}, {1, "10.0.1.1/24"}, {1, "2001:db8:1::1/64"}};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fuzz::ScratchFile neighbour_file("-neighbours.txt"), route_file("-routes.txt");
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t split = input.find(kSeparator);
  const std::string_view neighbours = split == input.npos ? std::string_view() : input.substr(0, split + 1);
  const std::string_view routes = split == input.npos ? input : input.substr(split + kSeparator.size());
  neighbour_file.write(reinterpret_cast<const uint8_t*>(neighbours.data()), neighbours.size());
  route_file.write(reinterpret_cast<const uint8_t*>(routes.data()), routes.size());

  nf::RouterOptions options;
  options.lpm4_tbl8_groups = 4;
  options.lpm6_groups = 64;  // the ports' addresses take 26 (13 for each /128 beyond /24)
  options.next_hops = 8;
  options.neighbour_slots = 16;  // the least NeighbourTable takes
  options.neighbour_records = 16;
  nf::Router router(options, 2);
  std::set<PrefixKey> prefixes;
  for (const PortAddress& a : kAddresses) {
    auto [address, network] = *nf::parse_interface_address(a.text);
    router.add_address(a.port, address, network);
    prefixes.insert(key_of(network));
    prefixes.insert(key_of(nf::network_of(address, uint8_t(address.bits()))));
  }

  const int neighbours_read =
      lines_read(neighbour_file.path(), [&] { nf::load_neighbour_file(neighbour_file.path(), router); });
  const int routes_read = lines_read(route_file.path(), [&] { nf::load_route_file(route_file.path(), router); });

  int neighbour_lines = 0;
  const std::vector<std::string> neighbour_words = first_words(neighbours);
  for (int i = 0; i < int(neighbour_words.size()) && i < neighbours_read; ++i)
    neighbour_lines += !neighbour_words[i].empty();

  const std::vector<std::string> route_words = first_words(routes);
  for (int i = 0; i < int(route_words.size()) && i < routes_read; ++i) {
    const std::string& word = route_words[i];
    if (word.empty()) continue;
    auto given = nf::parse_interface_address(word[0] == 'R' ? std::string_view(word).substr(1) : word);
    if (!given) fuzz::fail("a route line was read without a prefix", fuzz::printable(word));
    prefixes.insert(key_of(given->second));
    if (!router.lookup(given->second.address))
      fuzz::fail("no route to the network of a route line that was read", fuzz::printable(word));
  }

  const nf::Router::Usage usage = router.usage();
  FUZZ_CHECK_EQ(usage.ipv4_routes + usage.ipv6_routes, prefixes.size(),
                "the router's routes != the distinct prefixes of its addresses and the lines read");
  FUZZ_CHECK(usage.neighbours <= uint32_t(neighbour_lines), "more neighbours than neighbour lines read");
  FUZZ_CHECK(usage.next_hops <= options.next_hops, "more next hops than the router has room for");
  return 0;
}
