// libFuzzer target: arbitrary bytes as the text of a config file, through ctl::parse_config (TOML,
// then every table and key by its rules) and ctl::validate (what no single key can check).
//
// Invariants; a broken one prints what broke and traps, so libFuzzer records the input as a crash:
//  - only gnf::UserError escapes (any other exception is a finding, as is any sanitizer report);
//  - a UserError's message names the file (starts with "fuzz.toml") and holds no NUL byte (it is
//    printed as a C string, and would be cut there);
//  - a Config that validates has 1 to nf::kMaxPorts ports, every port the same number of rx and tx
//    queues, frames no larger than the driver's slots, ports with distinct names, and pools the
//    driver can take (less than 4 GiB each: driver::DriverOptions::pool_problem).
#include <cstdint>
#include <exception>
#include <set>
#include <string>
#include <string_view>

#include "ctl/config.h"
#include "fuzz_support.h"
#include "nf/packet.h"
#include "util/error.h"

using namespace gnf;

namespace {

const std::string kFile = "fuzz.toml";

void check_valid(const ctl::Config& c) {
  FUZZ_CHECK(c.file == kFile, "the Config does not name the file it was read from");
  FUZZ_CHECK(!c.ports.empty() && c.ports.size() <= nf::kMaxPorts, "a valid Config with 0 or too many ports");
  FUZZ_CHECK(c.driver.pool_problem().empty(), "a valid Config whose pool spans 4 GiB or more");
  std::set<std::string> names;
  for (const ctl::PortSpec& p : c.ports) {
    FUZZ_CHECK_EQ(p.nic.rx_queues, c.ports.front().nic.rx_queues, "ports with different rx queue counts");
    FUZZ_CHECK_EQ(p.nic.tx_queues, p.nic.rx_queues, "a port with different rx and tx queue counts");
    FUZZ_CHECK(p.nic.max_frame_bytes <= c.driver.slot_size, "a port's frames do not fit in the driver's slots");
    FUZZ_CHECK(names.insert(p.nic.name).second, "two ports with one name");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const ctl::Config config = ctl::parse_config(text, kFile);
    ctl::validate(config);
    check_valid(config);
  } catch (const UserError& e) {
    const std::string_view message = fuzz::full_message(e);
    if (message.rfind(kFile, 0) != 0) fuzz::fail("a UserError that does not name the file", fuzz::printable(message));
    if (message.find('\0') != std::string_view::npos) fuzz::fail("a NUL in a UserError", fuzz::printable(message));
  } catch (const std::exception& e) {
    fuzz::fail("an exception other than UserError", fuzz::printable(e.what()));
  }
  return 0;
}
