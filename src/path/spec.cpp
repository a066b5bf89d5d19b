#include "path/spec.h"

#include <algorithm>

#include "util/name_table.h"
#include "util/net_headers.h"

namespace gnf::path {

std::string_view path_name(PathKind kind) {
  return kind == PathKind::Calibrate ? "calibrate" : name_of(kPathNames, kind);
}

IdlePolicy idle_policy(const PathSpec& spec) {
  const bool generated = std::any_of(spec.ports.begin(), spec.ports.end(), [](const PortSpec& p) {
    return p.source.kind == SourceSpec::Kind::Generator;
  });
  const bool backoff = spec.idle == IdleMode::Backoff || (spec.idle == IdleMode::Auto && !generated);
  return IdlePolicy{backoff, uint64_t(spec.idle_sleep_us_max) * 1000};
}

nf::NfContext nf_context(const PathSpec& spec) {
  nf::NfContext context;
  context.ports = uint16_t(spec.ports.size());
  if (!spec.ports.empty()) context.planes = spec.ports.front().nic.rx_queues;
  context.chain_on_gpu = spec.path == PathKind::Staged || spec.path == PathKind::Bypass;
  for (size_t p = 0; p < spec.ports.size(); ++p) {
    context.port_macs[p] = spec.ports[p].nic.mac;
    context.port_mtu[p] = uint16_t(spec.ports[p].nic.max_frame_bytes - net::kEthHeaderBytes);
    for (const auto& [address, network] : spec.ports[p].addresses)
      context.addresses.push_back({uint16_t(p), address, network});
  }
  return context;
}

}  // namespace gnf::path
