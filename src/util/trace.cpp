#include "util/trace.h"

#include <cstdlib>
#include <sstream>
#include <string>

namespace gnf {

uint32_t trace_handovers() {
  static const uint32_t bits = [] {
    const char* value = std::getenv("GNF_TRACE_HANDOVERS");
    uint32_t out = 0;
    std::stringstream words(value ? value : "");
    for (std::string word; std::getline(words, word, ',');) {
      if (word == "admit") out |= kTraceAdmit;
      if (word == "agent") out |= kTraceAgent;
      if (word == "found") out |= kTraceFound;
    }
    return out;
  }();
  return bits;
}

uint32_t traced_agent_time() {
  const uint32_t bits = trace_handovers();
  return bits & kTraceAgent ? uint32_t(kTraceAgent) : bits & kTraceFound ? uint32_t(kTraceFound) : 0u;
}

}  // namespace gnf
