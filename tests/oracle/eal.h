// DPDK's EAL as the oracles (and bench/lookup) start it: no hugepages, no devices, no files under
// /var/run. The LPM libraries need only EAL's heap, anonymous memory here (touched only where
// used), which works as an unprivileged process or in a container.
#pragma once
#include <rte_eal.h>
#include <rte_errno.h>

#include <cstdio>
#include <initializer_list>
#include <string>
#include <vector>

namespace gnf::oracle {

// Starts EAL with a heap of heap_mb MiB, its main thread (lcore 0) on CPU `cpu` (EAL pins it
// there), with `extra` EAL arguments. Where it does not start, prints "NAME: SKIP: " and DPDK's
// reason and returns false: the oracle then exits 77 (CTest's SKIP_RETURN_CODE).
inline bool start_eal(const char* name, const char* heap_mb, int cpu = 0,
                      std::initializer_list<const char*> extra = {}) {
  const std::string lcores = "--lcores=0@" + std::to_string(cpu);
  std::vector<const char*> args = {name,          "--no-huge",      "--no-pci",
                                   "--no-shconf", "--no-telemetry", "-m",
                                   heap_mb,       lcores.c_str(),   "--log-level=lib.eal:error"};
  args.insert(args.end(), extra.begin(), extra.end());
  if (rte_eal_init(int(args.size()), const_cast<char**>(args.data())) < 0) {
    printf("%s: SKIP: DPDK's EAL did not initialise: %s\n", name, rte_strerror(rte_errno));
    return false;
  }
  return true;
}

}  // namespace gnf::oracle
