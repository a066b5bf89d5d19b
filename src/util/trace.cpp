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

}  // namespace gnf
