#include "nf/l2fwd/l2fwd.h"

#include <cstring>

namespace gnf::nf {

L2FwdView configure_l2fwd(const Params& params, const NfContext& context) {
  L2FwdView view{};
  const uint16_t ports = context.ports;
  std::string mode = params.get_choice("mode", ports > 1 ? "pairs" : "reflect", {"pairs", "reflect", "to"});
  int64_t to_port = params.get_int("to_port", 0, 0, ports - 1);
  std::string mac = params.get_choice("mac", "none", {"none", "swap", "rewrite"});
  params.reject_unknown();

  if (mode == "pairs" && ports % 2 != 0) params.fail("mode", "'pairs' needs an even number of ports");
  for (uint16_t in = 0; in < kMaxPorts; ++in) {
    if (mode == "pairs") view.out_port[in] = in ^ 1;
    else if (mode == "reflect") view.out_port[in] = in;
    else view.out_port[in] = uint16_t(to_port);
  }
  view.mac_mode = mac == "swap" ? L2FwdView::MacMode::Swap
                  : mac == "rewrite" ? L2FwdView::MacMode::Rewrite
                                     : L2FwdView::MacMode::None;
  for (uint16_t port = 0; port < kMaxPorts; ++port) {
    std::memcpy(view.src_mac[port], context.port_macs[port].data(), 6);
    const uint8_t dst[6] = {0x02, 0, 0, 0, 0, uint8_t(port)};
    std::memcpy(view.dst_mac[port], dst, 6);
  }
  return view;
}

}  // namespace gnf::nf
