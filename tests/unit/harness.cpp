#include "harness.h"

#include <cstring>

#include "path/pipeline.h"

namespace gnf::test {

std::vector<uint8_t> udp_frame(uint32_t len, uint16_t src_port, uint32_t tag) {
  std::vector<uint8_t> f(len, 0);
  const uint8_t header[] = {
      0x02, 0, 0, 0, 0, 0x02,  0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00,  // Ethernet
      0x45, 0, 0, 0, 0, 0, 0, 0, 64, 17, 0, 0,                        // IPv4 (length/checksum unused here)
      198, 18, 0, 1, 198, 19, 0, 1,                                   // addresses
      0, 0, 0x13, 0x89, 0, 0, 0, 0};                                  // UDP
  std::memcpy(f.data(), header, sizeof(header));
  f[34] = uint8_t(src_port >> 8);
  f[35] = uint8_t(src_port);
  std::memcpy(f.data() + 42, &tag, sizeof(tag));
  return f;
}

namespace {
std::vector<std::unique_ptr<wire::Source>> one(std::unique_ptr<wire::Source> source) {
  std::vector<std::unique_ptr<wire::Source>> v;
  v.push_back(std::move(source));
  return v;
}
std::vector<nf::NfSpec> reflect_if_empty(std::vector<nf::NfSpec> nfs) {
  if (nfs.empty()) {
    nf::Params params;
    params.set("mode", nf::ParamValue{std::string("reflect"), 0});
    nfs.push_back(nf::NfSpec{"l2fwd", params});
  }
  return nfs;
}
std::vector<std::unique_ptr<CollectSink>> make_sinks(size_t n) {
  std::vector<std::unique_ptr<CollectSink>> v;
  for (size_t i = 0; i < n; ++i) v.push_back(std::make_unique<CollectSink>());
  return v;
}
}  // namespace

Rig::Rig(std::unique_ptr<wire::Source> src, nic::PortOptions port_options, driver::DriverOptions driver_options,
         std::vector<nf::NfSpec> nfs)
    : Rig(one(std::move(src)), {port_options}, driver_options, std::move(nfs)) {}

Rig::Rig(std::vector<std::unique_ptr<wire::Source>> srcs, std::vector<nic::PortOptions> port_options,
         driver::DriverOptions driver_options, std::vector<nf::NfSpec> nfs)
    : sources(std::move(srcs)), sinks(make_sinks(port_options.size())), sink(*sinks.front()) {
  nf::NfContext context;
  context.ports = uint16_t(port_options.size());
  context.planes = port_options.front().rx_queues;
  chain = std::make_unique<nf::NfChain>(reflect_if_empty(std::move(nfs)), context);
  std::vector<nic::Port*> raw;
  for (size_t p = 0; p < port_options.size(); ++p) {
    nic::fill_reta_round_robin(port_options[p].rss, port_options[p].rx_queues);
    ports.push_back(std::make_unique<nic::Port>(port_options[p], sources[p].get(), sinks[p].get()));
    raw.push_back(ports.back().get());
  }
  source = sources.front().get();
  port = raw.front();
  for (uint16_t q = 0; q < port_options.front().rx_queues; ++q)
    planes.push_back(std::make_unique<driver::Plane>(q, raw, driver_options, chain->view()));
  for (auto& p : ports) p->start(now_ns);
}

void Rig::step(int nic_polls, uint64_t step_ns) {
  for (int i = 0; i < nic_polls; ++i) {
    now_ns += step_ns;
    for (auto& p : ports) p->poll(now_ns);
  }
  for (auto& plane : planes) plane->poll(now_ns);
}

bool Rig::drained() const {
  path::Snapshot s;
  for (const auto& p : ports) {
    if (!p->rx_drained() || !p->tx_drained()) return false;
    s.ports.emplace_back();
    add_counters(s.ports.back(), p->counters());
  }
  for (const auto& plane : planes) add_counters(s.driver, plane->counters());
  return s.rings_and_driver_empty();
}

void Rig::run_to_completion(int nic_polls, uint64_t step_ns, uint64_t max_steps) {
  for (uint64_t i = 0; i < max_steps && !drained(); ++i) step(nic_polls, step_ns);
  for (auto& plane : planes) plane->flush(now_ns);
}

uint64_t plane_sum(const Rig& rig, const Counter driver::PlaneCounters::*member) {
  uint64_t n = 0;
  for (const auto& plane : rig.planes) n += (plane->counters().*member).get();
  return n;
}

}  // namespace gnf::test
