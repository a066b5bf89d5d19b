// DPDK's EAL as the oracles start it: no hugepages, no devices, no files under /var/run. The LPM
// libraries need only EAL's heap, anonymous memory here (touched only where used), which works as an
// unprivileged process or in a container.
#pragma once
#include <rte_eal.h>
#include <rte_errno.h>

#include <cstdio>

namespace gnf::oracle {

// Starts EAL with a heap of heap_mb MiB. Where it does not start, prints "NAME: SKIP: " and DPDK's
// reason and returns false: the oracle then exits 77 (CTest's SKIP_RETURN_CODE).
inline bool start_eal(const char* name, const char* heap_mb) {
  const char* args[] = {name, "--no-huge", "--no-pci", "--no-shconf", "--no-telemetry",
                        "-m", heap_mb,     "-l",       "0",           "--log-level=lib.eal:error"};
  if (rte_eal_init(int(sizeof args / sizeof args[0]), const_cast<char**>(args)) < 0) {
    printf("%s: SKIP: DPDK's EAL did not initialise: %s\n", name, rte_strerror(rte_errno));
    return false;
  }
  return true;
}

}  // namespace gnf::oracle
