#include "util/memory_budget.h"

#include <unistd.h>

#include <fmt/format.h>

namespace gnf {

uint64_t machine_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : 0;
}

std::string memory_problem(uint64_t bytes, const std::string& what) {
  const uint64_t machine = machine_memory_bytes();
  if (machine == 0 || bytes <= machine / 2) return "";
  constexpr double kGiB = double(1 << 30);
  return fmt::format("{} would take {:.1f} GiB, more than half of this machine's {:.1f} GiB", what,
                     double(bytes) / kGiB, double(machine) / kGiB);
}

}  // namespace gnf
