// What a configuration may ask of the machine's memory. Sizes inside each option's range can still
// multiply to more than the machine has (pool_slots x slot_size x queues x ports); such a config is
// refused before anything is allocated, naming the key, instead of ending in std::bad_alloc or the
// kernel's OOM killer.
#pragma once
#include <cstdint>
#include <string>

namespace gnf {

// The machine's physical memory in bytes.
uint64_t machine_memory_bytes();

// "" if `bytes` for `what` fit in half of the machine's memory (the rest is the system's, the
// other tables' and the page cache's), else a sentence saying how much it takes against what
// there is.
std::string memory_problem(uint64_t bytes, const std::string& what);

}  // namespace gnf
