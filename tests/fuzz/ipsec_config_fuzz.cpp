// libFuzzer target: arbitrary bytes as an ipsec-secgw configuration (nf/ipsec/config_file.h),
// parsed by nf::parse_ipsec_config and, when it parses, built into nf::IpsecTables.
//
// Invariants; a broken one prints what broke and traps, so libFuzzer records the input as a crash:
//  - only gnf::UserError escapes the parser, and its message is "fuzz.ipsec:LINE: FIELD: ..." with a
//    line the input has and a field that is one word;
//  - a configuration that parses builds (the classifier within its memory bound, or UserError);
//    every SA is found under its direction and SPI, and every protect policy's SA has its SPI.
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "fuzz_support.h"
#include "nf/ipsec/config_file.h"
#include "nf/ipsec/tables.h"
#include "util/error.h"

using namespace gnf;

namespace {

constexpr const char* kName = "fuzz.ipsec";

void check_error(std::string_view message, std::string_view input) {
  const std::string_view rest = fuzz::after_name_and_line(message, input, kName);
  const size_t field_end = rest.find(": ");
  const std::string_view field = rest.substr(0, field_end);
  if (field_end == rest.npos || field.empty() || field.find_first_of(" \t\r\v\f\n") != field.npos)
    fuzz::fail("an error that names no field", fuzz::printable(message));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  nf::IpsecConfig config;
  try {
    config = nf::parse_ipsec_config(input, kName, nf::IpsecOptions{});
  } catch (const UserError& e) {
    check_error(fuzz::full_message(e), input);
    return 0;
  } catch (const std::exception& e) {
    fuzz::fail("an exception other than UserError", fuzz::printable(e.what()));
  }
  std::unique_ptr<nf::IpsecTables> tables;
  try {
    tables = std::make_unique<nf::IpsecTables>(config);
  } catch (const UserError&) {
    return 0;  // over the classifier's memory bound
  } catch (const std::exception& e) {
    fuzz::fail("the tables threw other than UserError", fuzz::printable(e.what()));
  }
  const nf::IpsecView view = tables->view();
  for (uint32_t i = 0; i < config.sas.size(); ++i) {
    FUZZ_CHECK_EQ(tables->sa_index(config.sas[i].direction, config.sas[i].spi), i, "an SA not found under its SPI");
    if (config.sas[i].direction == nf::IpsecDirection::In)
      FUZZ_CHECK_EQ(nf::ipsec_inbound_sa(view, config.sas[i].spi), i, "an inbound SA not found by the SPI index");
  }
  for (const auto& [direction, spd] : {std::pair{nf::IpsecDirection::Out, view.out_spd}, std::pair{nf::IpsecDirection::In, view.in_spd}}) {
    size_t count = 0;
    for (const nf::IpsecPolicy& p : config.policies) count += p.direction == direction;
    for (size_t r = 0; r < count; ++r) {
      const nf::SpdEntry entry = spd.entries[r];
      if (entry.action != nf::SpAction::Protect) continue;
      FUZZ_CHECK(entry.sa < config.sas.size(), "a protect policy's SA index out of range");
      FUZZ_CHECK(config.sas[entry.sa].direction == direction, "a protect policy names an SA of the other direction");
    }
  }
  return 0;
}
