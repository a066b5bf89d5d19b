#include "app/placement.h"

#include <algorithm>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "util/cores.h"

namespace gnf::app {

nlohmann::json placement_json(const path::Pipeline& pipeline) {
  nlohmann::json threads = nlohmann::json::array();
  for (const ThreadCpu& t : pipeline.thread_cpu())
    threads.push_back({{"role", t.role},
                       {"name", t.name},
                       {"cpu", t.core >= 0 ? nlohmann::json(t.core) : nlohmann::json(nullptr)},
                       {"cpus", cpu_list_text(t.cores)}});
  for (const ThreadPlace& t : pipeline.other_threads())
    threads.push_back({{"role", "control"}, {"name", t.name}, {"cpu", nullptr}, {"cpus", cpu_list_text(t.cores)}});
  return threads;
}

std::string placement_line(const nlohmann::json& placement) {
  std::vector<std::string> poll;
  // The other threads by where they could run, each name once.
  std::map<std::string, std::vector<std::string>> others;
  for (const auto& t : placement) {
    const std::string role = t["role"].get<std::string>(), name = t["name"].get<std::string>();
    const std::string cpus = t["cpus"].get<std::string>();
    if (role == "control") {
      std::vector<std::string>& names = others[cpus];
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
      continue;
    }
    const std::string where = t["cpu"].is_null() ? fmt::format("CPUs {} (not pinned)", cpus)
                                                 : fmt::format("CPU {}", t["cpu"].get<int>());
    poll.push_back(fmt::format("{} ({}) on {}", name, role == "nic" ? "NIC model" : role, where));
  }
  std::vector<std::string> groups;
  for (const auto& [cpus, names] : others) groups.push_back(fmt::format("{}: {}", cpus, fmt::join(names, ", ")));
  std::string line = fmt::format("threads: {}", fmt::join(poll, ", "));
  if (!groups.empty()) line += fmt::format("; other threads on CPUs {}", fmt::join(groups, "; on CPUs "));
  return line;
}

}  // namespace gnf::app
