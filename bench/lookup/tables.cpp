#include "tables.h"

#include <arpa/inet.h>

#include <random>

#include "lookup_bench.h"
#include "pyasn_routes.h"
#include "util/error.h"

namespace gnf::lookup_bench {

namespace {

constexpr const char* kSynthetic = "synthetic:";

// "synthetic:N" -> N (with a k or M suffix), 0 for a file.
uint64_t synthetic_count(const std::string& spec) {
  if (spec.rfind(kSynthetic, 0) != 0) return 0;
  const std::string n = spec.substr(strlen(kSynthetic));
  size_t end = 0;
  uint64_t count = 0;
  try {
    count = std::stoull(n, &end);
  } catch (const std::exception&) {
    end = 0;
  }
  const std::string suffix = n.substr(end);
  if (end == 0 || count == 0 || !(suffix.empty() || suffix == "k" || suffix == "M"))
    throw UserError("bad table '" + spec + "': want synthetic:N (N routes, e.g. 1M) or a pyasn file");
  return count * (suffix == "k" ? 1000 : suffix == "M" ? 1000000 : 1);
}

std::string synthetic_source(uint64_t count, uint64_t seed) {
  return "synthetic BGP-shaped (" + std::to_string(count) + " routes, seed " + std::to_string(seed) + ")";
}

std::vector<oracle::PyasnRoute> pyasn_routes(const std::string& path, int family) {
  try {
    return oracle::read_pyasn_routes(path.c_str(), family);
  } catch (const std::runtime_error& e) {
    throw UserError(path + ": " + e.what());
  }
}

// The seed of one address set: each set its own stream, the same every run.
std::mt19937_64 set_rng(const std::string& set, const Options& o) {
  return std::mt19937_64(o.seed ^ std::hash<std::string>()(set));
}

// Fills `count` addresses: `distinct` drawn by `draw`, repeated in order to make up the count.
template <typename Address, typename Draw>
std::vector<Address> fill(uint64_t count, uint64_t distinct, Draw draw) {
  std::vector<Address> out(count);
  for (uint64_t i = 0; i < count; ++i) out[i] = i < distinct ? draw() : out[i % distinct];
  return out;
}

void check_set(const std::string& set) {
  if (set != "uniform" && set != "routed" && set != "working-set")
    throw UserError("unknown address set '" + set + "': uniform, routed or working-set");
}

}  // namespace

Table4 load_ipv4_table(const std::string& spec, uint64_t seed) {
  if (const uint64_t n = synthetic_count(spec))
    return {synthetic_source(n, seed), oracle::synthetic_bgp4_routes(n, seed)};
  Table4 t{spec, {}};
  for (const oracle::PyasnRoute& r : pyasn_routes(spec, AF_INET)) {
    const auto& b = r.prefix;
    t.routes.push_back({uint32_t(b[0]) << 24 | b[1] << 16 | b[2] << 8 | b[3], r.depth, r.line});
  }
  return t;
}

Table6 load_ipv6_table(const std::string& spec, uint64_t seed) {
  if (const uint64_t n = synthetic_count(spec))
    return {synthetic_source(n, seed), oracle::synthetic_bgp6_routes(n, seed)};
  Table6 t{spec, {}};
  for (const oracle::PyasnRoute& r : pyasn_routes(spec, AF_INET6)) {
    t.routes.push_back({oracle::value_of(r.prefix), r.depth, r.line});
  }
  return t;
}

uint64_t distinct_addresses(const std::string& set, const Options& o) {
  check_set(set);
  return set == "working-set" ? std::min(o.working_set, o.count) : o.count;
}

std::vector<uint32_t> ipv4_addresses(const std::string& set, const std::vector<oracle::Route4>& routes,
                                     const Options& o) {
  std::mt19937_64 rng = set_rng(set, o);
  return fill<uint32_t>(o.count, distinct_addresses(set, o), [&] {
    const uint32_t anywhere = uint32_t(rng());
    if (set == "uniform") return anywhere;
    const oracle::Route4& r = routes[rng() % routes.size()];
    return r.prefix | (anywhere & oracle::host_mask4(r.depth));
  });
}

std::vector<oracle::Ipv6Bytes> ipv6_addresses(const std::string& set, const std::vector<oracle::Route6>& routes,
                                              const Options& o) {
  std::mt19937_64 rng = set_rng(set, o);
  return fill<oracle::Ipv6Bytes>(o.count, distinct_addresses(set, o), [&] {
    const uint64_t hi = rng();  // in this order: an expression's calls have none
    const oracle::U128 anywhere = oracle::U128(hi) << 64 | rng();
    if (set == "uniform") return oracle::bytes_of(anywhere);
    const oracle::Route6& r = routes[rng() % routes.size()];
    return oracle::bytes_of(r.prefix | (anywhere & oracle::host_mask(r.depth)));
  });
}

}  // namespace gnf::lookup_bench
