// A path's ports with everything on their wires: sources (pcap, generator, Linux interface),
// sinks (pcap capture; one measuring sink per queue group), and the memory the path's table puts
// their registers and FIFOs in.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "nic/port.h"
#include "path/path_table.h"
#include "path/spec.h"
#include "wire/generator.h"
#include "wire/link.h"
#include "wire/measure.h"
#include "wire/pcap_sink.h"

namespace gnf::path {

class Ports {
 public:
  // Opens the wires and builds the ports; `nic_threads`: how many threads the NIC model may deal a
  // port's queue groups over. Throws UserError on what cannot be opened.
  Ports(const std::vector<PortSpec>& specs, const PathRow& row, uint32_t nic_threads);
  ~Ports();

  size_t size() const { return ports_.size(); }
  nic::Port& operator[](size_t i) const { return *ports_[i]; }
  std::vector<nic::Port*> all() const;
  // The Linux interface port `i` is attached to, or null.
  const wire::Link* link(size_t i) const { return links_[i]; }
  // What port i's source produced (zero without one).
  wire::SourceCounters source_counters(size_t i) const;

  // Makes every generator and measuring sink count `window` too; before any thread runs.
  void set_window(const wire::MeasuredWindow& window);
  // Starts every port's wire at `now_ns`.
  void start(uint64_t now_ns);
  void stop_sources();
  // Closes the measuring sinks (after every thread stopped), every one of them; then throws
  // UserError if a capture could not be written.
  void finish_sinks();
  // Per port: what its sinks measured together.
  std::vector<wire::MeasureReport> measurements() const;

  // Elementwise sums over the generators: frames sent per flow, and inside the measured window per
  // flow and per second of it.
  std::vector<uint64_t> generated_per_flow() const;
  std::vector<uint64_t> generated_in_window_per_flow() const;
  std::vector<uint64_t> generated_in_window_per_second() const;
  bool generators_finished() const;

 private:
  struct PinnedRegs;

  std::vector<std::unique_ptr<wire::Source>> sources_;  // per port; may be null
  std::vector<wire::Link*> links_;  // per port: its source and sink when it has a link, else null
  std::vector<wire::Generator*> generators_;
  std::vector<std::unique_ptr<wire::PcapSink>> pcap_sinks_;
  // Per port, one measuring sink per queue group: a flow's frames all leave through one group.
  std::vector<std::vector<std::unique_ptr<wire::MeasuringSink>>> sinks_;
  // Declared before the ports, which use them.
  std::vector<std::unique_ptr<PinnedRegs>> pinned_regs_;
  std::vector<std::unique_ptr<nic::Port>> ports_;
};

}  // namespace gnf::path
