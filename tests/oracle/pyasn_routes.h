// Routes from pyasn's IPASN files, the RouteViews tables Debian's python3-pyasn ships: ';' comment
// lines, then "prefix/len<TAB>asn" per line, IPv4 and IPv6 mixed in the newer files. For the LPM
// oracles, which give each route its line number as next hop (so every route answers with its id).
#pragma once
#include <arpa/inet.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace gnf::oracle {

struct PyasnRoute {
  std::array<uint8_t, 16> prefix;  // network order; an IPv4 prefix in the first 4 bytes
  uint8_t depth;
  uint32_t line;  // 1-based, in the uncompressed file
};

// The routes of one family (AF_INET or AF_INET6) in the gzip file at `path`, in file order; the
// other family's lines are skipped. Throws std::runtime_error on a line that is not a route, or when
// the file gives none of that family.
inline std::vector<PyasnRoute> read_pyasn_routes(const char* path, int family) {
  const std::string command = std::string("gzip -dc '") + path + "'";
  FILE* f = popen(command.c_str(), "r");
  if (!f) throw std::runtime_error("cannot run " + command);
  std::vector<PyasnRoute> routes;
  char line[256];
  for (uint32_t number = 1; fgets(line, sizeof line, f); ++number) {
    if (line[0] == ';' || line[0] == '\n') continue;
    char text[INET6_ADDRSTRLEN];
    unsigned depth;
    PyasnRoute r{};
    const int line_family = strchr(line, ':') ? AF_INET6 : AF_INET;
    if (sscanf(line, "%45[0-9a-fA-F:.]/%u", text, &depth) != 2 || inet_pton(line_family, text, r.prefix.data()) != 1 ||
        depth > (line_family == AF_INET6 ? 128u : 32u)) {
      pclose(f);
      throw std::runtime_error(std::string("bad route line: ") + line);
    }
    if (line_family != family) continue;
    r.depth = uint8_t(depth);
    r.line = number;
    routes.push_back(r);
  }
  if (pclose(f) != 0 || routes.empty()) throw std::runtime_error(command + " failed or gave no routes of the family");
  return routes;
}

}  // namespace gnf::oracle
