#include "lookup_bench.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>

namespace gnf::lookup_bench {

double Measurement::best_s() const { return *std::min_element(seconds.begin(), seconds.end()); }

double Measurement::median_s() const {
  std::vector<double> s = seconds;
  std::sort(s.begin(), s.end());
  const size_t n = s.size();
  return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

std::string Measurement::label() const {
  const std::string name = (library == "gnf" ? "gnf " : "") + implementation;
  if (device == "gpu") return fmt::format("{} kernel, {} results, {} threads/block", name, variant, batch);
  if (variant == "x4") return name + ", 4 per call (SSE)";
  return batch ? fmt::format("{}, {} per call", name, batch) : name + ", 1 per call";
}

nlohmann::json Measurement::to_json() const {
  const double best = best_s(), median = median_s();
  return {{"family", family},
          {"device", device},
          {"implementation", implementation},
          {"library", library},
          {"variant", variant},
          {"batch", batch},
          {"address_set", address_set},
          {"label", label()},
          {"lookups", lookups},
          {"seconds", seconds},
          {"seconds_best", best},
          {"seconds_median", median},
          {"lookups_per_s_best", double(lookups) / best},
          {"lookups_per_s_median", double(lookups) / median},
          {"ns_per_lookup_best", best * 1e9 / double(lookups)},
          {"ns_per_lookup_median", median * 1e9 / double(lookups)},
          {"detail", detail}};
}

void Report::note(const std::string& text) {
  fprintf(stderr, "note: %s\n", text.c_str());
  notes.push_back(text);
}

nlohmann::json Report::to_json() const {
  nlohmann::json m = nlohmann::json::array();
  for (const Measurement& x : measurements) m.push_back(x.to_json());
  return {{"kind", "gnf-lookup-bench"},
          {"schema", 1},
          {"gnf_version", GNF_VERSION},
          {"environment", environment},
          {"options", options},
          {"cpu", cpu},
          {"gpu", gpu},
          {"tables", tables},
          {"address_sets", address_sets},
          {"verification", verification},
          {"measurements", m},
          {"notes", notes}};
}

void Report::print(FILE* out) const {
  std::vector<std::string> sets;
  for (const Measurement& x : measurements) {
    if (std::find(sets.begin(), sets.end(), x.address_set) == sets.end()) sets.push_back(x.address_set);
  }
  for (const auto& [family, table] : tables.items()) {
    fmt::print(out, "\n{}: {} ({} routes). Mlookups/s, best (median) of {} repetitions\n", family,
               table["source"].get<std::string>(), table["routes"].get<uint64_t>(), options["repetitions"].get<int>());
    fmt::print(out, "  {:<58}", "implementation");
    for (const std::string& s : sets) fmt::print(out, "{:>20}", s);
    fmt::print(out, "\n");
    std::vector<std::string> rows;  // labels in the order first measured
    std::map<std::pair<std::string, std::string>, const Measurement*> cells;
    for (const Measurement& x : measurements) {
      if (x.family != family) continue;
      const std::string row = x.device + " " + x.label();
      if (std::find(rows.begin(), rows.end(), row) == rows.end()) rows.push_back(row);
      cells[{row, x.address_set}] = &x;
    }
    for (const std::string& row : rows) {
      fmt::print(out, "  {:<58}", row);
      for (const std::string& s : sets) {
        const auto it = cells.find({row, s});
        fmt::print(out, "{:>20}",
                   it == cells.end() ? "-"
                                     : fmt::format("{:.1f} ({:.1f})", it->second->lookups / it->second->best_s() / 1e6,
                                                   it->second->lookups / it->second->median_s() / 1e6));
      }
      fmt::print(out, "\n");
    }
    fmt::print(out, "  table memory{:>31}{:>12}{:>16}{:>14}{:>12}\n", "build s", "alloc MiB", "lookup MiB", "RSS +MiB",
               "GPU MiB");
    for (const auto& t : table["implementations"]) {
      auto mib = [&](const char* key) {
        return t.contains(key) && !t[key].is_null() ? fmt::format("{:.1f}", t[key].get<double>() / (1 << 20))
                                                    : std::string("-");
      };
      fmt::print(out, "  {:<30}{:>13.2f}{:>12}{:>16}{:>14}{:>12}\n", t["implementation"].get<std::string>(),
                 t["build_s"].get<double>(), mib("allocated_bytes"), mib("lookup_bytes"), mib("rss_delta_bytes"),
                 mib("device_bytes"));
    }
  }
  for (const std::string& n : notes) fmt::print(out, "note: {}\n", n);
}

uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * uint64_t(sysconf(_SC_PAGESIZE));
}

std::vector<uint32_t> verify_and_time(Report& report, const std::string& set, uint64_t count,
                                      std::vector<CpuLookup>& lookups, const Options& o,
                                      const std::function<std::string(uint64_t)>& address_text) {
  const std::string& family = lookups.front().what.family;
  std::vector<uint32_t> expected(count);
  lookups.front().pass();
  uint64_t routed = 0;
  for (uint64_t i = 0; i < count; ++i) routed += (expected[i] = lookups.front().answer(i)) != kNoRoute;
  uint64_t mismatches = 0;
  nlohmann::json names = nlohmann::json::array();
  for (CpuLookup& l : lookups) {
    names.push_back(l.what.label());
    if (&l == &lookups.front()) continue;
    l.pass();
    for (uint64_t i = 0; i < count; ++i) {
      const uint32_t got = l.answer(i);
      if (got != expected[i] && ++mismatches <= 10) {
        fprintf(stderr, "MISMATCH %s %s address #%llu %s: %s %u, %s %u (0: no route)\n", family.c_str(), set.c_str(),
                (unsigned long long)i, address_text(i).c_str(), lookups.front().what.label().c_str(), expected[i],
                l.what.label().c_str(), got);
      }
    }
  }
  report.verification.push_back({{"family", family},
                                 {"address_set", set},
                                 {"addresses", count},
                                 {"routed", routed},
                                 {"implementations", names},
                                 {"mismatches", mismatches},
                                 {"agree", mismatches == 0}});
  if (mismatches) {
    throw Disagreement(fmt::format("{} {}: {} answers differ between implementations (the first ones above)", family,
                                   set, mismatches));
  }
  fprintf(stderr, "%s %s: %zu implementations agree on %llu addresses (%llu routed)\n", family.c_str(), set.c_str(),
          lookups.size(), (unsigned long long)count, (unsigned long long)routed);
  for (CpuLookup& l : lookups) {
    Measurement m = l.what;
    m.address_set = set;
    m = time_passes(std::move(m), count, o, l.pass);
    fprintf(stderr, "  %s %s %s: %.1f Mlookups/s (best of %d)\n", family.c_str(), set.c_str(), m.label().c_str(),
            m.lookups / m.best_s() / 1e6, o.repetitions);
    report.measurements.push_back(std::move(m));
  }
  return expected;
}

}  // namespace gnf::lookup_bench
